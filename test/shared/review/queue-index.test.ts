import { describe, expect, it } from 'vitest';
import { reasonsChangeAt, reviewItem, type ReviewFacts } from '../../../src/shared/review/queue';
import { indexQueue, queuePage, type QueueQuery } from '../../../src/shared/review/queue-index';
import { conversationFacts, recordFacts } from '../../support/review-facts';

const NOW = Date.parse('2026-11-23T15:00:00Z');
const HOUR = 3_600_000;
const ZONE = 'America/New_York';

const endOf = (startMs: number | null) => (startMs === null ? null : startMs + 600_000);
const record = (id: string, startMs: number | null, extra: Partial<ReviewFacts> = {}) =>
  reviewItem(recordFacts({ id, startMs, endMs: endOf(startMs), ...extra }), NOW);
const conversation = (id: string, startMs: number | null, extra: Partial<ReviewFacts> = {}) =>
  reviewItem(conversationFacts({ id, startMs, endMs: endOf(startMs), ...extra }), NOW);

const index = indexQueue(
  [
    record('r-mon-17', Date.parse('2026-11-23T17:00:00-05:00'), { patient: null }),
    record('r-mon-9', Date.parse('2026-11-23T09:00:00-05:00'), {
      source: { key: 'HUB-2', name: 'Consult Room 2' },
    }),
    record('r-sun-23', Date.parse('2026-11-22T23:30:00-05:00'), {
      reviewed: { state: 'current', at: NOW },
    }),
    record('r-sun-8', Date.parse('2026-11-22T08:00:00-05:00'), { transcriptPending: true }),
  ],
  [
    conversation('c-mon-12', Date.parse('2026-11-23T12:00:00-05:00')),
    conversation('c-undated', null),
  ],
  (item) => reasonsChangeAt(item, NOW),
);

const page = (query: Partial<QueueQuery> = {}) =>
  queuePage(index, { offset: 0, limit: 100, timeZone: ZONE, ...query });
const ids = (query: Partial<QueueQuery> = {}) => page(query).entries.map((e) => e.id);

describe('the queue as an index', () => {
  it('merges records and conversations newest first, undated last, each with its kind', () => {
    expect(page().entries).toEqual([
      { kind: 'record', id: 'r-mon-17' },
      { kind: 'conversation', id: 'c-mon-12' },
      { kind: 'record', id: 'r-mon-9' },
      { kind: 'record', id: 'r-sun-8' },
      { kind: 'conversation', id: 'c-undated' },
    ]);
  });

  it('counts what this user can act on, and each source of the queue by name', () => {
    const { count, sources, total } = page();
    // Being processed is listed but not counted; reviewed is neither.
    expect(total).toBe(5);
    expect(count).toBe(4);
    expect(sources).toEqual([
      { key: 'HUB-1', name: 'Consult Room 1', count: 4 },
      { key: 'HUB-2', name: 'Consult Room 2', count: 1 },
    ]);
  });

  it('filters by source, kind and reason, together, and shows reviewed ones when asked', () => {
    expect(ids({ filter: { sources: ['HUB-2'] } })).toEqual(['r-mon-9']);
    expect(ids({ filter: { kinds: ['conversation'] } })).toEqual(['c-mon-12', 'c-undated']);
    expect(ids({ filter: { reasons: ['no-patient'] } })).toEqual(['r-mon-17']);
    expect(ids({ filter: { reasons: ['failed', 'processing'] } })).toEqual([
      'c-mon-12',
      'r-sun-8',
      'c-undated',
    ]);
    expect(ids({ filter: { kinds: ['record'], sources: ['HUB-1'] } })).toEqual([
      'r-mon-17',
      'r-sun-8',
    ]);
    expect(ids({ filter: { sources: ['NO-SUCH-ROOM'] } })).toEqual([]);
    expect(ids({ filter: { showReviewed: true } })).toContain('r-sun-23');
  });

  it('pages through what matches, and counts it whole', () => {
    expect(page({ offset: 1, limit: 2 })).toMatchObject({
      entries: [
        { kind: 'conversation', id: 'c-mon-12' },
        { kind: 'record', id: 'r-mon-9' },
      ],
      total: 5,
    });
    expect(page({ offset: 5, limit: 2 }).entries).toEqual([]);
  });

  it('keeps to a window of time, leaving undated items out, and counts matches per local day', () => {
    const monday = Date.parse('2026-11-23T00:00:00-05:00');
    expect(ids({ fromMs: monday, toMs: monday + 24 * HOUR })).toEqual([
      'r-mon-17',
      'c-mon-12',
      'r-mon-9',
    ]);
    expect(page().days).toEqual([
      { key: '2026-11-23', count: 3 },
      { key: '2026-11-22', count: 1 },
    ]);
  });

  it('is good until an active conversation’s end passes, and for ever without one', () => {
    expect(index.validUntilMs).toBe(Number.POSITIVE_INFINITY);
    const ends = NOW + 5 * 60_000;
    const active = indexQueue(
      [],
      [
        conversation('later', NOW, { conversationStatus: 'ACTIVE', endMs: ends + HOUR }),
        conversation('soon', NOW - HOUR, { conversationStatus: 'ACTIVE', endMs: ends }),
        conversation('ended', NOW - 2 * HOUR, { conversationStatus: 'ACTIVE', endMs: NOW - 1 }),
      ],
      (item) => reasonsChangeAt(item, NOW),
    );
    expect(active.validUntilMs).toBe(ends);
    // Until then only the one whose end has passed is in the queue.
    expect(queuePage(active, { offset: 0, limit: 10 }).entries.map((e) => e.id)).toEqual(['ended']);
  });
});

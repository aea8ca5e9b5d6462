import { describe, expect, it } from 'vitest';
import {
  compareItems,
  reasonsChangeAt,
  reviewItem,
  type ReviewFacts,
  type ReviewItem,
} from '../../../src/shared/review/queue';
import {
  heldInQueue,
  indexQueue,
  queuePage,
  withItemsJudgedAnew,
  type QueueQuery,
} from '../../../src/shared/review/queue-index';
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

describe('the queue with some items judged anew', () => {
  const at = (time: string) => Date.parse(`2026-11-23T${time}:00Z`);
  const changesAt = (item: ReviewItem) => reasonsChangeAt(item, NOW);
  /** The queue as a reading without the reviewed ones makes it: the items it holds, in order. */
  const read = (items: ReviewItem[]) =>
    indexQueue(
      items.filter((i) => i.kind === 'record' && heldInQueue(i)).sort(compareItems),
      items.filter((i) => i.kind === 'conversation' && heldInQueue(i)).sort(compareItems),
      changesAt,
    );
  const before = [
    record('r-10', at('10:00')),
    record('r-09-b', at('09:00')),
    record('r-09-a', at('09:00')),
    record('r-08', at('08:00'), { reviewed: { state: 'current', at: NOW } }),
    record('r-07', at('07:00'), { source: { key: 'HUB-2', name: 'Consult Room 2' } }),
    conversation('c-09', at('09:00')),
    conversation('c-undated', null),
  ];

  it('is the queue a whole reading would give: marked ones out, unmarked and moved ones in their place', () => {
    const now = [
      // Marked reviewed, signed off, no longer a conversation the queue shows: out.
      record('r-09-b', at('09:00'), { reviewed: { state: 'current', at: NOW } }),
      record('r-07', at('07:00'), { signedOff: { by: 'Dr Marsh', at: '2026-11-23T15:00:00Z' } }),
      // Unmarked: back between the two of 09:00 and the undated conversation.
      record('r-08', at('08:00')),
      // A conversation that started earlier than the undated one but now has an end coming.
      conversation('c-active', at('06:00'), { conversationStatus: 'ACTIVE', endMs: NOW + HOUR }),
      // Moved: it starts later in the morning now.
      record('r-10', at('05:30')),
    ];
    const asked = [...now, conversation('c-09', at('09:00'))].map(({ kind, id }) => ({ kind, id }));
    const updated = withItemsJudgedAnew(read(before), asked, now, changesAt);
    const fresh = read([...before.filter((i) => !asked.some((a) => a.id === i.id)), ...now]);
    // The same items in the same order, each as it is now, and the same pages of them (a source
    // left empty may stay in the index's list of them: pages leave it out).
    const { ids, startMs, flags, validUntilMs } = fresh;
    expect(updated).toMatchObject({ ids, startMs, flags, validUntilMs });
    for (const query of [
      {},
      { filter: { sources: ['HUB-1'] } },
      { filter: { sources: ['HUB-2'] } },
    ])
      expect(queuePage(updated, { offset: 0, limit: 10, ...query })).toEqual(
        queuePage(fresh, { offset: 0, limit: 10, ...query }),
      );
    expect(queuePage(updated, { offset: 0, limit: 10 }).entries.map((e) => e.id)).toEqual([
      'r-09-a',
      'r-08',
      'r-10',
      'c-undated',
    ]);
    // The active conversation is held, and listed once its end passes: the index is good until then.
    expect(updated.validUntilMs).toBe(NOW + HOUR);
  });

  it('leaves an item of the other kind with the same id where it is', () => {
    const updated = withItemsJudgedAnew(
      read(before),
      [{ kind: 'conversation', id: 'r-10' }],
      [],
      changesAt,
    );
    expect(updated.ids).toEqual(read(before).ids);
  });
});

import { describe, expect, it } from 'vitest';
import {
  compareItems,
  countsTowardQueue,
  reasonWords,
  reviewDays,
  reviewItem,
  type ReviewFacts,
} from '../../../src/shared/review/queue';
import { conversationFacts, recordFacts } from '../../support/review-facts';

const NOW = Date.parse('2026-11-23T15:00:00Z');
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);

const record = (extra: Partial<ReviewFacts> = {}): ReviewFacts =>
  recordFacts({ startMs: NOW - 3_600_000, endMs: NOW - 3_000_000, preview: 'Hello', ...extra });
const conversation = (extra: Partial<ReviewFacts> = {}): ReviewFacts =>
  conversationFacts({ startMs: NOW - 3_600_000, endMs: NOW - 3_000_000, ...extra });

const words = (facts: ReviewFacts) =>
  reviewItem(facts, NOW).reasons.map((reason) => reasonWords(reason, clock));

describe('why an item is in the queue', () => {
  it('a record never reviewed is new, and says when it has no patient', () => {
    expect(words(record())).toEqual(['New']);
    expect(words(record({ patient: null }))).toEqual(['New', 'No patient yet']);
  });

  it('a record reviewed as it is now leaves the queue, one changed since comes back as updated', () => {
    const reviewed = reviewItem(record({ reviewed: { state: 'current', at: NOW } }), NOW);
    expect(reviewed.inQueue).toBe(false);
    const changed = record({
      reviewed: { state: 'changed', at: NOW, transcript: true, note: false },
    });
    expect(reviewItem(changed, NOW).inQueue).toBe(true);
    expect(words(changed)).toEqual(['Updated since you reviewed it: a newer transcript']);
    expect(
      words(record({ reviewed: { state: 'changed', at: NOW, transcript: true, note: true } })),
    ).toEqual(['Updated since you reviewed it: a newer transcript and clinical note']);
    expect(
      words(record({ reviewed: { state: 'changed', at: NOW, transcript: false, note: true } })),
    ).toEqual(['Updated since you reviewed it: a newer clinical note']);
  });

  it('a record whose transcript is still being written is shown, not actionable, not counted', () => {
    const item = reviewItem(record({ transcriptPending: true }), NOW);
    expect(item.reasons).toEqual([{ kind: 'processing' }]);
    expect(item).toMatchObject({ inQueue: true, actionable: false });
    expect(countsTowardQueue(item)).toBe(false);
  });

  it('a failed or excluded conversation says the service’s reason', () => {
    expect(words(conversation())).toEqual([
      'Conversation failed: Audio of 3 minutes did not finish uploading from the device.',
    ]);
    expect(
      words(
        conversation({
          conversationStatus: 'FILTERED',
          statusReason: 'Excluded: too little speech (1 speech minute; at least 2 are needed).',
        }),
      ),
    ).toEqual(['Excluded — too little speech (1 speech minute; at least 2 are needed).']);
  });

  it('an active conversation is in the queue only once its range has ended', () => {
    const ended = conversation({ conversationStatus: 'ACTIVE', endMs: NOW - 60_000 });
    expect(words(ended)).toEqual([
      `Still active, although its time ended at ${clock(NOW - 60_000)} — complete it to process it`,
    ]);
    const ongoing = reviewItem(conversation({ conversationStatus: 'ACTIVE', endMs: NOW + 1 }), NOW);
    expect(ongoing).toMatchObject({ reasons: [], inQueue: false });
    expect(reviewItem(conversation({ conversationStatus: 'UPLOADED' }), NOW).inQueue).toBe(false);
  });

  it('a conversation being processed is shown and not counted', () => {
    for (const status of ['COMPLETED', 'PROCESSING'] as const) {
      const item = reviewItem(conversation({ conversationStatus: status }), NOW);
      expect(words(conversation({ conversationStatus: status }))).toEqual([
        'Being processed by the service',
      ]);
      expect(countsTowardQueue(item)).toBe(false);
    }
  });

  it('a record the clinic signed off leaves the queue', () => {
    const item = reviewItem(
      record({ signedOff: { by: 'Helen Marsh', at: '2026-11-23T14:00:00Z' } }),
      NOW,
    );
    expect(item.inQueue).toBe(false);
    expect(countsTowardQueue(item)).toBe(false);
  });
});

describe('order and days', () => {
  it('lists newest first, undated last, and groups by the clinic-local day', () => {
    const zone = 'America/New_York';
    const at = (iso: string) => Date.parse(iso);
    const items = [
      reviewItem(record({ id: 'mon-9', startMs: at('2026-11-23T09:00:00-05:00') }), NOW),
      reviewItem(record({ id: 'undated', startMs: null }), NOW),
      reviewItem(record({ id: 'sun-23', startMs: at('2026-11-22T23:30:00-05:00') }), NOW),
      reviewItem(record({ id: 'mon-17', startMs: at('2026-11-23T17:00:00-05:00') }), NOW),
    ].sort(compareItems);
    expect(items.map((i) => i.id)).toEqual(['mon-17', 'mon-9', 'sun-23', 'undated']);
    const { days, undated } = reviewDays(items, zone);
    expect(days.map((d) => [d.key, d.items.map((i) => i.id)])).toEqual([
      ['2026-11-23', ['mon-17', 'mon-9']],
      ['2026-11-22', ['sun-23']],
    ]);
    expect(undated.map((i) => i.id)).toEqual(['undated']);
  });
});

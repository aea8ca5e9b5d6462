import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { PatientMatch, RecordReview } from '../../src/shared/ipc';
import { DEFAULT_REVIEW_SETTINGS } from '../../src/shared/ipc/constants';
import { RecordReviewStore } from '../../src/renderer/src/lib/record-review.svelte';
import { FakeEarmark } from './support';

const LABEL_ID = '3b2d6c1e-9a4f-4e57-8c1d-0f6a2b7e9d10';
const VIEWING_MS = 3000;
const pepper = {
  patientId: 'p-pepper',
  name: 'Pepper',
  score: 1.25,
  words: ['peper'],
  mentions: 1,
  sharedWith: 0,
  decidedBy: 'name' as const,
};
const match: PatientMatch = { suggestions: [pepper], first: pepper };

function setUp(markOnOpen: 'after-viewing' | 'by-hand' = 'after-viewing') {
  const fake = new FakeEarmark();
  let review: RecordReview = {
    reviewed: { state: 'never' },
    signedOff: null,
    signOffEnabled: true,
  };
  fake.handle('review.record', () => review);
  fake.handle('review.settings', () => ({
    settings: { ...DEFAULT_REVIEW_SETTINGS, markOnOpen, signOff: true },
    signOffWrites: '',
  }));
  fake.handle('review.suggestions', () => match);
  fake.handle('review.mark', ({ reviewed }) => {
    review = { ...review, reviewed: reviewed ? { state: 'current', at: 1 } : { state: 'never' } };
    return 0;
  });
  return { fake, store: new RecordReviewStore(fake, VIEWING_MS) };
}

afterEach(() => vi.useRealTimers());

describe('RecordReviewStore', () => {
  it('marks the record reviewed once its transcript has been in view a few seconds', async () => {
    const { fake, store } = setUp();
    await store.load({ id: LABEL_ID, patient: null });
    vi.useFakeTimers();
    store.viewed(true);
    await vi.advanceTimersByTimeAsync(VIEWING_MS - 1);
    expect(fake.callsOf('review.mark')).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(fake.callsOf('review.mark')).toEqual([
      { records: [LABEL_ID], conversations: [], reviewed: true },
    ]);
    expect(store.review?.reviewed.state).toBe('current');
  });

  it('counts the time in view from before the record’s review was read', async () => {
    const { fake, store } = setUp();
    vi.useFakeTimers();
    store.viewed(true);
    await store.load({ id: LABEL_ID, patient: null });
    await vi.advanceTimersByTimeAsync(VIEWING_MS);
    expect(fake.callsOf('review.mark')).toHaveLength(1);
  });

  it('does not when it left the view first, nor when the setting says by hand', async () => {
    const { fake, store } = setUp();
    await store.load({ id: LABEL_ID, patient: null });
    vi.useFakeTimers();
    store.viewed(true);
    await vi.advanceTimersByTimeAsync(VIEWING_MS / 2);
    store.viewed(false);
    await vi.advanceTimersByTimeAsync(VIEWING_MS);
    expect(fake.callsOf('review.mark')).toEqual([]);

    const byHand = setUp('by-hand');
    await byHand.store.load({ id: LABEL_ID, patient: null });
    byHand.store.viewed(true);
    await vi.advanceTimersByTimeAsync(2 * VIEWING_MS);
    expect(byHand.fake.callsOf('review.mark')).toEqual([]);
    await byHand.store.mark(true);
    expect(byHand.fake.callsOf('review.mark')).toHaveLength(1);
  });

  it('asks for suggestions only for a record without a patient, and assigns the one picked', async () => {
    const { fake, store } = setUp();
    await store.load({ id: LABEL_ID, patient: { id: 'p-rocky', name: 'Rocky' } });
    expect(fake.callsOf('review.suggestions')).toEqual([]);
    expect(store.match).toBeNull();
    await store.load({ id: LABEL_ID, patient: null });
    expect(store.match).toEqual(match);
    const assigned = { id: LABEL_ID, patient: { id: 'p-pepper', name: 'Pepper' } } as Label;
    fake.handle('labels.assign', () => assigned);
    expect(await store.assign(pepper)).toBe(assigned);
    expect(fake.callsOf('labels.assign')).toEqual([{ labelId: LABEL_ID, patientId: 'p-pepper' }]);
    expect(store.match).toBeNull();
  });

  it('signs off, and says the service’s refusal', async () => {
    const { fake, store } = setUp();
    await store.load({ id: LABEL_ID, patient: null });
    fake.handle('review.signOff', () => ({ by: 'Owen Gallagher', at: '2026-11-23T10:00:00.000Z' }));
    await store.signOff();
    expect(store.review?.signedOff).toEqual({
      by: 'Owen Gallagher',
      at: '2026-11-23T10:00:00.000Z',
    });
    fake.fail('review.signOff', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    await store.signOff();
    expect(store.error?.kind).toBe('offline');
  });
});

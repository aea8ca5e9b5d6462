import { beforeEach, describe, expect, it } from 'vitest';
import type { ReviewItem } from '../../src/shared/ipc';
import { itemKey, reviewItem, type ReviewFacts } from '../../src/shared/review/queue';
import { PAGE_SIZE, ReviewStore } from '../../src/renderer/src/lib/review.svelte';
import { recordFacts } from '../support/review-facts';
import { FakeEarmark, settle } from './support';

const ZONE = 'Europe/London';
const HOUR = 3_600_000;
const MONDAY = Date.UTC(2026, 10, 23, 9);
const NOW = MONDAY + 10 * HOUR;

const facts = (id: string, startMs: number, extra: Partial<ReviewFacts> = {}): ReviewFacts =>
  recordFacts({ id, startMs, endMs: startMs + HOUR / 4, patient: null, ...extra });

/** A main that keeps a queue: review.list pages it, review.mark takes items out and back. */
function fakeMain(all: ReviewItem[]) {
  const fake = new FakeEarmark();
  const reviewed = new Set<string>();
  const queue = () => all.filter((i) => !reviewed.has(i.id));
  fake.handle('review.count', () => queue().length);
  // Who spoke: the first record is named on this computer, the others are not.
  fake.handle('speakers.of', ({ labelIds }) =>
    labelIds.includes('r-named')
      ? [
          {
            labelId: 'r-named',
            speakers: [{ label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' as const }],
          },
        ]
      : [],
  );
  fake.handle('review.list', ({ offset = 0, limit = PAGE_SIZE, fromMs, toMs }) => {
    const matching = queue().filter(
      (i) =>
        (fromMs === undefined || i.startMs! >= fromMs) && (toMs === undefined || i.startMs! < toMs),
    );
    return {
      items: matching.slice(offset, offset + limit),
      total: matching.length,
      count: queue().length,
      days: [],
      sources: [],
    };
  });
  fake.handle('review.mark', ({ records, conversations, reviewed: on }) => {
    for (const id of [...records, ...conversations]) {
      if (on) reviewed.add(id);
      else reviewed.delete(id);
    }
    return queue().length;
  });
  return fake;
}

const keys = (store: ReviewStore) => store.items.map((i) => i.id);

describe('ReviewStore', () => {
  // Monday's three items and Sunday's two, newest first, and a conversation that failed.
  let items: ReviewItem[];
  let fake: FakeEarmark;
  let store: ReviewStore;

  beforeEach(async () => {
    items = [
      reviewItem(facts('mon-3', MONDAY + 3 * HOUR), NOW),
      reviewItem(facts('mon-2', MONDAY + 2 * HOUR), NOW),
      reviewItem(
        facts('mon-conv', MONDAY + HOUR, {
          kind: 'conversation',
          deviceId: 'hub-1',
          recordType: null,
          conversationStatus: 'FAILED',
          statusReason: 'Audio did not upload.',
        }),
        NOW,
      ),
      reviewItem(facts('sun-2', MONDAY - 10 * HOUR), NOW),
      reviewItem(facts('sun-1', MONDAY - 12 * HOUR), NOW),
    ];
    fake = fakeMain(items);
    store = new ReviewStore(fake, ZONE);
    await store.load();
  });

  it('shows the queue by day, newest first, with the count, focused on the first item', () => {
    expect(store.days.map((d) => [d.key, d.items.map((i) => i.id)])).toEqual([
      ['2026-11-23', ['mon-3', 'mon-2', 'mon-conv']],
      ['2026-11-22', ['sun-2', 'sun-1']],
    ]);
    expect(store.count).toBe(5);
    expect(store.focusedItem?.id).toBe('mon-3');
  });

  it('moves the focus with the keys, never past either end', () => {
    store.move(1);
    store.move(1);
    expect(store.focusedItem?.id).toBe('mon-conv');
    store.move(-5);
    expect(store.focusedItem?.id).toBe('mon-3');
    store.toLast();
    store.move(1);
    expect(store.focusedItem?.id).toBe('sun-1');
  });

  it('marks the focused item reviewed, moves on to the next, and undoes it', async () => {
    store.move(1);
    await store.mark(true);
    expect(fake.callsOf('review.mark').at(-1)).toEqual({
      records: ['mon-2'],
      conversations: [],
      reviewed: true,
    });
    expect(keys(store)).toEqual(['mon-3', 'mon-conv', 'sun-2', 'sun-1']);
    expect(store.focusedItem?.id).toBe('mon-conv');
    expect(store.count).toBe(4);

    await store.undo();
    expect(fake.callsOf('review.mark').at(-1)).toMatchObject({
      records: ['mon-2'],
      reviewed: false,
    });
    expect(keys(store)).toEqual(['mon-3', 'mon-2', 'mon-conv', 'sun-2', 'sun-1']);
    expect(store.focusedItem?.id).toBe('mon-2');
    expect(store.count).toBe(5);
  });

  it('selects the focused item’s day, and marks records and conversations together', async () => {
    store.move(1);
    await store.selectDay();
    const monday = fake.callsOf('review.list').at(-1)!;
    expect(monday).toMatchObject({
      fromMs: Date.UTC(2026, 10, 23, 0),
      toMs: Date.UTC(2026, 10, 24, 0),
    });
    expect([...store.selected].sort()).toEqual(
      ['conversation:mon-conv', 'record:mon-2', 'record:mon-3'].sort(),
    );
    await store.mark(true);
    expect(fake.callsOf('review.mark').at(-1)).toEqual({
      records: ['mon-3', 'mon-2'],
      conversations: ['mon-conv'],
      reviewed: true,
    });
    expect(keys(store)).toEqual(['sun-2', 'sun-1']);
    expect(store.selected).toEqual([]);
    expect(store.focusedItem?.id).toBe('sun-2');
  });

  it('comes back from an opened item to the next one, whether or not it was marked meanwhile', async () => {
    const second = store.items[1]!;
    store.opening(second);
    await store.load();
    expect(store.focusedItem?.id).toBe('mon-conv');

    store.opening(store.items[0]!);
    // Reviewed while it was open (after being viewed): gone from the queue.
    await fake.invoke('review.mark', { records: ['mon-3'], conversations: [], reviewed: true });
    await store.load();
    expect(store.focusedItem?.id).toBe('mon-2');
  });

  it('follows the count main pushes, and shows the queue again', async () => {
    items.unshift(reviewItem(facts('mon-4', MONDAY + 4 * HOUR), NOW));
    fake.emit('review.changed', { count: 6 });
    expect(store.count).toBe(6);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await settle();
    expect(keys(store)[0]).toBe('mon-4');
    expect(store.focusedItem?.id).toBe('mon-3');
  });

  it('asks for the next page at the end of what is loaded', async () => {
    const many = Array.from({ length: PAGE_SIZE + 20 }, (_, i) =>
      reviewItem(facts(`r-${i}`, MONDAY - i * 60_000), NOW),
    );
    const paging = new ReviewStore(fakeMain(many), ZONE);
    await paging.load();
    expect(paging.items).toHaveLength(PAGE_SIZE);
    expect(paging.total).toBe(PAGE_SIZE + 20);
    paging.toLast();
    paging.move(1);
    await settle();
    await settle();
    expect(paging.items.map(itemKey)).toEqual(many.map(itemKey));
  });

  it('says why the queue could not be read', async () => {
    fake.fail('review.list', { kind: 'internal', message: 'The cache could not be read.' });
    await store.load();
    expect(store.error?.message).toBe('The cache could not be read.');
  });
});

describe('who spoke, on a record’s row', () => {
  it('is read for the listed records (not conversations) and said where the speakers are named', async () => {
    const fake = fakeMain([
      reviewItem(facts('r-named', MONDAY + HOUR), NOW),
      reviewItem(facts('r-plain', MONDAY + 2 * HOUR), NOW),
      reviewItem(
        facts('c-failed', MONDAY + 3 * HOUR, {
          kind: 'conversation',
          deviceId: 'hub-1',
          recordType: null,
          conversationStatus: 'FAILED',
          statusReason: 'Audio did not finish uploading.',
        }),
        NOW,
      ),
    ]);
    const store = new ReviewStore(fake, ZONE);
    await store.load();
    await settle();
    expect(fake.callsOf('speakers.of')).toEqual([{ labelIds: ['r-named', 'r-plain'] }]);
    expect(store.spoken.of('r-named')).toBe('Dr Marsh (vet)');
    expect(store.spoken.of('r-plain')).toBeNull();
  });
});

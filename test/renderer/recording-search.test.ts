import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SearchHit } from '../../src/shared/search';
import { RecordingSearchStore } from '../../src/renderer/src/lib/recording-search.svelte';
import { FakeEarmark } from './support';

const label = {
  id: 'label-1',
  type: 'HubMic' as const,
  fromTime: '',
  toTime: '',
  patientName: null,
};
const noteHit = (words: string): SearchHit => ({
  kind: 'note',
  label,
  noteType: 'Transcript',
  noteCreatedAt: '2026-11-23T10:00:00.000Z',
  current: true,
  snippet: [{ text: words, hit: true }],
});
const conversationHit: SearchHit = {
  kind: 'conversation',
  conversationId: 'c-1',
  deviceId: 'hub-1',
  status: 'UPLOADED',
  snippet: [{ text: 'vomiting', hit: true }],
};

describe('the search box of Recordings', () => {
  let fake: FakeEarmark;
  let search: RecordingSearchStore;
  beforeEach(() => {
    vi.useFakeTimers();
    fake = new FakeEarmark();
    fake.handle('search', ({ query }) => [noteHit(query), conversationHit]);
    search = new RecordingSearchStore(fake);
    search.attach('account-1');
  });
  afterEach(() => vi.useRealTimers());

  it('searches once typing pauses, with the words trimmed, and keeps the recordings’ hits', async () => {
    search.type('vom');
    search.type('vomiting ');
    await vi.advanceTimersByTimeAsync(150);
    expect(fake.callsOf('search')).toEqual([]);
    await vi.advanceTimersByTimeAsync(100);
    expect(fake.callsOf('search')).toEqual([{ query: 'vomiting', limit: 50 }]);
    expect(search.searched).toBe('vomiting');
    expect(search.hits.map((hit) => hit.kind)).toEqual(['note']);
    expect(search.capped).toBe(false);
  });

  it('drops an answer to words typed over, and empties everything when the box is emptied', async () => {
    let answer: (hits: SearchHit[]) => void = () => {};
    fake.handle('search', () => new Promise((resolve) => (answer = resolve)));
    search.type('bella');
    await vi.advanceTimersByTimeAsync(200);
    search.type('bella vomit');
    answer([noteHit('bella')]);
    await vi.advanceTimersByTimeAsync(0);
    expect([search.searched, search.hits]).toEqual([null, []]);
    search.type('  ');
    expect([search.active, search.searched, search.hits, search.error]).toEqual([
      false,
      null,
      [],
      null,
    ]);
  });

  it('says the hits are capped when the search had more, and why it failed', async () => {
    fake.handle('search', ({ limit }) => Array.from({ length: limit ?? 0 }, () => noteHit('x')));
    search.type('x');
    await vi.advanceTimersByTimeAsync(200);
    expect(search.capped).toBe(true);
    fake.fail('search', { kind: 'internal', message: 'The cache could not be searched.' });
    await search.run();
    expect([search.error?.message, search.hits]).toEqual(['The cache could not be searched.', []]);
  });

  it('starts empty for another account, and keeps its words for the same one', () => {
    search.type('bella');
    search.attach('account-1');
    expect(search.text).toBe('bella');
    search.attach('account-2');
    expect(search.text).toBe('');
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../../src/shared/api';
import type { ConversationSummary } from '../../src/shared/ipc';
import { ConversationsStore, keyOf } from '../../src/renderer/src/lib/conversations.svelte';
import { FakeEarmark, settle, sourced } from './support';

const HOUR = 3_600_000;
const day = Date.UTC(2026, 10, 23);

function conversation(
  id: string,
  status: Conversation['status'],
  extra: Partial<Conversation> = {},
): Conversation {
  return {
    conversationId: id,
    deviceId: 'hub-1',
    status,
    speechMinuteCount: 4,
    transcriptState: status === 'UPLOADED' ? 'READY' : 'PENDING',
    isImportable: status === 'UPLOADED',
    notImportableReason: '',
    transcriptText: status === 'UPLOADED' ? 'Vet: Hello Bella.' : '',
    ...extra,
  };
}
const summary = (
  c: Conversation,
  startMs: number | null,
  labelId: string | null = null,
): ConversationSummary => ({
  conversation: c,
  startMs,
  endMs: startMs === null ? null : startMs + 10 * 60_000,
  labelId,
  patient: null,
  createdHere: false,
});

function serveList(
  target: FakeEarmark,
  pages: ConversationSummary[][],
  source: 'service' | 'cache' = 'service',
) {
  target.handle('conversations.list', ({ pageToken }) => {
    const index = pageToken ? Number(pageToken) : 0;
    const next = index + 1 < pages.length ? String(index + 1) : undefined;
    return sourced(
      {
        items: pages[index] ?? [],
        hasMore: next !== undefined,
        ...(next ? { nextPageToken: next } : {}),
      },
      source,
    );
  });
}

describe('the Conversations store', () => {
  let fake: FakeEarmark;
  let store: ConversationsStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    fake.handle('devices.list', () =>
      sourced([{ value: 'hub-1', displayName: 'Consult Room 1', serial: 'S1' }]),
    );
    store = new ConversationsStore(fake);
  });

  it('groups the rows by clinic-local day, newest first, and sets apart those without a time', async () => {
    serveList(fake, [
      [
        summary(conversation('a', 'UPLOADED'), day + 9 * HOUR),
        summary(conversation('b', 'ACTIVE'), day + 30 * HOUR),
        summary(conversation('c', 'FILTERED'), null),
        summary(conversation('d', 'UPLOADED'), day + 11 * HOUR),
      ],
    ]);
    store.attach('account-1');
    await settle();
    const { days, undated } = store.groups;
    expect(days.map((d) => [d.key, d.items.map((s) => s.conversation.conversationId)])).toEqual([
      ['2026-11-24', ['b']],
      ['2026-11-23', ['d', 'a']],
    ]);
    expect(undated.map((s) => s.conversation.conversationId)).toEqual(['c']);
  });

  it('asks main for the clinic-local day it filters by, and drops answers to older filters', async () => {
    serveList(fake, [[summary(conversation('a', 'UPLOADED'), day + HOUR)]]);
    store.attach('account-1');
    await settle();
    store.day = '2026-11-23';
    store.restart();
    store.deviceId = 'hub-1';
    store.restart();
    await settle();
    const asked = fake.callsOf('conversations.list').at(-1)!;
    expect(asked).toMatchObject({ deviceId: 'hub-1', startMs: day, endMs: day + 24 * HOUR });
    expect(store.items.map((s) => s.conversation.conversationId)).toEqual(['a']);
    expect(store.filtered).toBe(true);
    store.clearFilters();
    await settle();
    expect(fake.callsOf('conversations.list').at(-1)).not.toHaveProperty('startMs');
  });

  it('pages on; offline it says the rows are the cache’s, and when they were read', async () => {
    serveList(
      fake,
      [
        [summary(conversation('a', 'UPLOADED'), day)],
        [summary(conversation('b', 'UPLOADED'), day + HOUR)],
      ],
      'cache',
    );
    store.attach('account-1');
    await settle();
    expect(store.hasMore).toBe(true);
    await store.loadPage();
    expect(store.items).toHaveLength(2);
    expect(store.hasMore).toBe(false);
    expect(store.source).toBe('cache');
    expect(store.fetchedAt).toBe('2026-11-24T08:00:00.000Z');
  });

  it('completes a conversation and follows it through main until it is final', async () => {
    const active = conversation('a', 'ACTIVE');
    serveList(fake, [[summary(active, day)]]);
    store.attach('account-1');
    await settle();
    fake.handle('hub.complete', () => ({ ...active, status: 'COMPLETED' }));
    fake.handle('conversations.follow', (ref) =>
      sourced(conversation(ref.conversationId, 'PROCESSING')),
    );
    await store.complete(active);
    const key = keyOf(active);
    expect(store.follows[key]).toEqual({ state: 'following' });
    expect(store.items[0]!.conversation.status).toBe('PROCESSING');
    // Main pushes the final state: the row changes and the follow ends.
    fake.emit('conversation.changed', {
      deviceId: 'hub-1',
      conversation: conversation('a', 'UPLOADED', { labelId: 'label-a' }),
    });
    expect(store.items[0]!.conversation.status).toBe('UPLOADED');
    expect(store.items[0]!.labelId).toBe('label-a');
    expect(store.follows[key]).toBeUndefined();
  });

  it('says why completing failed, in the row’s follow', async () => {
    const active = conversation('a', 'ACTIVE');
    serveList(fake, [[summary(active, day)]]);
    store.attach('account-1');
    await settle();
    fake.fail('hub.complete', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    await store.complete(active);
    expect(store.follows[keyOf(active)]).toMatchObject({
      state: 'failed',
      error: { kind: 'offline' },
    });
  });

  it('finds the record: the one the row names, else asked of main once', async () => {
    serveList(fake, [
      [
        summary(conversation('a', 'UPLOADED'), day, 'label-a'),
        summary(conversation('b', 'UPLOADED'), day),
      ],
    ]);
    store.attach('account-1');
    await settle();
    fake.handle('conversations.record', () => sourced(null));
    await store.findRecord(store.items[0]!);
    expect(store.records[keyOf(store.items[0]!.conversation)]).toEqual({
      state: 'found',
      labelId: 'label-a',
    });
    expect(fake.callsOf('conversations.record')).toHaveLength(0);
    await store.findRecord(store.items[1]!);
    expect(store.records[keyOf(store.items[1]!.conversation)]).toEqual({ state: 'none' });
    expect(fake.callsOf('conversations.record')).toHaveLength(1);
  });

  it('moves through the rows by keyboard in the order shown, opening each, and asks for more at the end', async () => {
    serveList(fake, [
      [
        summary(conversation('a', 'UPLOADED'), day + 9 * HOUR),
        summary(conversation('b', 'UPLOADED'), day + 30 * HOUR),
        summary(conversation('c', 'FILTERED'), null),
      ],
      [summary(conversation('d', 'UPLOADED'), day + HOUR)],
    ]);
    store.attach('account-1');
    await settle();
    const key = (name: string) => keyOf(conversation(name, 'UPLOADED'));
    // Newest day first, then the rows without a time; the first row takes the focus.
    expect(store.ordered.map((s) => s.conversation.conversationId)).toEqual(['b', 'a', 'c']);
    expect(store.tabStop).toBe(key('b'));
    expect(store.key('ArrowDown')).toEqual({ focus: key('a') });
    expect([store.selectedKey, store.activeKey]).toEqual([key('a'), key('a')]);
    expect(store.key('Escape')).toEqual({ focus: null });
    expect([store.selectedKey, store.activeKey]).toEqual([null, key('a')]);
    expect(store.key('Escape')).toBeNull(); // nothing open: not the list's key
    expect(store.key('Enter')).toEqual({ focus: key('a') });
    expect(store.key('ArrowUp')).toEqual({ focus: key('b') });
    expect(store.key('ArrowUp')).toEqual({ focus: key('b') }); // stays at the top
    expect(store.key('x')).toBeNull();
    expect(fake.callsOf('conversations.list')).toHaveLength(1);
    expect(store.key('End')).toEqual({ focus: key('c') });
    await settle();
    expect(fake.callsOf('conversations.list')).toHaveLength(2);
    expect(store.ordered.map((s) => s.conversation.conversationId)).toEqual(['b', 'a', 'd', 'c']);
    expect(store.key('Home')).toEqual({ focus: key('b') });
  });
});

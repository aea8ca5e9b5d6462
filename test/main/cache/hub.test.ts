import Database from 'better-sqlite3-multiple-ciphers';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, type Cache } from '../../../src/main/cache';
import type { Conversation, TimelineMinute } from '../../../src/shared/api';
import type { CreatedRange } from '../../../src/shared/ipc';
import { conversation, MINUTE, T0, useTempDir } from './helpers';

const tempDir = useTempDir('cache-hub');
let cache: Cache;

beforeAll(async () => {
  cache = await openCache({ file: join(tempDir(), 'c.sqlite'), thread: 'main' });
});
afterAll(() => cache.close());

const minute = (index: number, speech: boolean): TimelineMinute => ({
  minuteStartMs: T0 + index * MINUTE,
  vadIsSilent: !speech,
  vadSpeechDurationMs: speech ? 20_000 : 0,
  transcriptText: speech ? `minute ${index}` : '',
  diarizedTranscriptText: speech ? `Speaker 1: minute ${index}` : '',
});

describe('identity and devices', () => {
  it('are kept as the service answered them', async () => {
    expect(await cache.read.identity()).toBeNull();
    const identity = {
      userId: 'u1',
      email: 'vet@example.com',
      authMethod: 'ApiKey' as const,
      organizationId: 'org',
      organizationName: 'Riverside',
      entitlements: null,
      apiKey: null,
    };
    await cache.write.storeIdentity(identity, T0);
    expect(await cache.read.identity()).toEqual(identity);
    const devices = [
      { value: 'room-2', displayName: 'Consult Room 2', serial: 'S2' },
      { value: 'room-1', displayName: 'Consult Room 1', serial: 'S1' },
    ];
    await cache.write.storeDevices(devices, T0);
    await cache.write.storeDevices(devices.slice(1), T0 + 1);
    expect(await cache.read.devices()).toEqual(devices.slice(1));
  });
});

describe('conversations', () => {
  it('a walk that finds new ones at the top writes only the rows it lists, however many are cached', async () => {
    const file = join(tempDir(), 'conv-rows.sqlite');
    const local = await openCache({ file, thread: 'main' });
    const older = Array.from({ length: 50 }, (_, i) => conversation(`old-${50 - i}`));
    await local.write.storeConversationPage({ items: older, walk: 1, startPosition: 0, seenAt: 1 });
    await local.close();
    const rowsOf = () => {
      const db = new Database(file, { readonly: true });
      try {
        return db
          .prepare("SELECT id, list_position AS at FROM conversations WHERE id LIKE 'old-%'")
          .all();
      } finally {
        db.close();
      }
    };
    const before = rowsOf();
    const again = await openCache({ file, thread: 'main' });
    await again.write.storeConversationPage({
      items: [conversation('new-2'), conversation('new-1')],
      walk: Date.now(),
      startPosition: 0,
      seenAt: 2,
    });
    const listed = (await again.read.conversations({ limit: 100 })).items;
    await again.close();
    // Each older row stays as it was (each page used to move every one of them down)…
    expect(rowsOf()).toEqual(before);
    // …and the list still reads newest first.
    expect(listed.map((c) => c.conversationId)).toEqual([
      'new-2',
      'new-1',
      ...older.map((c) => c.conversationId),
    ]);
  });

  it('keep the service’s order (newest first) across walks that see new ones at the top', async () => {
    const local = await openCache({ file: join(tempDir(), 'conv.sqlite'), thread: 'main' });
    const ids = (list: { items: Conversation[] }) => list.items.map((c) => c.conversationId);
    // First walk: c5 … c1, two pages.
    await local.write.storeConversationPage({
      items: [conversation('c5'), conversation('c4'), conversation('c3')],
      walk: 1,
      startPosition: 0,
      seenAt: 1,
    });
    await local.write.storeConversationPage({
      items: [conversation('c2'), conversation('c1')],
      walk: 1,
      startPosition: 3,
      seenAt: 1,
    });
    expect(ids(await local.read.conversations())).toEqual(['c5', 'c4', 'c3', 'c2', 'c1']);
    // Second walk stops after its first page: c7 and c6 are new, c5 changed.
    const result = await local.write.storeConversationPage({
      items: [conversation('c7', 'ACTIVE'), conversation('c6'), conversation('c5', 'FAILED')],
      walk: 2,
      startPosition: 0,
      seenAt: 2,
    });
    expect(result).toEqual({ added: 2, changed: 1 });
    expect(ids(await local.read.conversations())).toEqual('c7 c6 c5 c4 c3 c2 c1'.split(' '));
    expect(await local.read.openConversationsNotListedIn(2)).toBe(0);
    expect(await local.read.openConversationsNotListedIn(3)).toBe(1); // c7 is ACTIVE
    // One fetched by itself (just created) goes to the top.
    await local.write.storeConversation(conversation('c8', 'ACTIVE'), 3);
    expect(ids(await local.read.conversations({ limit: 2 }))).toEqual(['c8', 'c7']);
    expect(await local.read.conversations({ status: 'ACTIVE' })).toMatchObject({ total: 2 });
    expect(await local.read.conversations({ deviceId: 'room-9' })).toEqual({
      items: [],
      total: 0,
      fetchedAt: null,
    });
    expect(await local.read.conversation('room-1', 'c5')).toMatchObject({ status: 'FAILED' });
    expect(await local.read.conversation('room-2', 'c5')).toBeNull();
    // A full walk that lists c8 … c2 only: c1 is gone from the service.
    await local.write.storeConversationPage({
      items: ['c8', 'c7', 'c6', 'c5', 'c4', 'c3', 'c2'].map((id) => conversation(id)),
      walk: 4,
      startPosition: 0,
      seenAt: 4,
    });
    expect(await local.write.sweepConversations(4)).toBe(1);
    expect(ids(await local.read.conversations())).toEqual('c8 c7 c6 c5 c4 c3 c2'.split(' '));
    await local.close();
  });
});

describe('timeline minutes', () => {
  it('are stored per device and minute, and the cache knows which windows it fetched', async () => {
    const all = Array.from({ length: 10 }, (_, i) => minute(i, i % 3 !== 0));
    const recorded = all.filter((_, i) => i !== 4); // minute 4 had no data
    await cache.write.storeTimeline({
      deviceId: 'room-1',
      startMs: T0,
      endMs: T0 + 10 * MINUTE,
      minutes: recorded,
      fetchedAt: T0 + 60 * MINUTE,
    });
    const range = await cache.read.timeline('room-1', T0, T0 + 10 * MINUTE);
    expect(range).toEqual({
      minutes: recorded,
      coveredMs: 10 * MINUTE,
      complete: true,
      fetchedAt: T0 + 60 * MINUTE,
    });
    const wider = await cache.read.timeline('room-1', T0 - 5 * MINUTE, T0 + 10 * MINUTE);
    expect(wider).toMatchObject({ coveredMs: 10 * MINUTE, complete: false });
    expect((await cache.read.timeline('room-2', T0, T0 + 10 * MINUTE)).minutes).toEqual([]);
    // Refetching the middle replaces its minutes and its window; the old edges stay.
    await cache.write.storeTimeline({
      deviceId: 'room-1',
      startMs: T0 + 3 * MINUTE,
      endMs: T0 + 6 * MINUTE,
      minutes: [minute(4, true)],
      fetchedAt: T0 + 90 * MINUTE,
    });
    const after = await cache.read.timeline('room-1', T0, T0 + 10 * MINUTE);
    expect(after.minutes.map((m) => m.minuteStartMs - T0)).toEqual(
      [0, 1, 2, 4, 6, 7, 8, 9].map((i) => i * MINUTE),
    );
    expect(after).toMatchObject({
      complete: true,
      coveredMs: 10 * MINUTE,
      fetchedAt: T0 + 60 * MINUTE,
    });
    expect(await cache.read.timeline('room-1', T0 + 3 * MINUTE, T0 + 6 * MINUTE)).toMatchObject({
      fetchedAt: T0 + 90 * MINUTE,
    });
  });
});

describe('created ranges', () => {
  const range = (id: string, startMinute: number, deviceId = 'room-1'): CreatedRange => ({
    conversationId: id,
    deviceId,
    startMs: T0 + startMinute * MINUTE,
    endMs: T0 + (startMinute + 10) * MINUTE,
    createdAt: new Date(T0).toISOString(),
  });

  it('answer the ranges on a device that intersect a window, oldest first', async () => {
    await cache.write.addCreatedRange(range('r2', 30));
    await cache.write.addCreatedRange(range('r1', 0));
    await cache.write.addCreatedRange(range('r3', 0, 'room-2'));
    expect(
      (await cache.read.createdRangesWithin('room-1', T0, T0 + 60 * MINUTE)).map(
        (r) => r.conversationId,
      ),
    ).toEqual(['r1', 'r2']);
    expect(
      await cache.read.createdRangesWithin('room-1', T0 + 10 * MINUTE, T0 + 30 * MINUTE),
    ).toEqual([]);
    expect(await cache.read.createdRange('r2')).toEqual(range('r2', 30));
    expect(await cache.read.createdRange('nope')).toBeNull();
  });
});

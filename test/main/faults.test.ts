import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { MINUTE_MS, type Label } from '../../src/shared/api';
import type { IpcEvents, Sourced, SyncStatus } from '../../src/shared/ipc';
import { SessionSecretStore } from '../../src/main/accounts/secret-store';
import { cacheFileOf } from '../../src/main/cache';
import { READS, type CacheStats } from '../../src/main/cache/queries';
import type { Core } from '../../src/main/core';
import { connectService } from '../../src/main/service-client/connect';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../service/harness';
import { startFaultProxy, type FaultProxy, type FaultTarget } from '../support/fault-proxy';
import { ipcCalls } from '../support/ipc-calls';
import { accountKeyIn, openWithKey } from '../support/sealed-files';
import { seedLabel, serviceAudio } from './audio/fixtures';
import { DAY_MS, HOUR_MS, seedLabels } from './sync/helpers';
import { testCore } from '../support/core';

/**
 * The app (createCore and its RPC, as the renderer calls it) with its account behind a
 * fault-injecting proxy in front of a real reference service. The API client keeps its retry
 * policy (3 retries, backoff from 300 ms doubling, Retry-After up to a minute); only its waits are
 * recorded instead of slept, its jitter fixed at one half, and its time-out shortened to 2 s.
 */

let svc: RunningService;
let proxy: FaultProxy;
let dataDir: string;
let core: Core;
let accountId: string;
const keychain = new SessionSecretStore();
/** Every wait the API client asked for between attempts, in order. */
const sleeps: number[] = [];
const events: { [E in 'connection.changed' | 'sync.changed']: IpcEvents[E][] } = {
  'connection.changed': [],
  'sync.changed': [],
};
const { call, refused } = ipcCalls(() => core);

const organizationId = () => svc.credentials.primary.organizationId;
const device = DEMO_DEVICES[0].id;
const BASE = baseMinute(2);
let nextRangeMinute = 0;
/** A fresh two-minute range of recorded minutes, so each create can succeed. */
const freshRange = () => {
  const startMs = BASE + nextRangeMinute * MINUTE_MS;
  nextRangeMinute += 2;
  return { deviceId: device, startMs, endMs: startMs + 2 * MINUTE_MS };
};
/** A label's own answer (labels.get, the sync's notes), not its audio or a listing. */
const LABEL_PATH = /^\/labels\/[0-9a-f-]{36}$/;
let rabbitLabelId: string;
let audioLabelId: string;

const MESSAGES = {
  offline: 'The clinic service cannot be reached. Check the network connection.',
  timeout: 'The clinic service took too long to answer. Try again.',
  server_error: 'The clinic service ran into a problem. Try again later.',
  rate_limited: 'The clinic service is busy. Try again in a moment.',
  invalid_response: 'The clinic service sent an answer Earmark cannot read.',
};

const DEVICES: FaultTarget = { method: 'GET', path: '/devices' };
const CONVERSATIONS: FaultTarget = { method: 'GET', path: '/hub/conversations' };
const CREATE: FaultTarget = { method: 'POST', path: '/hub/conversations/create' };

/** What the cache holds, counted in its file by the cache's own query (read-only). */
function cacheStats(): CacheStats {
  const db = openWithKey(cacheFileOf(dataDir, accountId), accountKeyIn(keychain, accountId), {
    readonly: true,
    fileMustExist: true,
  });
  try {
    return READS.stats(db);
  } finally {
    db.close();
  }
}
/** The cache's counts and what the renderer reads from it (search works from the cache only). */
async function cachedData() {
  const hits = [
    ...(await call('search', { query: 'stasis' })),
    ...(await call('search', { query: 'Pepper' })),
  ];
  return {
    stats: cacheStats(),
    hits: hits.map((hit) => [
      hit.kind,
      hit.kind === 'conversation' ? hit.conversationId : hit.label.id,
    ]),
  };
}
const connectionState = async () => (await call('app.connection', {})).state;

/** Runs a sync through the RPC and answers its status once that run has ended. */
async function runSync(): Promise<SyncStatus> {
  const from = events['sync.changed'].length;
  await call('sync.run', {});
  return vi.waitUntil(
    () => {
      const later = events['sync.changed'].slice(from);
      const started = later.findIndex((status) => status.state === 'running');
      return started === -1 ? undefined : later.slice(started).find((s) => s.state !== 'running');
    },
    { timeout: 60_000, interval: 20 },
  );
}

beforeAll(async () => {
  svc = await startService();
  proxy = await startFaultProxy(svc.baseUrl);
  const org = organizationId();
  svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 120 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
  seedLabels(svc, 60, { newestMs: Date.now() - 4 * DAY_MS, spanMs: 10 * DAY_MS });
  rabbitLabelId = seedLabel(svc.service, org, {
    patient: 'Bramble',
    minutes: 1,
    audio: 'none',
    fromMs: Date.now() - 5 * HOUR_MS,
    notes: [['Transcript', 'Vet: The rabbit has gut stasis; start fluids.', 1]],
  });
  audioLabelId = seedLabel(svc.service, org, {
    patient: 'Pepper',
    minutes: 1,
    fromMs: Date.now() - 6 * HOUR_MS,
  });

  dataDir = mkdtempSync(join(tmpdir(), 'earmark-faults-'));
  core = testCore({
    dataDir,
    keychain,
    connect: (baseUrl, apiKey) =>
      connectService(baseUrl, apiKey, {
        timeoutMs: 2000,
        random: () => 0.5,
        sleep: async (ms) => {
          sleeps.push(ms);
        },
      }),
  });
  core.on('connection.changed', (status) => events['connection.changed'].push(status));
  core.on('sync.changed', (status) => events['sync.changed'].push(status));
  accountId = (
    await call('accounts.add', { baseUrl: proxy.baseUrl, apiKey: svc.credentials.primary.apiKey })
  ).id;
  // The first answer starts the background sync; the timeline and a record are cached on the way.
  await call('devices.list', {});
  await call('hub.minutes', { deviceId: device, startMs: BASE, endMs: BASE + 2 * HOUR_MS });
  await call('labels.get', { labelId: rabbitLabelId });
  await vi.waitUntil(
    async () => {
      const status = await call('sync.status', {});
      return status.state === 'idle' && status.lastSyncAt !== null;
    },
    { timeout: 60_000, interval: 50 },
  );
  expect(cacheStats()).toMatchObject({ labels: 62, notes: 61, labelsNeedingNotes: 0 });
  expect((await cachedData()).hits.length).toBeGreaterThanOrEqual(2);
}, 90_000);
afterAll(async () => {
  await core?.close();
  await proxy?.close();
  await svc?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

beforeEach(() => {
  proxy.reset();
  sleeps.length = 0;
  events['connection.changed'].length = 0;
});

describe('faults on single calls: retried as specified, told in plain words, nothing cached lost', () => {
  let before: Awaited<ReturnType<typeof cachedData>>;
  beforeEach(async () => {
    before = await cachedData();
    expect(await connectionState()).toBe('online');
  });
  afterEach(async () => {
    // Nothing cached is lost: every count is at least what it was (a create adds a range), and
    // what the renderer reads from the cache is the same.
    const after = await cachedData();
    for (const [name, count] of Object.entries(before.stats))
      expect(after.stats[name as keyof CacheStats], name).toBeGreaterThanOrEqual(count);
    expect(after.hits).toEqual(before.hits);
  });

  it('retries a read after 500s (three retries, backoff doubling from 300 ms) and succeeds', async () => {
    proxy.inject({ kind: 'status', status: 500 }, 3, DEVICES);
    const devices = await call('devices.list', {});
    expect(devices.value.map((d) => d.value)).toContain(device);
    expect(devices.source).toBe('service');
    expect(proxy.seen(DEVICES)).toHaveLength(4);
    expect(sleeps).toEqual([150, 300, 600]);
    expect(events['connection.changed']).toEqual([]);
  });

  it('tells the renderer server_error once the retries are spent; the next call succeeds', async () => {
    proxy.inject({ kind: 'status', status: 500 }, 4, CONVERSATIONS);
    expect(await refused('conversations.list', {})).toEqual({
      kind: 'server_error',
      message: MESSAGES.server_error,
      status: 500,
      detail: 'The fault proxy answered 500.',
    });
    expect(proxy.seen(CONVERSATIONS)).toHaveLength(4);
    // The service answered: it is reachable, so nothing is disabled as offline.
    expect(await connectionState()).toBe('online');
    expect((await call('conversations.list', {})).value.items).toBeInstanceOf(Array);
    expect(proxy.seen(CONVERSATIONS)).toHaveLength(5);
  });

  it('never retries a POST after a 500; trying again once it clears creates the conversation', async () => {
    const range = freshRange();
    proxy.inject({ kind: 'status', status: 500 }, 1, CREATE);
    expect(await refused('hub.create', range)).toMatchObject({
      kind: 'server_error',
      message: MESSAGES.server_error,
    });
    expect(proxy.seen(CREATE)).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(await call('hub.createdRanges', range)).toEqual([]);
    const created = await call('hub.create', range);
    expect(created.success).toBe(true);
    expect((await call('hub.createdRanges', range)).map((r) => r.conversationId)).toEqual([
      created.conversation!.conversationId,
    ]);
    // Its time, for the Conversations screen; only under the device it was created on.
    const { conversationId } = created.conversation!;
    expect(
      await call('conversations.createdRange', { deviceId: range.deviceId, conversationId }),
    ).toMatchObject({ startMs: range.startMs, endMs: range.endMs });
    expect(
      await call('conversations.createdRange', { deviceId: 'hub-elsewhere', conversationId }),
    ).toBeNull();
  });

  it('waits out a 429’s Retry-After, for a read and for a POST, then succeeds', async () => {
    proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '2' } }, 1, DEVICES);
    expect((await call('devices.list', {})).value.length).toBe(DEMO_DEVICES.length);
    expect(proxy.seen(DEVICES)).toHaveLength(2);

    // The service refused the POST before doing anything: sending it again is safe.
    const range = freshRange();
    proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' } }, 1, CREATE);
    const created = await call('hub.create', range);
    expect(created.success).toBe(true);
    expect(proxy.seen(CREATE)).toHaveLength(2);
    expect(sleeps).toEqual([2000, 1000]);
    expect(await call('hub.createdRanges', range)).toHaveLength(1);
  });

  it('backs off on a 429 without Retry-After; once the retries are spent the service is “busy”', async () => {
    proxy.inject({ kind: 'status', status: 429 }, 4, DEVICES);
    expect(await refused('devices.list', {})).toMatchObject({
      kind: 'rate_limited',
      status: 429,
      message: MESSAGES.rate_limited,
    });
    expect(proxy.seen(DEVICES)).toHaveLength(4);
    expect(sleeps).toEqual([150, 300, 600]);
    expect(await connectionState()).toBe('online');
    expect((await call('devices.list', {})).value).toHaveLength(DEMO_DEVICES.length);
  });

  it('does not wait out a Retry-After longer than a minute: one request, and the wait in the message', async () => {
    proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '600' } }, 1, DEVICES);
    expect(await refused('devices.list', {})).toMatchObject({
      kind: 'rate_limited',
      retryAfterMs: 600_000,
      message: 'The clinic service is busy. Try again in 10 minutes.',
    });
    expect(proxy.seen(DEVICES)).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('does not retry an answer that is not JSON, or not of the expected shape', async () => {
    proxy.inject({ kind: 'malformed-json' }, 1, DEVICES);
    const malformed = await refused('devices.list', {});
    expect(malformed).toMatchObject({
      kind: 'invalid_response',
      message: MESSAGES.invalid_response,
    });
    expect(malformed.detail).toMatch(/not JSON/);
    proxy.inject({ kind: 'rewrite', transform: () => ({ devices: 'none' }) }, 1, DEVICES);
    expect(await refused('devices.list', {})).toMatchObject({ kind: 'invalid_response' });
    expect(proxy.seen(DEVICES)).toHaveLength(2);
    expect(sleeps).toEqual([]);
    expect((await call('devices.list', {})).value).toHaveLength(DEMO_DEVICES.length);
  });

  it('waits for a slow answer within the time-out', async () => {
    proxy.inject({ kind: 'delay', ms: 500 }, 1, DEVICES);
    expect((await call('devices.list', {})).value).toHaveLength(DEMO_DEVICES.length);
    expect(proxy.seen(DEVICES)).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('retries an answer slower than the time-out; when all are, the app is offline until one comes', async () => {
    proxy.inject({ kind: 'delay', ms: 60_000 }, 1, DEVICES);
    expect((await call('devices.list', {})).value).toHaveLength(DEMO_DEVICES.length);
    expect(proxy.seen(DEVICES)).toHaveLength(2);

    proxy.inject({ kind: 'delay', ms: 60_000 }, 4, CONVERSATIONS);
    expect(await refused('conversations.list', {})).toMatchObject({
      kind: 'timeout',
      message: MESSAGES.timeout,
    });
    expect(proxy.seen(CONVERSATIONS)).toHaveLength(4);
    expect(await connectionState()).toBe('offline');
    await call('conversations.list', {});
    expect(events['connection.changed'].map((s) => [s.state, s.lastError?.kind ?? null])).toEqual([
      ['offline', 'timeout'],
      ['online', null],
    ]);
  }, 30_000);

  it('retries a read whose connection dropped mid-body; when it keeps dropping, answers from the cache', async () => {
    const path = `/labels/${rabbitLabelId}`;
    const fresh = await call('labels.get', { labelId: rabbitLabelId });
    proxy.reset();
    proxy.inject({ kind: 'drop-mid-body' }, 1, { path });
    expect(await call('labels.get', { labelId: rabbitLabelId })).toMatchObject({
      value: fresh.value,
      source: 'service',
    });
    expect(proxy.seen({ path })).toHaveLength(2);

    proxy.inject({ kind: 'drop-mid-body' }, 4, { path });
    const cached: Sourced<Label> = await call('labels.get', { labelId: rabbitLabelId });
    expect(cached).toMatchObject({ value: fresh.value, source: 'cache' });
    expect(Date.parse(cached.fetchedAt!)).toBeLessThanOrEqual(Date.now());
    expect(proxy.seen({ path })).toHaveLength(6);
    expect(await call('app.connection', {})).toMatchObject({
      state: 'offline',
      lastError: { kind: 'offline', message: MESSAGES.offline },
    });
    await call('labels.get', { labelId: rabbitLabelId });
    expect(await connectionState()).toBe('online');
  });

  it('never retries a POST whose answer was cut off: the service did create it, so trying again says so', async () => {
    const range = freshRange();
    proxy.inject({ kind: 'drop-mid-body' }, 1, CREATE);
    expect(await refused('hub.create', range)).toMatchObject({
      kind: 'offline',
      message: MESSAGES.offline,
    });
    expect(proxy.seen(CREATE)).toHaveLength(1);
    expect(await connectionState()).toBe('offline');
    const again = await call('hub.create', range);
    expect(again.success).toBe(false);
    expect(again.message).toMatch(/overlaps another conversation/);
    expect(await connectionState()).toBe('online');
  });

  it('retries a read after a reset, never a POST; the refused POST goes through once it clears', async () => {
    proxy.inject({ kind: 'reset' }, 1, DEVICES);
    expect((await call('devices.list', {})).value).toHaveLength(DEMO_DEVICES.length);
    expect(proxy.seen(DEVICES)).toHaveLength(2);

    const range = freshRange();
    proxy.inject({ kind: 'reset' }, 1, CREATE);
    expect(await refused('hub.create', range)).toMatchObject({ kind: 'offline' });
    expect(proxy.seen(CREATE)).toHaveLength(1);
    expect((await call('hub.create', range)).success).toBe(true);
  });

  it('retries a DELETE after a 500 (it cannot do anything twice), never a PATCH', async () => {
    const webhook = await call('admin.createWebhook', {
      url: 'http://127.0.0.1:9/earmark-hook',
      description: 'Fault test',
    });
    proxy.inject({ kind: 'status', status: 500 }, 1, { method: 'DELETE' });
    const left = await call('admin.deleteWebhook', { webhookId: webhook.id });
    expect(left.map((w) => w.id)).not.toContain(webhook.id);
    expect(proxy.seen({ method: 'DELETE' })).toHaveLength(2);

    const board = await call('followUps.createBoard', { name: 'Fault test' });
    const [task] = await call('followUps.addTasks', {
      boardId: board.id,
      items: [{ title: 'Call the owner' }],
    });
    const patch = { taskId: task!.id, patch: { statusId: 'completed' } };
    proxy.inject({ kind: 'status', status: 503 }, 1, { method: 'PATCH' });
    expect(await refused('followUps.patchTask', patch)).toMatchObject({
      kind: 'server_error',
      status: 503,
      message: MESSAGES.server_error,
    });
    expect(proxy.seen({ method: 'PATCH' })).toHaveLength(1);
    expect((await call('followUps.patchTask', patch)).statusId).toBe('completed');
  });

  it('answers reads from the cache while resets persist, and comes back online with any answer', async () => {
    const { value: devices } = await call('devices.list', {});
    proxy.inject({ kind: 'reset' }, 4, DEVICES);
    expect(await call('devices.list', {})).toMatchObject({ value: devices, source: 'cache' });
    expect(await connectionState()).toBe('offline');
    // An error answer still proves the service is reachable: nothing should stay disabled.
    proxy.inject({ kind: 'status', status: 503 }, 4, DEVICES);
    expect(await refused('devices.list', {})).toMatchObject({ kind: 'server_error', status: 503 });
    expect(events['connection.changed'].map((s) => s.state)).toEqual(['offline', 'online']);
    // So does an answer Earmark cannot read.
    proxy.inject({ kind: 'reset' }, 4, DEVICES);
    proxy.inject({ kind: 'malformed-json' }, 1, DEVICES);
    expect(await call('devices.list', {})).toMatchObject({ value: devices, source: 'cache' });
    expect(await refused('devices.list', {})).toMatchObject({ kind: 'invalid_response' });
    expect(events['connection.changed'].map((s) => s.state)).toEqual([
      'offline',
      'online',
      'offline',
      'online',
    ]);
    expect(await call('devices.list', {})).toMatchObject({ value: devices, source: 'service' });
  });
});

describe('audio under faults', () => {
  it('resumes a download dropped mid-body with Range from where it stopped', async () => {
    const audioPath = `/labels/${audioLabelId}/audio`;
    const whole = await serviceAudio(svc, audioLabelId);
    const etag = (
      await svc.call(audioPath, { method: 'HEAD', key: svc.credentials.primary.apiKey })
    ).headers.get('etag');
    proxy.inject({ kind: 'drop-mid-body' }, 1, { path: audioPath });
    const prepared = await call('audio.prepare', { labelId: audioLabelId });
    expect(prepared.bytes).toBe(whole.length);
    // It plays from its first bytes and goes on filling: until the file is whole.
    await vi.waitFor(
      async () =>
        expect((await call('audio.prepare', { labelId: audioLabelId })).complete).toBe(true),
      { timeout: 15_000, interval: 100 },
    );

    const [first, resumed, ...more] = proxy.seen({ path: audioPath });
    expect(more).toEqual([]);
    expect(first!.headers.range).toBe('bytes=0-');
    const asked = /^bytes=(\d+)-(\d+)$/.exec(String(resumed!.headers.range));
    const from = Number(asked?.[1]);
    expect(from).toBeGreaterThan(0);
    expect(from).toBeLessThanOrEqual(whole.length / 2);
    expect(Number(asked?.[2])).toBe(whole.length - 1);
    expect(resumed!.headers['if-range']).toBe(etag);
    const media = await core.media({ headers: {} }, audioLabelId);
    expect(media.status).toBe(200);
    expect((await buffer(media.body!)).equals(whole)).toBe(true);
  });
});

describe('a sync hit by faults', () => {
  it('stops when the service cannot be reached, keeps what it had and stored, and resumes later', async () => {
    const added = 120;
    seedLabels(svc, added, { newestMs: Date.now() - HOUR_MS, spanMs: DAY_MS });
    const before = await cachedData();
    // Some labels' notes arrive, then every connection for one is reset.
    proxy.inject({ kind: 'pass' }, 30, { method: 'GET', path: LABEL_PATH });
    proxy.inject({ kind: 'reset' }, 10_000, { method: 'GET', path: LABEL_PATH });
    const stopped = await runSync();
    expect(stopped).toMatchObject({
      state: 'offline',
      message: 'The clinic service cannot be reached; showing what is cached.',
    });
    // Nothing reached the service: the app says so, though the user made no call.
    expect(await call('app.connection', {})).toMatchObject({
      state: 'offline',
      lastError: { kind: 'offline', message: MESSAGES.offline },
    });
    const interrupted = await cachedData();
    expect(interrupted.hits).toEqual(before.hits);
    expect(interrupted.stats.labels).toBe(before.stats.labels + added);
    const notesStored = interrupted.stats.notes - before.stats.notes;
    expect(notesStored).toBeGreaterThanOrEqual(30);
    expect(notesStored).toBeLessThan(added);
    expect(interrupted.stats.labelsNeedingNotes).toBe(added - notesStored);

    proxy.reset();
    const resumed = await runSync();
    expect(resumed).toMatchObject({ state: 'idle', message: null });
    expect(await connectionState()).toBe('online');
    expect(Date.parse(resumed.lastSyncAt!)).toBeGreaterThan(Date.parse(stopped.lastSyncAt!));
    // Only what the interrupted run had not fetched is fetched now.
    expect(proxy.seen({ method: 'GET', path: LABEL_PATH })).toHaveLength(
      interrupted.stats.labelsNeedingNotes,
    );
    const after = await cachedData();
    expect(after.stats).toMatchObject({
      labels: before.stats.labels + added,
      notes: before.stats.notes + added,
      labelsNeedingNotes: 0,
    });
    expect(after.hits).toEqual(before.hits);
  }, 120_000);

  it('completes past a label whose answer keeps failing, and fetches it on the next run', async () => {
    const [labelId] = seedLabels(svc, 1, { newestMs: Date.now() - HOUR_MS }).ids;
    const before = cacheStats();
    proxy.inject({ kind: 'status', status: 500 }, 4, { path: `/labels/${labelId}` });
    expect(await runSync()).toMatchObject({ state: 'idle', message: null });
    expect(events['connection.changed']).toEqual([]);
    expect(cacheStats()).toMatchObject({
      labels: before.labels + 1,
      notes: before.notes,
      labelsNeedingNotes: 1,
    });
    proxy.reset();
    await runSync();
    expect(proxy.seen({ path: `/labels/${labelId}` })).toHaveLength(1);
    expect(cacheStats()).toMatchObject({ notes: before.notes + 1, labelsNeedingNotes: 0 });
  }, 60_000);

  it('waits out a rate limit in the sync’s own gate, then completes', async () => {
    const listing = { method: 'GET', path: `/organizations/${organizationId()}/labels` };
    proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' } }, 4, listing);
    const before = cacheStats();
    sleeps.length = 0;
    expect(await runSync()).toMatchObject({ state: 'idle', message: null });
    // The sync's requests leave 429s to its gate (which paces the whole run), not to the
    // client's own retries: four refusals, four waits of the gate, then the page.
    expect(sleeps).toEqual([]);
    expect(proxy.seen(listing)).toHaveLength(5);
    expect(cacheStats()).toEqual(before);
  }, 60_000);
});

import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/shared/api';
import type { EventName, SyncStatus } from '../../src/shared/ipc';
import { AccountScopes, type AccountScope } from '../../src/main/account-scope';
import { AccountStore } from '../../src/main/accounts/account-store';
import { AccountService } from '../../src/main/accounts/accounts';
import { SessionSecretStore } from '../../src/main/accounts/secret-store';
import { ActiveService } from '../../src/main/connection/active-service';
import { LATEST_SCHEMA_VERSION, cacheFileOf } from '../../src/main/cache';
import { openCacheDatabase } from '../../src/main/cache/database';
import { AccountKey } from '../../src/main/at-rest/account-key';
import { Conversations } from '../../src/main/conversations/conversations';
import { ConversationRanges } from '../../src/main/conversations/ranges';
import { DemoClinic } from '../../src/main/accounts/demo-clinic';
import { connectService } from '../../src/main/service-client/connect';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../service/harness';
import { damageMiddlePages, label, note, T0 } from './cache/helpers';

/**
 * The account scope (src/main/account-scope.ts): what lives as long as an account is open — its
 * cache, audio cache, sync and follows — opened with it and closed together, in order, when
 * another account becomes active, when the account is removed, and when the app quits. Real
 * caches, a real reference service, the app's own account and service classes.
 */

const BASE = baseMinute(2);
const device = DEMO_DEVICES[0].id;
let svc: RunningService;
let root: string;
let nextMinute = 0;

beforeAll(async () => {
  svc = await startService({ processingMs: 60_000 });
  svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 60 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
  root = mkdtempSync(join(tmpdir(), 'earmark-scope-'));
});
afterAll(async () => {
  await svc?.dispose();
  rmSync(root, { recursive: true, force: true });
});

/**
 * The core's pieces an account scope needs, in a data folder of their own (or, for an app
 * started again, `restart`'s data folder and accounts).
 */
function world(
  holders: { forgetAccount(accountId: string): Promise<void> }[] = [],
  restart?: { dataDir: string; accounts: AccountService },
) {
  const dataDir = restart?.dataDir ?? mkdtempSync(join(root, 'data-'));
  const events: { event: EventName; payload: unknown }[] = [];
  const logs: string[] = [];
  const accounts =
    restart?.accounts ??
    new AccountService(
      new AccountStore(join(dataDir, 'accounts.json')),
      new SessionSecretStore(),
      new SessionSecretStore(),
      async (baseUrl, apiKey) => {
        const client = connectService(baseUrl, apiKey);
        try {
          return await client.me();
        } finally {
          await client.close();
        }
      },
    );
  const organizationId = () => accounts.active().account.organizationId;
  const cache = () => scopes.active().cache();
  const service: ActiveService = new ActiveService({
    accounts,
    demo: new DemoClinic({ dataDir: join(dataDir, 'demo-service') }),
    connect: connectService,
    cache,
    changed: () => undefined,
    answered: () => scopes.active().serviceAnswered(),
    log: () => undefined,
  });
  const ranges = new ConversationRanges({ service, cache, organizationId });
  const scopes: AccountScopes = new AccountScopes({
    accounts,
    dataDir,
    atRest: 'sealed',
    service,
    conversations: new Conversations({
      service,
      cache,
      organizationId,
      ranges,
      // Follows read conversations only, never the record one became.
      record: () => expect.fail('a follow asked for a record'),
    }),
    emit: (event, payload) => events.push({ event, payload }),
    syncEnded: (result) => service.syncEnded(result),
    resumeAudio: async () => undefined,
    retention: (accountId) => accounts.retentionOf(accountId),
    recordsInUse: () => [],
    // Away for ever: the cache's check never waits (the tests call its look).
    idleMs: () => Number.POSITIVE_INFINITY,
    holders,
    log: (message) => logs.push(message),
  });
  const add = (apiKey: string) => accounts.add({ baseUrl: svc.baseUrl, apiKey });
  return { dataDir, accounts, service, scopes, events, logs, add };
}

/** A completed conversation of the primary organization: followed until the service processes it. */
async function completedConversation() {
  const client = connectService(svc.baseUrl, svc.credentials.primary.apiKey);
  try {
    const startMs = BASE + nextMinute * MINUTE_MS;
    nextMinute += 3;
    const created = await client.api.conversations.create({
      deviceId: device,
      startMs,
      endMs: startMs + 2 * MINUTE_MS,
    });
    const ref = { deviceId: device, conversationId: created.conversation!.conversationId };
    await client.api.conversations.complete(ref.deviceId, ref.conversationId);
    return ref;
  } finally {
    await client.close();
  }
}

/** The closing under way of a scope (closing is idempotent: the same promise). */
const closed = (scope: AccountScope) => scope.close();

describe('the account scope', () => {
  let w: ReturnType<typeof world>;
  beforeEach(() => {
    w = world();
    return () => w.scopes.close();
  });

  it('opens the active account’s caches, with its sync and follows', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    const scope = w.scopes.active();
    expect(scope.accountId).toBe(a.id);
    expect(w.scopes.active()).toBe(scope);
    await (await scope.cache()).write.storeDevices([], Date.now());
    expect(existsSync(cacheFileOf(w.dataDir, a.id))).toBe(true);
    expect((await scope.audioCache()).usage().files).toBe(0);
    expect(existsSync(join(w.dataDir, 'audio', a.id))).toBe(true);
    // The service's first answer starts the account's background sync.
    await w.service.call((client) => client.me());
    await expect
      .poll(() => w.events.filter((e) => e.event === 'sync.changed').length)
      .toBeGreaterThan(0);
  });

  it('opens what the first play needs as it opens, before any recording is asked for', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    const scope = w.scopes.active();
    // Nothing asks for the audio cache: the scope opens it (it writes its sealed index).
    const audioIndex = join(w.dataDir, 'audio', a.id, 'index.sealed');
    await expect.poll(() => existsSync(audioIndex)).toBe(true);
    // What it opened is what it hands out; closed, the scope hands out nothing more.
    const audio = await scope.audioCache();
    expect(await scope.audioCache()).toBe(audio);
    await closed(scope);
    await expect(scope.audioCache()).rejects.toMatchObject({ kind: 'cancelled' });
  });

  it('reopens a cache its weekly check finds damaged: moved aside, review marks kept, synced anew', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    const scope = w.scopes.active();
    const damaged = await scope.cache();
    await damaged.write.storeLabels(
      Array.from({ length: 300 }, (_, i) =>
        label(i, { notes: [note(`${'bloods taken, fasted overnight '.repeat(30)} ${i}`, T0)] }),
      ),
      T0,
    );
    await damaged.write.markReviewed({ records: [label(7).id], conversations: [] }, T0);
    await damaged.write.checkpoint();
    damageMiddlePages(cacheFileOf(w.dataDir, a.id));
    // The checker's first look checks the file whole (never checked): the damage is found there.
    expect(await scope.checker.look()).toBe('reopened');
    const cache = await scope.cache();
    expect(cache).not.toBe(damaged);
    await expect(damaged.read.stats()).rejects.toThrow(/closed/);
    expect(cache.recovery).toMatchObject({
      reason: expect.stringMatching(/quick_check|unreadable/),
      salvagedReviewMarks: 1,
    });
    expect(w.logs).toContainEqual(expect.stringMatching(/found damaged/));
    // The sidebar says so: a copy started anew, no complete sync of it yet…
    const statuses = () =>
      w.events.filter((e) => e.event === 'sync.changed').map((e) => e.payload as SyncStatus);
    expect(statuses()).toContainEqual(
      expect.objectContaining({ rebuilding: true, lastSyncAt: null }),
    );
    // …filled again at once, not at the next five-minute sync, and then it no longer says so.
    await expect
      .poll(() => scope.syncStatus, { timeout: 20_000 })
      .toMatchObject({ rebuilding: false, lastSyncAt: expect.any(String) });
    expect(statuses().findLastIndex((s) => s.rebuilding)).toBeLessThan(
      statuses().findLastIndex((s) => s.lastSyncAt !== null),
    );
  });

  it('an app started with an active account opens its scope at once', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    const audioIndex = join(w.dataDir, 'audio', a.id, 'index.sealed');
    // The app quits and starts again: new scopes over the same accounts and data, asked nothing.
    await w.scopes.close();
    expect(existsSync(audioIndex)).toBe(false);
    const started = world([], { dataDir: w.dataDir, accounts: w.accounts });
    try {
      await expect.poll(() => existsSync(audioIndex)).toBe(true);
    } finally {
      await started.scopes.close();
    }
  });

  it('says in the sync status while an update migrates the offline copy, and when it is done', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    await (await w.scopes.active().cache()).write.storeDevices([], Date.now());
    await w.scopes.close();
    // An earlier version's copy, sealed with the account's key, one schema behind.
    const file = cacheFileOf(w.dataDir, a.id);
    rmSync(file);
    const key = AccountKey.from(w.accounts.cacheKey(a.id)!).databaseKey();
    openCacheDatabase(file, { key, targetVersion: LATEST_SCHEMA_VERSION - 1 }).db.close();
    const started = world([], { dataDir: w.dataDir, accounts: w.accounts });
    try {
      await started.scopes.active().cache();
      const upgrading = started.events
        .filter((e) => e.event === 'sync.changed')
        .map((e) => (e.payload as SyncStatus).upgrading);
      expect(upgrading).toEqual([true, false]);
      expect(started.scopes.active().syncStatus.upgrading).toBe(false);
    } finally {
      await started.scopes.close();
    }
  });

  it('an app started with an active account opens the connections to its service at once', async () => {
    await w.add(svc.credentials.primary.apiKey);
    await w.scopes.close();
    let accepted = 0;
    const count = () => accepted++;
    svc.service.app.server.on('connection', count);
    const started = world([], { dataDir: w.dataDir, accounts: w.accounts });
    try {
      await started.scopes.active().warmedUp;
      // All the client's pool holds (6): the first recording's request finds one free.
      expect(accepted).toBeGreaterThanOrEqual(6);
    } finally {
      svc.service.app.server.off('connection', count);
      await started.scopes.close();
    }
  });

  it('an account removed while its scope opens: what the scope opened is closed and deleted, no key is left', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    const scope = w.scopes.active(); // opening its key and caches in the background
    w.accounts.remove(a.id);
    await w.scopes.removeEverything(a.id);
    await scope.warmedUp;
    expect(existsSync(join(w.dataDir, 'audio', a.id))).toBe(false);
    expect(existsSync(cacheFileOf(w.dataDir, a.id))).toBe(false);
    expect(w.accounts.cacheKey(a.id)).toBeUndefined();
  });

  it('closes them together when another account becomes active: follows, sync, audio, cache', async () => {
    await w.add(svc.credentials.primary.apiKey);
    const first = w.scopes.active();
    const cache = await first.cache();
    const audio = await first.audioCache();
    await first.follower.follow(await completedConversation());
    expect(first.follower.following).toBe(1);
    // Its service answered the follow: the account's sync runs (or has run).
    const ran = (status: SyncStatus) => status.state !== 'idle' || status.lastSyncAt !== null;
    await expect.poll(() => ran(first.syncStatus)).toBe(true);

    const b = await w.add(svc.credentials.secondary.apiKey);
    await closed(first);
    expect(first.follower.following).toBe(0);
    expect(ran(first.syncStatus)).toBe(false);
    await expect(cache.read.devices()).rejects.toThrow(/is closed/);
    expect(audio.usage().partial).toBe(0);
    // A caller that held on to the old scope opens nothing behind its close, syncs nothing.
    await expect(first.cache()).rejects.toMatchObject({ kind: 'cancelled' });
    first.startSync();
    await expect.poll(() => w.logs.join('\n')).toMatch(/sync did not start: Another clinic/);
    const second = w.scopes.active();
    expect(second).not.toBe(first);
    expect(second.accountId).toBe(b.id);
    await (await second.cache()).write.storeDevices([], Date.now());
  });

  it('opens an account again only after its earlier scope has closed its files', async () => {
    const a = await w.add(svc.credentials.primary.apiKey);
    const b = await w.add(svc.credentials.secondary.apiKey);
    w.accounts.activate(a.id);
    const first = w.scopes.active();
    await first.cache();
    const order: string[] = [];
    w.accounts.activate(b.id);
    void closed(first).then(() => order.push('first closed'));
    w.accounts.activate(a.id);
    const again = w.scopes.active();
    await again.cache();
    order.push('opened again');
    expect(order).toEqual(['first closed', 'opened again']);
  });

  it('removal: the scope closes, then its cache and audio go, then what each holder keeps', async () => {
    const seen: { cacheThere: boolean; audioThere: boolean; followsLeft: number }[] = [];
    let scope: AccountScope | undefined;
    const removal = world([
      {
        forgetAccount: async (accountId) => {
          seen.push({
            cacheThere: existsSync(cacheFileOf(removal.dataDir, accountId)),
            audioThere: existsSync(join(removal.dataDir, 'audio', accountId)),
            followsLeft: scope!.follower.following,
          });
        },
      },
    ]);
    try {
      const other = await removal.add(svc.credentials.secondary.apiKey);
      await (await removal.scopes.active().cache()).write.storeDevices([], Date.now());
      const a = await removal.add(svc.credentials.primary.apiKey);
      scope = removal.scopes.active();
      await (await scope.cache()).write.storeDevices([], Date.now());
      await scope.audioCache();
      await scope.follower.follow(await completedConversation());

      removal.accounts.remove(a.id);
      await removal.scopes.removeEverything(a.id);
      expect(seen).toEqual([{ cacheThere: false, audioThere: false, followsLeft: 0 }]);
      expect(readdirSync(join(removal.dataDir, 'cache')).some((n) => n.startsWith(a.id))).toBe(
        false,
      );
      // The other account keeps its cache.
      expect(existsSync(cacheFileOf(removal.dataDir, other.id))).toBe(true);
    } finally {
      await removal.scopes.close();
    }
  });

  it('the app quitting closes the open scope; nothing opens after', async () => {
    await w.add(svc.credentials.primary.apiKey);
    const scope = w.scopes.active();
    const cache = await scope.cache();
    await w.scopes.close();
    await expect(cache.read.devices()).rejects.toThrow(/is closed/);
    expect(() => w.scopes.active()).toThrow(/closing/);
    const idle: SyncStatus = w.scopes.syncStatus();
    expect(idle.state).toBe('idle');
  });
});

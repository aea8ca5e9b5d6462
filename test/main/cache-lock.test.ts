import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LockedCache } from '../../src/shared/ipc';
import {
  KeychainUnavailableError,
  SessionSecretStore,
  cacheKeyEntry,
} from '../../src/main/accounts/secret-store';
import { cacheFileOf } from '../../src/main/cache';
import type { Core } from '../../src/main/core';
import { startService, type RunningService } from '../service/harness';
import { ipcCalls, syncToEnd } from '../support/ipc-calls';
import { seedLabel } from './audio/fixtures';
import { testCore } from '../support/core';

/**
 * What this computer keeps of an account, sealed with a key the keychain no longer gives (issue
 * 30): the keychain reset (the key gone) or holding another key. Earmark says so in plain words,
 * answers from the clinic service meanwhile, and overwrites nothing, until the user agrees to
 * start a new offline copy; then what only that copy held goes with it, and the new one fills.
 * A keychain out of reach is not a lost key. In both dialects of the reference service.
 */

const PHRASE = 'Clementine chased the neighbour’s cat up the chestnut tree';

/**
 * A keychain the test can reset, or take out of reach (for the cache key: the API key, read
 * earlier, is still in the app's memory, as KeychainSecretStore keeps it).
 */
class TestKeychain extends SessionSecretStore {
  unreachable = false;
  override get(id: string) {
    if (this.unreachable && id.startsWith('cache-key.'))
      throw new KeychainUnavailableError(new Error('the daemon is gone'));
    return super.get(id);
  }
}

/** The bytes of every file of the account's data, by path: what must not change. */
function filesOf(dataDir: string, accountId: string): Map<string, string> {
  const cache = cacheFileOf(dataDir, accountId);
  const cacheDir = join(dataDir, 'cache');
  const audioDir = join(dataDir, 'audio', accountId);
  const paths = [
    ...readdirSync(cacheDir)
      .filter((name) => join(cacheDir, name).startsWith(cache))
      .map((name) => join(cacheDir, name)),
    ...(existsSync(audioDir)
      ? readdirSync(audioDir, { recursive: true, withFileTypes: true })
          .filter((entry) => entry.isFile())
          .map((entry) => join(entry.parentPath, entry.name))
      : []),
  ];
  return new Map(
    paths.map((path) => [path, createHash('sha256').update(readFileSync(path)).digest('hex')]),
  );
}

describe.each(['seed', 'field'] as const)(
  'an offline copy sealed with a lost key (%s dialect)',
  (dialect) => {
    let svc: RunningService;
    let labelId: string;
    const folders: string[] = [];
    const cores: Core[] = [];

    beforeAll(async () => {
      svc = await startService({ dialect });
      const org = svc.credentials.primary.organizationId;
      labelId = seedLabel(svc.service, org, {
        patient: 'Clementine',
        minutes: 1,
        fromMs: Date.now() - 3_600_000,
        notes: [['Transcript', `Vet: ${PHRASE}.`, 0]],
      });
    });
    afterAll(async () => {
      for (const core of cores) await core.close();
      await svc?.dispose();
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    });

    function open(dataDir: string, keychain: TestKeychain) {
      const core = testCore({ dataDir, keychain });
      cores.push(core);
      const locks: (LockedCache | null)[] = [];
      core.on('cache.locked', (lock) => locks.push(lock));
      return { core, locks, ...ipcCalls(() => core) };
    }

    /** A desktop whose cache was filled by a sync and holds a review mark, then closed. */
    async function filledDesktop() {
      const dataDir = mkdtempSync(join(tmpdir(), 'earmark-lock-'));
      folders.push(dataDir);
      const keychain = new TestKeychain();
      const { core, call } = open(dataDir, keychain);
      const account = await call('accounts.add', {
        baseUrl: svc.baseUrl,
        apiKey: svc.credentials.primary.apiKey,
      });
      await syncToEnd(call);
      expect((await call('search', { query: 'chestnut' })).length).toBeGreaterThan(0);
      await call('audio.prepare', { labelId });
      await call('review.mark', { records: [labelId], conversations: [], reviewed: true });
      expect((await call('review.record', { labelId })).reviewed).toMatchObject({
        state: 'current',
      });
      await core.close();
      return { dataDir, keychain, accountId: account.id };
    }

    /** The locked copy says so, the service still answers, and not a byte of the copy changed. */
    async function expectLocked(
      desktop: Awaited<ReturnType<typeof filledDesktop>>,
      reason: LockedCache['reason'],
      words: RegExp,
    ) {
      const before = filesOf(desktop.dataDir, desktop.accountId);
      expect(before.size).toBeGreaterThan(3);
      const app = open(desktop.dataDir, desktop.keychain);
      const lock = { accountId: desktop.accountId, organizationName: expect.any(String), reason };
      expect(await app.call('cache.locked', {})).toEqual(lock);
      const refusal = await app.refused('search', { query: 'chestnut' });
      expect(refusal).toMatchObject({
        kind: 'cache_locked',
        message: expect.stringMatching(words),
      });
      expect(refusal.message).toMatch(/Start a fresh cache/);
      // Earmark works from the clinic service meanwhile.
      const page = await app.call('labels.list', {});
      expect(page.source).toBe('service');
      expect(page.value.items.map((item) => item.id)).toContain(labelId);
      await app.refused('audio.prepare', { labelId });
      await app.call('sync.run', {});
      expect(app.locks).toContainEqual(lock);
      // Nothing overwritten, moved or deleted before the user agrees.
      await app.core.close();
      expect(filesOf(desktop.dataDir, desktop.accountId)).toEqual(before);
      return before;
    }

    /** The user agrees: a new copy with a new key, filled from the service; the marks went with the old. */
    async function startFresh(
      desktop: Awaited<ReturnType<typeof filledDesktop>>,
      old: Map<string, string>,
    ) {
      const app = open(desktop.dataDir, desktop.keychain);
      expect((await app.refused('cache.startFresh', { accountId: 'someone-else' })).kind).toBe(
        'not_found',
      );
      expect(await app.call('cache.startFresh', { accountId: desktop.accountId })).toBeNull();
      expect(app.locks.at(-1)).toBeNull();
      expect(await app.call('cache.locked', {})).toBeNull();
      await vi.waitUntil(async () => (await app.call('search', { query: 'chestnut' })).length > 0, {
        timeout: 30_000,
        interval: 100,
      });
      // The review mark lived only in the old copy: it went with it.
      const record = await app.call('review.record', { labelId });
      expect(record.reviewed).toMatchObject({ state: 'never' });
      // The old copy's files are gone: none of them is left as it was.
      const now = filesOf(desktop.dataDir, desktop.accountId);
      for (const [path, hash] of old) expect(now.get(path)).not.toBe(hash);
      // Starting again once is enough: a readable copy is not thrown away.
      expect((await app.refused('cache.startFresh', { accountId: desktop.accountId })).kind).toBe(
        'conflict',
      );
    }

    it('the key gone (the keychain reset): says so, changes nothing, then starts again when asked', async () => {
      const desktop = await filledDesktop();
      desktop.keychain.delete(cacheKeyEntry(desktop.accountId));
      const old = await expectLocked(
        desktop,
        'key_missing',
        /no longer in this computer's keychain/,
      );
      await startFresh(desktop, old);
    }, 90_000);

    it('another key in the keychain: says so, changes nothing, then starts again when asked', async () => {
      const desktop = await filledDesktop();
      desktop.keychain.set(cacheKeyEntry(desktop.accountId), randomBytes(32).toString('base64'));
      const old = await expectLocked(desktop, 'key_wrong', /locked with another key/);
      await startFresh(desktop, old);
    }, 90_000);

    it('an account kept for the session only: sealed under its API key, opened again when it is given again', async () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'earmark-lock-'));
      folders.push(dataDir);
      const keychain = new TestKeychain();
      const first = open(dataDir, keychain);
      const account = await first.call('accounts.add', {
        baseUrl: svc.baseUrl,
        apiKey: svc.credentials.primary.apiKey,
        sessionOnly: true,
      });
      await syncToEnd(first.call);
      await first.call('review.mark', { records: [labelId], conversations: [], reviewed: true });
      expect((await first.call('review.record', { labelId })).reviewed).toMatchObject({
        state: 'current',
      });
      await first.core.close();
      // Nothing of its key was kept anywhere: not in the keychain, not on disk.
      expect(keychain.get(cacheKeyEntry(account.id))).toBeUndefined();
      expect(keychain.get(account.id)).toBeUndefined();
      const before = filesOf(dataDir, account.id);
      expect(before.size).toBeGreaterThan(0);

      const next = open(dataDir, keychain);
      // Before the key is given again: asked for, not locked, nothing opened or touched.
      expect((await next.refused('review.record', { labelId })).kind).toBe('key_missing');
      expect(next.locks).toEqual([]);
      expect(filesOf(dataDir, account.id)).toEqual(before);
      await next.call('accounts.add', {
        baseUrl: svc.baseUrl,
        apiKey: svc.credentials.primary.apiKey,
        sessionOnly: true,
      });
      expect((await next.call('review.record', { labelId })).reviewed).toMatchObject({
        state: 'current',
      });
      expect(next.locks).toEqual([]);
    }, 90_000);

    it('a keychain out of reach is not a lost key: nothing is locked or touched, and it opens once back', async () => {
      const desktop = await filledDesktop();
      const before = filesOf(desktop.dataDir, desktop.accountId);
      desktop.keychain.unreachable = true;
      const app = open(desktop.dataDir, desktop.keychain);
      expect((await app.refused('search', { query: 'chestnut' })).kind).toBe(
        'keychain_unavailable',
      );
      expect(app.locks).toEqual([]);
      expect(filesOf(desktop.dataDir, desktop.accountId)).toEqual(before);
      desktop.keychain.unreachable = false;
      expect((await app.call('search', { query: 'chestnut' })).length).toBeGreaterThan(0);
      expect(await app.call('cache.locked', {})).toBeNull();
    }, 90_000);
  },
);

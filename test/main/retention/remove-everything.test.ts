import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cacheKeyEntry,
  KeychainUnavailableError,
  SessionSecretStore,
} from '../../../src/main/accounts/secret-store';
import { cacheFileOf } from '../../../src/main/cache';
import type { Core } from '../../../src/main/core';
import { MINUTE_MS } from '../../../src/shared/api';
import { startService, type RunningService } from '../../service/harness';
import { until } from '../../service/poll';
import { filesHolding } from '../../support/files';
import { ipcCalls, syncToEnd } from '../../support/ipc-calls';
import { accountKeyIn, readWithKey } from '../../support/sealed-files';
import * as fx from '../audio/fixtures';
import { testCore } from '../../support/core';

/**
 * "Remove everything of this clinic from this computer" (issue 29): no clinical file of the
 * clinic is left in the data folder — its cache with the WAL and a damaged copy, its audio, the
 * comments posted from here — the sizes freed are those the files had, and the account stays
 * with its settings. Its cache key is destroyed first (issue 30, crypto-shredding), while every
 * file is still there; the account's cache opens again afterwards under a new key and syncs.
 */

/**
 * A keychain that notes, when a cache key is deleted, which files were still there; or that
 * cannot be reached to delete one.
 */
class WatchedKeychain extends SessionSecretStore {
  filesAtKeyDeletion: string[] | undefined;
  unreachable = false;
  constructor(private readonly filesNow: () => string[]) {
    super();
  }
  override delete(id: string): void {
    if (id.startsWith('cache-key.')) {
      if (this.unreachable) throw new KeychainUnavailableError(new Error('the daemon is gone'));
      this.filesAtKeyDeletion = this.filesNow();
    }
    super.delete(id);
  }
}
const WORDS = ['Snorkelwhip', 'brindlefax', 'Quillitoe'];

describe.each(['seed', 'field'] as const)('the %s dialect', (dialect) => {
  let svc: RunningService;
  let core: Core;
  let dataDir: string;
  let labelId: string;
  let accountFiles: () => string[] = () => [];
  const keychain = new WatchedKeychain(() => accountFiles());
  const { call } = ipcCalls(() => core);

  beforeAll(async () => {
    svc = await startService({ dialect });
    labelId = fx.seedLabel(svc.service, svc.credentials.primary.organizationId, {
      fromMs: Date.now() - 60 * MINUTE_MS,
      patient: WORDS[0],
      notes: [['Transcript', `Vet: ${WORDS[1]} twice a day`, 1]],
    });
    dataDir = fx.tempFolder('earmark-everything-');
    core = testCore({ dataDir, keychain });
  });
  afterAll(async () => {
    await core?.close();
    await svc?.dispose();
  });

  it('destroys the key first, leaves no clinical file of the clinic, says what it freed, keeps the account, and its cache starts again under a new key', async () => {
    const account = await call('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: svc.credentials.primary.apiKey,
    });
    await call('retention.setSettings', { textDays: 365, audioDays: 7 });
    await call('sync.run', {});
    await until(
      () => call('sync.status', {}),
      (status) => status.lastSyncAt !== null,
      30_000,
    );
    await until(
      () => call('audio.prepare', { labelId }),
      (prepared) => prepared.complete,
      30_000,
    );
    await call('retention.keep', { labelId, keep: true });
    const board = await call('followUps.createBoard', { name: 'Follow-ups' });
    const [task] = await call('followUps.addTasks', {
      boardId: board.id,
      items: [{ title: 'Call the owner' }],
    });
    await call('followUps.comment', { taskId: task!.id, body: `Owner asked about ${WORDS[2]}` });
    // A damaged copy an earlier start moved aside holds clinical text too.
    const cacheFile = cacheFileOf(dataDir, account.id);
    const damaged = `${cacheFile}.corrupt-2026-11-01T08-00-00-000Z`;
    writeFileSync(damaged, `SQLite format 3 … ${WORDS[1]} …`);
    const damagedBytes = statSync(damaged).size;
    const key = accountKeyIn(keychain, account.id);
    const oldKey = keychain.get(cacheKeyEntry(account.id));
    const holding = (needles: string[]) => filesHolding(dataDir, needles, readWithKey(key));
    for (const word of WORDS) expect(holding([word]), word).not.toEqual([]);

    accountFiles = () => [
      ...readdirSync(join(dataDir, 'cache'))
        .filter((name) => name.startsWith(account.id))
        .map((name) => join(dataDir, 'cache', name)),
      ...(existsSync(join(dataDir, 'audio', account.id))
        ? readdirSync(join(dataDir, 'audio', account.id), { recursive: true, encoding: 'utf8' })
            .map((name) => join(dataDir, 'audio', account.id, name))
            .filter((path) => statSync(path).isFile())
        : []),
    ];
    const before = accountFiles();
    const cacheBytes = before
      .filter((path) => path.startsWith(join(dataDir, 'cache')))
      .reduce((sum, path) => sum + statSync(path).size, 0);
    const audioBytes = before
      .filter((path) => path.startsWith(join(dataDir, 'audio')))
      .reduce((sum, path) => sum + statSync(path).size, 0);

    const removed = await call('retention.removeEverything', {});
    // The cache's files were sized once it had closed (its WAL checkpointed into it): the
    // database, the damaged copy, the audio with its peaks and index.
    expect(removed.files).toBeGreaterThanOrEqual(4);
    expect(removed.audioBytes).toBe(audioBytes);
    expect(removed.textBytes).toBeGreaterThan(damagedBytes);
    expect(cacheBytes).toBeGreaterThan(damagedBytes);

    // The key went first, while every file was still there.
    expect(keychain.filesAtKeyDeletion?.sort()).toEqual(before.sort());
    expect(keychain.get(cacheKeyEntry(account.id))).toBeUndefined();
    expect(accountFiles()).toEqual([]);
    expect(holding([...WORDS, labelId])).toEqual([]);
    // The account stays, with its settings, and works on: read from the service again.
    const [stays] = await call('accounts.list', {});
    expect(stays).toMatchObject({ id: account.id, retention: { textDays: 365, audioDays: 7 } });
    const page = await call('labels.list', {});
    expect(page.value.items.map((item) => item.id)).toEqual([labelId]);
    const overview = await call('retention.overview', {});
    expect(overview.keptRecords).toEqual([]);
    // Its cache opened again under a new key, and a sync fills it.
    const newKey = keychain.get(cacheKeyEntry(account.id));
    expect(newKey).toBeDefined();
    expect(newKey).not.toBe(oldKey);
    await call('sync.run', {});
    await until(
      () => call('labels.list', { source: 'cache' }),
      (cached) => cached.value.items.some((item) => item.id === labelId),
      30_000,
    );
    expect(holding([WORDS[0]!])).toEqual([]);
    const fresh = accountKeyIn(keychain, account.id);
    expect(filesHolding(dataDir, [WORDS[0]!], readWithKey(fresh))).not.toEqual([]);
  }, 90_000);
});

describe.each(['seed', 'field'] as const)(
  'the %s dialect, the keychain out of reach',
  (dialect) => {
    let svc: RunningService;
    let core: Core;
    let dataDir: string;
    const keychain = new WatchedKeychain(() => []);
    const { call, refused } = ipcCalls(() => core);

    beforeAll(async () => {
      svc = await startService({ dialect });
      fx.seedLabel(svc.service, svc.credentials.primary.organizationId, {
        fromMs: Date.now() - 60 * MINUTE_MS,
        notes: [['Transcript', 'Vet: all well', 1]],
      });
      dataDir = fx.tempFolder('earmark-everything-keychain-');
      core = testCore({ dataDir, keychain });
    });
    afterAll(async () => {
      await core?.close();
      await svc?.dispose();
    });

    it('refuses Remove everything and deletes nothing: the key must not outlive what it sealed', async () => {
      const account = await call('accounts.add', {
        baseUrl: svc.baseUrl,
        apiKey: svc.credentials.primary.apiKey,
      });
      await syncToEnd(call);
      const cacheFiles = () =>
        readdirSync(join(dataDir, 'cache'))
          .filter((name) => name.startsWith(account.id))
          .sort();
      const before = cacheFiles();
      expect(before).not.toEqual([]);

      keychain.unreachable = true;
      const refusal = await refused('retention.removeEverything', {});
      expect(refusal.kind).toBe('keychain_unavailable');
      expect(cacheFiles()).toEqual(before);
      expect(keychain.get(cacheKeyEntry(account.id))).toBeDefined();

      // The keychain back: it goes through.
      keychain.unreachable = false;
      await call('retention.removeEverything', {});
      expect(keychain.get(cacheKeyEntry(account.id))).toBeUndefined();
      expect(cacheFiles()).toEqual([]);
    }, 60_000);
  },
);

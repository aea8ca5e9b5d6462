import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExportSummary } from '../../src/shared/ipc';
import { cacheKeyEntry, SessionSecretStore } from '../../src/main/accounts/secret-store';
import { cacheFileOf } from '../../src/main/cache';
import { until } from '../service/poll';
import { filesHolding } from '../support/files';
import { ipcCalls } from '../support/ipc-calls';
import * as fx from './audio/fixtures';
import { testCore, useClinicBehindProxy } from '../support/core';
import { accountKeyIn, readWithKey } from '../support/sealed-files';

/**
 * Removing an account (issues 19 and 26): what this computer held of it — its cache with the WAL,
 * its audio, the comments posted from this app, its exports (a running one is cancelled, its
 * journal goes) — is deleted with it; another account's stays.
 */
describe('removing an account', () => {
  const clinic = useClinicBehindProxy(4, 'earmark-removal-');
  const { call } = ipcCalls(() => clinic.core);

  it('leaves nothing of it in the data folder, and only its own goes', async () => {
    const { svc, proxy, core, dataDir, labelIds } = clinic;
    const { primary, secondary } = svc.credentials;
    const other = await call('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: secondary.apiKey,
    });
    await call('labels.list', {});
    const account = await call('accounts.add', {
      baseUrl: proxy.baseUrl,
      apiKey: primary.apiKey,
    });
    await call('labels.list', {});
    // Prepared: its first bytes are in the account's audio cache.
    await call('audio.prepare', { labelId: labelIds[0]! });
    const audioFolder = join(dataDir, 'audio', account.id);
    expect(readdirSync(audioFolder, { recursive: true, encoding: 'utf8' }).length).toBeGreaterThan(
      0,
    );
    // The listing is kept in the account's cache behind its answer.
    const cacheFile = cacheFileOf(dataDir, account.id);
    await until(() => existsSync(cacheFile), Boolean, 10_000);
    // A comment posted from this app (kept beside the accounts: the service cannot list them).
    const board = await call('followUps.createBoard', { name: 'Follow-ups' });
    const [task] = await call('followUps.addTasks', {
      boardId: board.id,
      items: [{ title: 'Call the owner' }],
    });
    const remark = `Owner asked about the biopsy ${randomUUID()}`;
    await call('followUps.comment', { taskId: task!.id, body: remark });
    // Kept sealed under the account's key: read with it, the file holds the remark.
    const key = accountKeyIn(clinic.keychain, account.id);
    expect(filesHolding(dataDir, [remark])).toEqual([]);
    expect(filesHolding(dataDir, [remark], readWithKey(key))).not.toEqual([]);

    // An export of its recordings, still running: each recording's details and audio answer
    // only after a long pause.
    const exportFolder = join(fx.tempFolder('earmark-removal-export-'), 'out');
    mkdirSync(exportFolder);
    const { folderId } = await call('export.useFolder', { path: exportFolder });
    const pauseMs = 30_000;
    proxy.inject({ kind: 'delay', ms: pauseMs }, 20, { path: /^\/labels\/[^/]+(\/audio)?$/ });
    const exportId = randomUUID();
    const detailsAsked = () => proxy.seen({ path: /^\/labels\/[^/]+$/ }).length;
    const askedBefore = detailsAsked();
    const exported = core.rpc.invoke('export.run', {
      exportId,
      folderId,
      labels: { ids: labelIds.slice(1) },
      transcripts: true,
      onExists: 'keep-both',
    });
    // Under way: its journal names the account.
    await until(
      () =>
        existsSync(join(dataDir, 'exports')) &&
        filesHolding(join(dataDir, 'exports'), [account.id]),
      (found) => Array.isArray(found) && found.length > 0,
    );
    // …and waiting on the service: a recording's details asked, its answer paused.
    await until(detailsAsked, (asked) => asked > askedBefore);

    const removedAt = Date.now();
    await call('accounts.remove', { accountId: account.id });
    // The export answered, cancelled, at once: not after the service's pause.
    const summary = await exported;
    expect(Date.now() - removedAt).toBeLessThan(pauseMs / 2);
    expect(summary).toMatchObject({ ok: true, value: { status: 'cancelled' } });
    expect(
      (summary as { value: ExportSummary }).value.rows.every((row) => row.status !== 'exported'),
    ).toBe(true);
    expect(readdirSync(exportFolder).filter((name) => !name.startsWith('manifest'))).toEqual([]);

    const left = readdirSync(join(dataDir, 'cache'));
    expect(
      left.filter((name) => name.startsWith(account.id.replace(/[^A-Za-z0-9_-]/g, '_'))),
    ).toEqual([]);
    expect(existsSync(audioFolder)).toBe(false);
    // Nothing under the data folder names it or holds what it read or wrote.
    expect(filesHolding(dataDir, [account.id, remark, ...labelIds])).toEqual([]);
    // The other account keeps what it had.
    expect(existsSync(cacheFileOf(dataDir, other.id))).toBe(true);
  }, 90_000);

  it('destroys the key to its data first, while every file of it is still there', async () => {
    /** The keychain, noting what lay on disk when each entry was deleted. */
    class NotingKeychain extends SessionSecretStore {
      readonly deletions: { entry: string; cache: boolean; audio: boolean }[] = [];
      constructor(private readonly onDisk: () => { cache: boolean; audio: boolean }) {
        super();
      }
      override delete(entry: string): void {
        this.deletions.push({ entry, ...this.onDisk() });
        super.delete(entry);
      }
    }
    const folder = fx.tempFolder('earmark-removal-key-');
    let paths = { cache: '', audio: '' };
    const keychain = new NotingKeychain(() => ({
      cache: existsSync(paths.cache),
      audio: existsSync(paths.audio),
    }));
    const own = testCore({ dataDir: folder, keychain });
    const calls = ipcCalls(() => own);
    try {
      const { id } = await calls.call('accounts.add', {
        baseUrl: clinic.svc.baseUrl,
        apiKey: clinic.svc.credentials.primary.apiKey,
      });
      paths = { cache: cacheFileOf(folder, id), audio: join(folder, 'audio', id) };
      await calls.call('audio.prepare', { labelId: clinic.labelIds[0]! });
      await until(() => existsSync(paths.cache), Boolean, 10_000);
      expect(keychain.get(cacheKeyEntry(id))).toBeDefined();

      await calls.call('accounts.remove', { accountId: id });
      // Crypto-shredding: the key went first, before the files it sealed (what a disk may
      // keep of them after their deletion can never be read again).
      expect(keychain.deletions[0]).toEqual({
        entry: cacheKeyEntry(id),
        cache: true,
        audio: true,
      });
      expect(keychain.get(cacheKeyEntry(id))).toBeUndefined();
      expect(existsSync(paths.cache)).toBe(false);
      expect(existsSync(paths.audio)).toBe(false);
    } finally {
      await own.close();
    }
  }, 60_000);
});

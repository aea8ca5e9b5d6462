import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountSummary } from '../../src/shared/ipc';
import { SessionSecretStore } from '../../src/main/accounts/secret-store';
import { cacheFileOf } from '../../src/main/cache';
import { createCore, type Core } from '../../src/main/core';
import { startService, type RunningService } from '../service/harness';
import { until } from '../service/poll';
import * as fx from './audio/fixtures';

/**
 * Removing an account (issue 19): what this computer held of it — its cache with the WAL, its
 * audio — is deleted with it; another account's stays.
 */
describe('removing an account', () => {
  let svc: RunningService;
  let core: Core;
  let dataDir: string;
  let labelId: string;

  const call = async <T>(channel: string, input: unknown): Promise<T> => {
    const answer = await core.rpc.invoke(channel, input);
    if (!answer.ok) throw new Error(`${channel}: ${JSON.stringify(answer.error)}`);
    return answer.value as T;
  };

  beforeAll(async () => {
    svc = await startService();
    labelId = fx.seedLabel(svc.service, svc.credentials.primary.organizationId, { minutes: 1 });
    dataDir = fx.tempFolder('earmark-removal-');
    core = createCore({
      dataDir,
      shell: 'browser',
      version: 'test',
      keychain: new SessionSecretStore(),
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await core?.close();
    await svc?.dispose();
  });

  it('deletes its cache and audio from this computer, and only its own', async () => {
    const { primary, secondary } = svc.credentials;
    const other = await call<AccountSummary>('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: secondary.apiKey,
    });
    await call('labels.list', {});
    const account = await call<AccountSummary>('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: primary.apiKey,
    });
    await call('labels.list', {});
    // Prepared: its first bytes are in the account's audio cache.
    await call('audio.prepare', { labelId });
    const audioFolder = join(dataDir, 'audio', account.id);
    expect(readdirSync(audioFolder, { recursive: true, encoding: 'utf8' }).length).toBeGreaterThan(
      0,
    );
    // The listing is kept in the account's cache behind its answer.
    const cacheFile = cacheFileOf(dataDir, account.id);
    await until(() => existsSync(cacheFile), Boolean, 10_000);

    await call('accounts.remove', { accountId: account.id });
    const left = readdirSync(join(dataDir, 'cache'));
    expect(
      left.filter((name) => name.startsWith(account.id.replace(/[^A-Za-z0-9_-]/g, '_'))),
    ).toEqual([]);
    expect(existsSync(audioFolder)).toBe(false);
    // The other account keeps what it had.
    expect(existsSync(cacheFileOf(dataDir, other.id))).toBe(true);
  }, 90_000);
});

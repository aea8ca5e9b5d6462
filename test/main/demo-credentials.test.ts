import { announceSkip } from '../support/skip';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountSummary } from '../../src/shared/ipc';
import { demoCredentialsEntry } from '../../src/main/accounts/demo-credentials';
import { KeychainSecretStore } from '../../src/main/accounts/secret-store';
import type { Core } from '../../src/main/core';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';
import { filesHolding } from '../support/files';
import { secretServiceProblem } from '../support/secret-service';
import { tempFolder } from './audio/fixtures';
import { testCore } from '../support/core';

const problem = announceSkip(
  'the tests of test/main/demo-credentials.test.ts',
  secretServiceProblem(),
);

/**
 * The embedded demo clinic's credentials (issue 26): its keys and its admin's password are kept
 * in the keychain (a real Secret Service), like the accounts' keys, never in a file of the data
 * folder; the demo opens again after a restart, and even with a keychain that lost them.
 */
describe.skipIf(problem !== undefined)('the demo clinic’s credentials', () => {
  const dataDir = tempFolder('earmark-demo-credentials-');
  const demoDir = join(dataDir, 'demo-service');
  const keychain = new KeychainSecretStore(`Earmark-demo-test-${process.pid}`);
  let core: Core | undefined;
  let first: AccountSummary;
  let credentials: DemoCredentials;

  const open = async (secrets: KeychainSecretStore) => {
    await core?.close();
    core = testCore({ dataDir, keychain: secrets });
    const opened = await core.rpc.invoke('accounts.openDemo', {});
    if (!opened.ok) throw new Error(JSON.stringify(opened.error));
    return opened.value as AccountSummary;
  };
  const works = async () => {
    const me = await core!.rpc.invoke('identity.me', {});
    expect(me).toMatchObject({
      ok: true,
      value: { organizationId: credentials.primary.organizationId },
    });
  };

  beforeAll(async () => {
    first = await open(keychain);
    credentials = JSON.parse(keychain.get(demoCredentialsEntry(demoDir))!) as DemoCredentials;
  }, 120_000);
  afterAll(async () => {
    await core?.close();
    keychain.delete(demoCredentialsEntry(demoDir));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('are in the keychain, and in no file of the data folder', async () => {
    expect(first.organizationId).toBe(credentials.primary.organizationId);
    await works();
    const secrets = [
      credentials.primary.apiKey,
      credentials.secondary.apiKey,
      credentials.labelsOnly.apiKey,
      credentials.admin.password,
    ];
    expect(filesHolding(dataDir, secrets)).toEqual([]);
  });

  it('open the demo again after a restart, as the same account', async () => {
    const again = await open(keychain);
    expect(again.id).toBe(first.id);
    await works();
  }, 60_000);

  it('are not needed: with a keychain that holds nothing, the demo gets a new key', async () => {
    const empty = new KeychainSecretStore(`Earmark-demo-test-empty-${process.pid}`);
    const opened = await open(empty);
    try {
      await works();
      expect(filesHolding(dataDir, [credentials.admin.password])).toEqual([]);
    } finally {
      empty.delete(opened.id);
    }
  }, 60_000);

  it('move into the keychain from the file an earlier version kept', async () => {
    await core?.close();
    core = undefined;
    keychain.delete(demoCredentialsEntry(demoDir));
    writeFileSync(join(demoDir, 'credentials.json'), JSON.stringify(credentials), { mode: 0o600 });
    await open(keychain);
    await works();
    expect(filesHolding(dataDir, [credentials.admin.password])).toEqual([]);
    expect(JSON.parse(keychain.get(demoCredentialsEntry(demoDir))!)).toEqual(credentials);
  }, 60_000);
});

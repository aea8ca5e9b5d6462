import { announceSkip } from '../support/skip';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountSummary, ConnectionStatus } from '../../src/shared/ipc';
import { KeychainSecretStore } from '../../src/main/accounts/secret-store';
import type { Core } from '../../src/main/core';
import { startService, type RunningService } from '../service/harness';
import { ipcCalls, syncToEnd } from '../support/ipc-calls';
import { secretServiceProblem } from '../support/secret-service';
import { testCore } from '../support/core';

const problem = announceSkip('the tests of test/main/core.test.ts', secretServiceProblem());

const filesUnder = (folder: string) =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());

describe.skipIf(problem !== undefined)('the core, through its RPC table', () => {
  let svc: RunningService;
  let dataDir: string;
  let core: Core;
  const logs: string[] = [];
  const events: { accounts: AccountSummary[][]; connection: ConnectionStatus[] } = {
    accounts: [],
    connection: [],
  };

  beforeAll(async () => {
    svc = await startService();
    dataDir = mkdtempSync(join(tmpdir(), 'earmark-core-'));
    core = testCore({
      dataDir,
      keychain: new KeychainSecretStore(`Earmark-core-test-${process.pid}`),
      log: (message) => logs.push(message),
    });
    core.on('accounts.changed', (list) => events.accounts.push(list));
    core.on('connection.changed', (status) => events.connection.push(status));
  });
  afterAll(async () => {
    await core.close();
    await svc.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds an account; no key in the data folder, the logs, or anything the renderer receives', async () => {
    const { primary, revoked } = svc.credentials;
    const refused = await core.rpc.invoke('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: revoked.apiKey,
    });
    expect(refused).toMatchObject({ ok: false, error: { kind: 'key_revoked' } });
    const added = await core.rpc.invoke('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: primary.apiKey,
    });
    expect(added).toMatchObject({
      ok: true,
      value: { organizationName: primary.organizationName, keyStorage: 'keychain' },
    });
    const me = await core.rpc.invoke('identity.me', {});
    expect(me).toMatchObject({ ok: true, value: { organizationId: primary.organizationId } });
    expect(events.accounts.at(-1)?.[0]?.organizationId).toBe(primary.organizationId);

    // The account's first sync written (its cache and the cache key's check beside it), so no
    // file is caught half-written.
    await syncToEnd(ipcCalls(() => core).call);
    const everything = [
      ...filesUnder(dataDir).map((path) => readFileSync(path, 'latin1')),
      ...logs,
      JSON.stringify([refused, added, me, events]),
    ].join('\n');
    for (const key of [primary.apiKey, revoked.apiKey]) expect(everything).not.toContain(key);
    // Besides the accounts' list, only the account's cache and audio cache (sealed: see
    // test/main/at-rest).
    const account = added.ok ? (added.value as AccountSummary).id : '';
    expect(
      filesUnder(dataDir)
        .map((path) => path.slice(dataDir.length))
        .filter(
          (path) => !path.startsWith(`/cache/${account}.sqlite`) && !path.startsWith('/audio/'),
        ),
    ).toEqual(['/accounts.json']);
  });

  it('reports the connection offline when the service stops', async () => {
    expect(events.connection.at(-1)?.state).toBe('online');
    await svc.close();
    const result = await core.rpc.invoke('identity.me', {});
    expect(result).toMatchObject({ ok: false, error: { kind: 'offline' } });
    expect(events.connection.at(-1)).toMatchObject({
      state: 'offline',
      lastError: { kind: 'offline' },
    });
    // Diagnostics say the service cannot be reached, and leave the connection offline (issue 20).
    const diagnosed = await core.rpc.invoke('accounts.diagnose', {});
    expect(diagnosed).toMatchObject({ ok: false, error: { kind: 'offline' } });
    expect(events.connection.at(-1)?.state).toBe('offline');
  });
});

import { announceSkip } from '../support/skip';
import { Entry } from '@napi-rs/keyring';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore } from '../../src/main/accounts/account-store';
import { AccountService } from '../../src/main/accounts/accounts';
import { normalizeBaseUrl } from '../../src/main/accounts/base-url';
import {
  KeychainSecretStore,
  SessionSecretStore,
  type SecretStore,
} from '../../src/main/accounts/secret-store';
import { connectService } from '../../src/main/service-client/connect';
import { startService, type RunningService } from '../service/harness';
import { secretServiceProblem } from '../support/secret-service';

const problem = announceSkip('keychain tests', secretServiceProblem());

/** Every file under `folder`, read as text. */
function allText(folder: string): string {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile())
    .map((path) => readFileSync(path, 'latin1'))
    .join('\n');
}

const identify = async (baseUrl: string, apiKey: string) => {
  const client = connectService(baseUrl, apiKey);
  try {
    return await client.me();
  } finally {
    await client.close();
  }
};

describe.skipIf(problem !== undefined)('the OS keychain (a real Secret Service)', () => {
  const service = `Earmark-test-${process.pid}`;

  it('stores, reads and deletes a key', () => {
    const store = new KeychainSecretStore(service);
    store.set('account-1', 'csk_secret-value');
    expect(store.get('account-1')).toBe('csk_secret-value');
    expect(new Entry(service, 'account-1').getPassword()).toBe('csk_secret-value');
    store.delete('account-1');
    expect(store.get('account-1')).toBeUndefined();
    expect(new Entry(service, 'account-1').getPassword()).toBeNull();
  });

  it('reads each key from the keychain once per run, then from memory', () => {
    new Entry(service, 'account-2').setPassword('csk_stored-earlier');
    const store = new KeychainSecretStore(service);
    expect(store.get('account-2')).toBe('csk_stored-earlier');
    // Gone from the keychain behind the app's back: this run still has it (no more round trips).
    new Entry(service, 'account-2').deletePassword();
    expect(store.get('account-2')).toBe('csk_stored-earlier');
    // A new run reads the keychain again, and finds nothing.
    expect(new KeychainSecretStore(service).get('account-2')).toBeUndefined();
  });
});

describe.skipIf(problem !== undefined)('accounts', () => {
  let svc: RunningService;
  let dataDir: string;
  let keychain: KeychainSecretStore;
  const keychainName = `Earmark-test-${process.pid}`;
  const logs: string[] = [];
  const accountsFor = (
    secrets: SecretStore = keychain,
    session: SecretStore = new SessionSecretStore(),
  ) =>
    new AccountService(
      new AccountStore(join(dataDir, 'accounts.json')),
      secrets,
      session,
      async (baseUrl, apiKey) => {
        logs.push(`identify ${baseUrl}`);
        return identify(baseUrl, apiKey);
      },
    );

  beforeAll(async () => {
    svc = await startService();
    dataDir = mkdtempSync(join(tmpdir(), 'earmark-app-'));
    keychain = new KeychainSecretStore(keychainName);
  });
  afterAll(async () => {
    await svc.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('adds an account after checking the key, keeping the key only in the keychain', async () => {
    const { primary } = svc.credentials;
    const accounts = accountsFor();
    const added = await accounts.add({ baseUrl: `${svc.baseUrl}/`, apiKey: primary.apiKey });
    expect(added).toMatchObject({
      baseUrl: svc.baseUrl,
      organizationId: primary.organizationId,
      organizationName: primary.organizationName,
      entitlements: { hub: true },
      keyPrefix: `${primary.apiKey.slice(0, 12)}...`,
      keyStorage: 'keychain',
      hasKey: true,
      active: true,
    });
    expect(keychain.get(added.id)).toBe(primary.apiKey);
    expect(JSON.stringify(accounts.list())).not.toContain(primary.apiKey);
    expect(allText(dataDir)).not.toContain(primary.apiKey);
    expect(logs.join('\n')).not.toContain(primary.apiKey);
    expect(accounts.active().apiKey).toBe(primary.apiKey);
  });

  it('keeps one key per organization and switches between them', async () => {
    const accounts = accountsFor();
    const second = await accounts.add({
      baseUrl: svc.baseUrl,
      apiKey: svc.credentials.secondary.apiKey,
    });
    expect(
      accounts
        .list()
        .map((a) => a.organizationName)
        .sort(),
    ).toEqual(
      [svc.credentials.primary.organizationName, svc.credentials.secondary.organizationName].sort(),
    );
    expect(accounts.active().account.id).toBe(second.id);
    const first = accounts.list().find((a) => a.id !== second.id)!;
    accounts.activate(first.id);
    expect(accountsFor().active().account.organizationId).toBe(
      svc.credentials.primary.organizationId,
    );
    // Adding the same organization's key again replaces it rather than adding a duplicate.
    await accounts.add({ baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
    expect(accounts.list()).toHaveLength(2);
  });

  it('stores nothing for a key the service refuses', async () => {
    const accounts = accountsFor();
    const before = readFileSync(join(dataDir, 'accounts.json'), 'utf8');
    await expect(
      accounts.add({ baseUrl: svc.baseUrl, apiKey: svc.credentials.revoked.apiKey }),
    ).rejects.toMatchObject({ kind: 'key_revoked' });
    await expect(
      accounts.add({ baseUrl: svc.baseUrl, apiKey: 'csk_made-up-key-0000' }),
    ).rejects.toMatchObject({ kind: 'key_invalid' });
    expect(readFileSync(join(dataDir, 'accounts.json'), 'utf8')).toBe(before);
  });

  it('says an address without the service’s API is not the service, and suggests the /api root', async () => {
    const accounts = accountsFor();
    const root = svc.baseUrl.replace(/\/api$/, '');
    await expect(
      accounts.add({ baseUrl: root, apiKey: svc.credentials.primary.apiKey }),
    ).rejects.toMatchObject({
      kind: 'not_found',
      message: `There is no clinic service at ${root}. Service addresses usually end in /api: try ${root}/api.`,
    });
  });

  it('removes an account and its key from the keychain', async () => {
    const accounts = accountsFor();
    const target = accounts
      .list()
      .find((a) => a.organizationId === svc.credentials.secondary.organizationId)!;
    accounts.remove(target.id);
    expect(keychain.get(target.id)).toBeUndefined();
    expect(accounts.list().some((a) => a.id === target.id)).toBe(false);
  });

  it('keeps a session-only key in memory, and asks for it again after a restart', async () => {
    const session = new SessionSecretStore();
    const accounts = accountsFor(keychain, session);
    const added = await accounts.add({
      baseUrl: svc.baseUrl,
      apiKey: svc.credentials.noHub.apiKey,
      sessionOnly: true,
    });
    expect(added.keyStorage).toBe('session');
    expect(keychain.get(added.id)).toBeUndefined();
    expect(allText(dataDir)).not.toContain(svc.credentials.noHub.apiKey);
    const afterRestart = accountsFor(keychain, new SessionSecretStore());
    expect(afterRestart.list().find((a) => a.id === added.id)?.hasKey).toBe(false);
    expect(() => afterRestart.active()).toThrow(/kept only until Earmark quit/);
  });

  it('says when the keychain could not delete a removed account’s key, and deletes it at the next start', async () => {
    const accounts = accountsFor();
    const added = await accounts.add({
      baseUrl: svc.baseUrl,
      apiKey: svc.credentials.secondary.apiKey,
    });
    expect(keychain.get(added.id)).toBe(svc.credentials.secondary.apiKey);
    // Removed by a process whose keychain cannot be reached (locked, its daemon gone).
    const child = await promisify(execFile)(
      join('node_modules', '.bin', 'tsx'),
      ['test/support/remove-account-without-keychain.ts', dataDir, keychainName, added.id],
      {
        encoding: 'utf8',
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
        timeout: 30_000,
      },
    );
    const outcome = JSON.parse(child.stdout) as {
      left: string[];
      removal: { kind: string; message: string } | string;
    };
    expect(outcome.left).not.toContain(added.id);
    expect(outcome.removal).toMatchObject({ kind: 'keychain_unavailable' });
    expect((outcome.removal as { message: string }).message).toContain('could not be reached');
    // The key is still there, and the account file says whose it is (never the key).
    expect(new KeychainSecretStore(keychainName).get(added.id)).toBe(
      svc.credentials.secondary.apiKey,
    );
    expect(readFileSync(join(dataDir, 'accounts.json'), 'utf8')).toContain(added.id);
    expect(allText(dataDir)).not.toContain(svc.credentials.secondary.apiKey);
    // The next start, with the keychain back, deletes it and forgets the id.
    const restarted = accountsFor(new KeychainSecretStore(keychainName));
    expect(restarted.list().some((account) => account.id === added.id)).toBe(false);
    expect(new KeychainSecretStore(keychainName).get(added.id)).toBeUndefined();
    expect(readFileSync(join(dataDir, 'accounts.json'), 'utf8')).not.toContain(added.id);
  });

  it('explains a missing keychain and keeps the key in memory only when asked', async () => {
    // A child process whose D-Bus leads nowhere: the real keychain fails there.
    const child = await promisify(execFile)(
      join('node_modules', '.bin', 'tsx'),
      ['test/support/add-account-without-keychain.ts', svc.baseUrl, svc.credentials.primary.apiKey],
      {
        encoding: 'utf8',
        env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' },
        timeout: 30_000,
      },
    );
    const outcome = JSON.parse(child.stdout) as {
      dataDir: string;
      keychain: { kind: string; message: string };
      session: unknown;
    };
    expect(outcome.keychain.kind).toBe('keychain_unavailable');
    expect(outcome.keychain.message).toContain('in memory until Earmark quits');
    expect(outcome.session).toEqual({ keyStorage: 'session', hasKey: true, usable: true });
    expect(allText(outcome.dataDir)).not.toContain(svc.credentials.primary.apiKey);
    rmSync(outcome.dataDir, { recursive: true, force: true });
  });
});

describe('service addresses', () => {
  it.each([
    ['https://clinic.example.com/api/', 'https://clinic.example.com/api'],
    ['  https://Clinic.Example.com  ', 'https://clinic.example.com'],
    ['http://127.0.0.1:4610/api', 'http://127.0.0.1:4610/api'],
    ['http://localhost:8080/api//', 'http://localhost:8080/api'],
  ])('accepts %j as %j', (input, expected) => {
    expect(normalizeBaseUrl(input)).toBe(expected);
  });

  it.each([
    ['clinic.example.com', 'not a web address'],
    ['ftp://clinic.example.com', 'https://'],
    ['http://clinic.example.com/api', 'plain http:// is allowed only'],
    ['https://user:pw@clinic.example.com', 'user name or password'],
    ['https://clinic.example.com/api?x=1', '"?" or "#"'],
  ])('refuses %j, saying why', (input, reason) => {
    expect(() => normalizeBaseUrl(input)).toThrow(reason);
  });
});

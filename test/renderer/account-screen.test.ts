import { beforeEach, describe, expect, it } from 'vitest';
import type { Identity } from '../../src/shared/api';
import type { AccountSummary, DiagnosticsReport, IpcError, IpcResult } from '../../src/shared/ipc';
import { AccountScreenStore } from '../../src/renderer/src/lib/account-screen.svelte';
import { AccountsStore } from '../../src/renderer/src/lib/accounts.svelte';
import { FakeEarmark, settle } from './support';

const revoked: IpcError = { kind: 'key_revoked', message: 'This API key was revoked.' };
const offline: IpcError = { kind: 'offline', message: 'The service could not be reached.' };
const identity: Identity = {
  userId: '0190a000-0000-7000-8000-000000000001',
  email: 'vet@example.com',
  authMethod: 'ApiKey',
  organizationId: '0190a000-0000-7000-8000-000000000002',
  organizationName: 'Riverside',
  entitlements: null,
  apiKey: null,
};
const report: DiagnosticsReport = {
  checks: [{ step: 'identity', ok: true, summary: 'The key belongs to Riverside.' }],
  failedStep: null,
};

describe('the account section of Settings', () => {
  let fake: FakeEarmark;
  let screen: AccountScreenStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    screen = new AccountScreenStore(fake, new AccountsStore(fake));
  });

  it('asks the service about the key shown, and says a refusal of the key as the key’s problem', async () => {
    fake.fail('identity.me', revoked);
    await screen.show();
    expect(fake.callsOf('identity.me')).toHaveLength(1);
    expect(screen.checkError).toEqual(revoked);
    expect(screen.keyRefusal(null)).toEqual(revoked);
    // The connection's own refusal is said first.
    const connection: IpcError = { kind: 'key_expired', message: 'This API key expired.' };
    expect(screen.keyRefusal(connection)).toEqual(connection);
  });

  it('does not call an unreachable service a refused key', async () => {
    fake.fail('identity.me', offline);
    await screen.show();
    expect(screen.checkError).toEqual(offline);
    expect(screen.keyRefusal(null)).toBeNull();
  });

  it('keeps what the service says of the account shown now, not of one shown before', async () => {
    const answers: ((result: IpcResult<unknown>) => void)[] = [];
    fake.answer('identity.me', () => new Promise((resolve) => answers.push(resolve as never)));
    const first = screen.show();
    const second = screen.show();
    await settle();
    expect(answers).toHaveLength(2);
    answers[1]!({ ok: true, value: identity });
    await second;
    answers[0]!({ ok: false, error: revoked });
    await first;
    expect(screen.checkError).toBeNull();
  });

  it('runs the diagnostics, says it is checking, and shows the report or why it failed', async () => {
    fake.handle('accounts.diagnose', () => report);
    const running = screen.diagnose();
    expect(screen.diagnosing).toBe(true);
    await running;
    expect(screen.diagnosing).toBe(false);
    expect(screen.report).toEqual(report);

    fake.fail('accounts.diagnose', offline);
    await screen.diagnose();
    expect(screen.diagnoseError).toEqual(offline);
    // Showing an account again starts afresh.
    fake.handle('identity.me', () => identity);
    await screen.show();
    expect([screen.report, screen.diagnoseError]).toEqual([null, null]);
  });

  it('gets a new demo key: the refusal goes; a failure to make one is said', async () => {
    fake.fail('identity.me', revoked);
    await screen.show();
    fake.answer('accounts.openDemo', async () => ({
      ok: true,
      value: { id: 'demo' } as AccountSummary,
    }));
    await screen.renewDemoKey();
    expect(fake.callsOf('accounts.openDemo')).toHaveLength(1);
    expect([screen.renewing, screen.checkError, screen.renewError]).toEqual([false, null, null]);

    fake.fail('accounts.openDemo', offline);
    await screen.renewDemoKey();
    expect(screen.renewError).toEqual(offline);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import { AccountsStore, connectProblem } from '../../src/renderer/src/lib/accounts.svelte';
import { account, FakeEarmark } from './support';

describe('connecting an account', () => {
  let fake: FakeEarmark;
  let accounts: AccountsStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    accounts = new AccountsStore(fake);
  });

  it('says what is wrong with the form in the user’s words', () => {
    expect(connectProblem({ baseUrl: ' ', apiKey: 'csk_long-enough' })).toBe(
      'Enter the service address from your clinic’s portal.',
    );
    expect(connectProblem({ baseUrl: 'https://clinic.example/api', apiKey: '' })).toBe(
      'Enter the API key from your clinic’s portal.',
    );
    expect(connectProblem({ baseUrl: 'https://clinic.example/api', apiKey: ' abc ' })).toBe(
      'That API key is too short: copy the whole key from your clinic’s portal.',
    );
    expect(connectProblem({ baseUrl: 'https://clinic.example/api', apiKey: 'csk_12345' })).toBe(
      null,
    );
  });

  it('asks main only with a form that can work, trimmed', async () => {
    const short = await accounts.add({ baseUrl: 'https://clinic.example/api', apiKey: 'abc' });
    expect(short).toMatchObject({ ok: false, error: { kind: 'invalid_input' } });
    expect(fake.callsOf('accounts.add')).toEqual([]);
    fake.handle('accounts.add', ({ baseUrl }) => account(baseUrl));
    const added = await accounts.add({
      baseUrl: ' https://clinic.example/api ',
      apiKey: ' csk_12345 ',
    });
    expect(added.ok).toBe(true);
    expect(fake.callsOf('accounts.add')).toEqual([
      { baseUrl: 'https://clinic.example/api', apiKey: 'csk_12345' },
    ]);
    // The new account's reach is said once, then dismissed.
    expect(accounts.connected?.organizationName).toBe('Riverside');
    accounts.dismissConnected();
    expect(accounts.connected).toBeNull();
  });

  it('follows main’s list of accounts: the active one is the one main marks', async () => {
    fake.handle('accounts.list', () => [account('https://a.example', { active: false })]);
    await accounts.load();
    expect([accounts.loaded, accounts.active]).toEqual([true, null]);
    fake.emit('accounts.changed', [
      account('https://a.example', { active: false }),
      account('https://b.example', { id: 'a-2' }),
    ]);
    expect(accounts.active?.id).toBe('a-2');
  });

  it('says why an account needs a new key: gone from this computer, or refused', () => {
    const refusal = { kind: 'key_revoked' as const, message: 'This API key was revoked.' };
    expect(accounts.keyProblem(account('https://a.example'), null)).toBeNull();
    expect(accounts.keyProblem(account('https://a.example', { hasKey: false }), null)).toMatch(
      /gone from this computer/,
    );
    expect(accounts.keyProblem(account('https://a.example'), refusal)).toBe(
      "The clinic service refused this account's key: This API key was revoked.",
    );
  });
});

describe('removing an account', () => {
  it('says what the removal could not do, until dismissed; a removal that worked says nothing', async () => {
    const fake = new FakeEarmark();
    const accounts = new AccountsStore(fake);
    const left = {
      kind: 'keychain_unavailable' as const,
      message: 'The account was removed, but the system keychain could not be reached.',
    };
    fake.fail('accounts.remove', left);
    await accounts.remove('a-1');
    expect(fake.callsOf('accounts.remove')).toEqual([{ accountId: 'a-1' }]);
    expect(accounts.removalProblem).toEqual(left);
    accounts.dismissRemovalProblem();
    expect(accounts.removalProblem).toBeNull();

    fake.fail('accounts.remove', left);
    await accounts.remove('a-1');
    fake.handle('accounts.remove', () => []);
    await accounts.remove('a-2');
    expect(accounts.removalProblem).toBeNull();
  });
});

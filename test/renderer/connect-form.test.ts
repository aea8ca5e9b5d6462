import { beforeEach, describe, expect, it } from 'vitest';
import { AccountsStore } from '../../src/renderer/src/lib/accounts.svelte';
import { ConnectFormStore } from '../../src/renderer/src/lib/connect-form.svelte';
import { account, FakeEarmark } from './support';

describe('the connect form', () => {
  let fake: FakeEarmark;
  let form: ConnectFormStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    form = new ConnectFormStore(new AccountsStore(fake), 'https://clinic.example/api');
  });

  it('starts from the address it is given, connects, and forgets the key once connected', async () => {
    fake.handle('accounts.add', ({ baseUrl }) => account(baseUrl));
    form.apiKey = 'csk_12345678';
    expect(await form.connect()).toBe(true);
    expect(fake.callsOf('accounts.add')).toEqual([
      { baseUrl: 'https://clinic.example/api', apiKey: 'csk_12345678', sessionOnly: false },
    ]);
    expect([form.apiKey, form.busy, form.error]).toEqual(['', false, null]);
  });

  it('keeps the key and says why when it is refused; a keychain that cannot take it offers memory', async () => {
    form.apiKey = 'abc';
    expect(await form.connect()).toBe(false);
    expect(form.error?.message).toMatch(/too short/);
    expect(fake.callsOf('accounts.add')).toEqual([]);

    form.apiKey = 'csk_12345678';
    fake.fail('accounts.add', {
      kind: 'keychain_unavailable',
      message: 'The system keychain cannot be reached.',
    });
    expect(await form.connect()).toBe(false);
    expect(form.keychainUnavailable).toBe(true);
    expect(form.apiKey).toBe('csk_12345678');
    fake.handle('accounts.add', ({ baseUrl }) => account(baseUrl, { keyStorage: 'session' }));
    expect(await form.connect(true)).toBe(true);
    expect(fake.callsOf('accounts.add').at(-1)).toMatchObject({ sessionOnly: true });
    expect(form.keychainUnavailable).toBe(false);
  });
});

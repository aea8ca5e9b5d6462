import { describe, expect, it } from 'vitest';
import { withFake } from './fake-earmark';

const { fake, module } = await withFake(() => import('../../src/renderer/src/lib/accounts.svelte'));
const { accounts, connectProblem } = module;

describe('connecting an account', () => {
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
    fake.calls.length = 0;
    const short = await accounts.add({ baseUrl: 'https://clinic.example/api', apiKey: 'abc' });
    expect(short).toMatchObject({ ok: false, error: { kind: 'invalid_input' } });
    expect(fake.callsOf('accounts.add')).toEqual([]);
    fake.handle('accounts.add', ({ baseUrl }) => ({
      id: 'a-1',
      baseUrl,
      organizationId: 'org-1',
      organizationName: 'Riverside',
      email: 'vet@example.com',
      entitlements: null,
      allowedFeatures: [],
      keyId: null,
      keyName: null,
      keyPrefix: null,
      expiresAt: null,
      keyStorage: 'keychain',
      demo: false,
      hasKey: true,
      active: true,
    }));
    const added = await accounts.add({
      baseUrl: ' https://clinic.example/api ',
      apiKey: ' csk_12345 ',
    });
    expect(added.ok).toBe(true);
    expect(fake.callsOf('accounts.add')).toEqual([
      { baseUrl: 'https://clinic.example/api', apiKey: 'csk_12345' },
    ]);
  });
});

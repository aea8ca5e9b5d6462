import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiKey } from '../../src/shared/api';
import { ApiKeysStore } from '../../src/renderer/src/lib/api-keys.svelte';
import { FakeEarmark } from './support';

const key = (id: string, extra: Partial<ApiKey> = {}): ApiKey => ({
  id,
  name: `Key ${id}`,
  keyPrefix: `csk_${id}`,
  organizationId: '0190a000-0000-7000-8000-000000000002',
  allowedFeatures: ['logged-in'],
  createdAt: '2026-11-01T08:00:00.000Z',
  expiresAt: null,
  lastUsedAt: null,
  isRevoked: false,
  ...extra,
});

describe('the API keys store', () => {
  let fake: FakeEarmark;
  let store: ApiKeysStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    store = new ApiKeysStore(fake);
  });

  it('lists the keys, and says why it cannot (a member’s key)', async () => {
    fake.handle('admin.apiKeys', () => [key('k1'), key('k2')]);
    await store.load();
    expect([store.loaded, store.loading, store.keys.length]).toEqual([true, false, 2]);
    fake.fail('admin.apiKeys', { kind: 'scope_missing', message: 'Owners and admins only.' });
    await store.load();
    expect(store.error?.kind).toBe('scope_missing');
  });

  it('revokes a key once the user confirms, and says so; a refusal keeps the question open', async () => {
    fake.handle('admin.apiKeys', () => [key('k1'), key('k2')]);
    await store.load();
    const target = store.keys[1]!;
    fake.fail('admin.revokeApiKey', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    store.askRevoke(target);
    expect(await store.revoke(target)).toBe(false);
    expect([store.confirming?.id, store.revokeError?.kind]).toEqual(['k2', 'offline']);
    // Asking again starts without the last refusal.
    store.cancelRevoke();
    store.askRevoke(target);
    expect(store.revokeError).toBeNull();
    fake.handle('admin.revokeApiKey', ({ keyId }) =>
      [key('k1'), key('k2')].map((k) => (k.id === keyId ? { ...k, isRevoked: true } : k)),
    );
    expect(await store.revoke(target)).toBe(true);
    expect(fake.callsOf('admin.revokeApiKey').at(-1)).toEqual({ keyId: 'k2' });
    expect(store.confirming).toBeNull();
    expect(store.keys[1]!.isRevoked).toBe(true);
    expect(store.revoked).toBe('“Key k2” (csk_k2) is revoked.');
  });
});

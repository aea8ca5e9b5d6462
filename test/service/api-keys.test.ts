import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey, CreatedApiKey, Identity } from '../../src/shared/api';
import { problemOf, startService, type RunningService } from './harness';

let svc: RunningService;
/** The service's clock runs this far ahead of the real one (to pass an expiry). */
let clockOffsetMs = 0;
let adminSession: string;
let orgId: string;
const MEMBER = 'priya.nair@riverside-vets.example';

beforeAll(async () => {
  svc = await startService({ now: () => Date.now() + clockOffsetMs });
  orgId = svc.credentials.primary.organizationId;
  adminSession = await signIn(svc.credentials.admin.email, svc.credentials.admin.password);
});
afterAll(() => svc.dispose());

/** Signs in and returns the session cookie ("name=value"). */
async function signIn(email: string, password: string, organizationId?: string) {
  const response = await svc.call('/auth/login', {
    method: 'POST',
    json: { email, password, organizationId },
  });
  expect(response.status).toBe(200);
  return response.headers.get('set-cookie')!.split(';')[0]!;
}

const createKey = (cookie: string, body: object) =>
  svc.call('/api-keys', { method: 'POST', headers: { cookie }, json: body });

async function newKey(body: object = {}): Promise<CreatedApiKey> {
  const response = await createKey(adminSession, {
    name: 'Integration',
    organizationId: orgId,
    ...body,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedApiKey;
}

const listKeys = async (auth: { key?: string; headers?: Record<string, string> }) =>
  (await (await svc.call('/api-keys', auth)).json()) as ApiKey[];

describe('POST /api-keys (seed §4.5, §5)', () => {
  it("creates a key with an owner's or admin's session; the full key only in this response", async () => {
    const created = await newKey({ name: 'Practice management sync' });
    expect(created).toMatchObject({
      name: 'Practice management sync',
      organizationId: orgId,
      expiresAt: null,
      allowedFeatures: ['logged-in'],
    });
    expect(created.key).toMatch(/^csk_[A-Za-z0-9_-]{40}$/);
    expect(created.keyPrefix).toBe(`${created.key.slice(0, 12)}...`);
    const me = (await (await svc.call('/auth/me', { key: created.key })).json()) as Identity;
    expect(me).toMatchObject({ authMethod: 'ApiKey', organizationId: orgId });
    const listed = await listKeys({ headers: { cookie: adminSession } });
    expect(JSON.stringify(listed)).not.toContain(created.key);
    const row = svc.service.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(created.id);
    expect(JSON.stringify(row)).not.toContain(created.key);
  });

  it('refuses an API key: creating one needs a user session', async () => {
    const response = await svc.call('/api-keys', {
      key: svc.credentials.primary.apiKey,
      method: 'POST',
      json: { name: 'x', organizationId: orgId },
    });
    expect(response.status).toBe(403);
    expect((await problemOf(response)).code).toBe('session_required');
    expect((await svc.call('/api-keys', { method: 'POST', json: {} })).status).toBe(401);
  });

  it("refuses a member's session, and an organization other than the session's", async () => {
    // The demo staff share the admin's password.
    const member = await signIn(MEMBER, svc.credentials.admin.password);
    const byMember = await createKey(member, { name: 'x', organizationId: orgId });
    expect(byMember.status).toBe(403);
    expect((await problemOf(byMember)).code).toBe('role_missing');
    const foreign = await createKey(adminSession, {
      name: 'x',
      organizationId: svc.credentials.secondary.organizationId,
    });
    expect(foreign.status).toBe(403);
    expect((await problemOf(foreign)).code).toBe('organization_mismatch');
    // The admin is an admin of the secondary organization too: signed in there, it works.
    const secondary = await signIn(
      svc.credentials.admin.email,
      svc.credentials.admin.password,
      svc.credentials.secondary.organizationId,
    );
    const there = await createKey(secondary, {
      name: 'x',
      organizationId: svc.credentials.secondary.organizationId,
    });
    expect(there.status).toBe(201);
  });

  it('validates the body: a name, an expiry in the future, known feature scopes', async () => {
    for (const body of [
      { organizationId: orgId },
      { name: '', organizationId: orgId },
      { name: 'x', organizationId: orgId, expiresAt: '2001-01-01T00:00:00Z' },
      { name: 'x', organizationId: orgId, allowedFeatures: ['everything'] },
    ]) {
      const response = await createKey(adminSession, body);
      expect(response.status).toBe(400);
    }
  });

  it('creates scoped keys that get 403 outside their scopes', async () => {
    const created = await newKey({ allowedFeatures: ['tasks'] });
    expect((await svc.call('/task-boards', { key: created.key })).status).toBe(200);
    const labels = await svc.call(`/organizations/${orgId}/labels`, { key: created.key });
    expect((await problemOf(labels)).code).toBe('scope_missing');
    // Managing keys needs a key allowed everything.
    expect((await svc.call('/api-keys', { key: created.key })).status).toBe(403);
  });
});

describe('GET and DELETE /api-keys', () => {
  it('lists keys with keyPrefix, lastUsedAt, isRevoked and expiresAt, never the key', async () => {
    const created = await newKey({ name: 'Listed' });
    const unused = (await listKeys({ key: svc.credentials.primary.apiKey })).find(
      (k) => k.id === created.id,
    );
    expect(unused).toEqual({
      id: created.id,
      name: 'Listed',
      keyPrefix: created.keyPrefix,
      organizationId: orgId,
      allowedFeatures: ['logged-in'],
      createdAt: created.createdAt,
      expiresAt: null,
      lastUsedAt: null,
      isRevoked: false,
    });
    await svc.call('/auth/me', { key: created.key });
    const used = (await listKeys({ key: svc.credentials.primary.apiKey })).find(
      (k) => k.id === created.id,
    );
    expect(Date.parse(used!.lastUsedAt!)).toBeGreaterThan(Date.now() - 5000);
    const all = await listKeys({ key: svc.credentials.primary.apiKey });
    expect(all.every((k) => k.organizationId === orgId)).toBe(true);
    expect(all.some((k) => k.isRevoked)).toBe(true); // the demo's revoked key
  });

  it('revokes with 204; the key gets 401 on its very next request', async () => {
    const created = await newKey();
    expect((await svc.call('/auth/me', { key: created.key })).status).toBe(200);
    const revoked = await svc.call(`/api-keys/${created.id}`, {
      method: 'DELETE',
      headers: { cookie: adminSession },
    });
    expect(revoked.status).toBe(204);
    expect(await revoked.text()).toBe('');
    const next = await svc.call('/auth/me', { key: created.key });
    expect(next.status).toBe(401);
    expect((await problemOf(next)).code).toBe('key_revoked');
    const listed = (await listKeys({ headers: { cookie: adminSession } })).find(
      (k) => k.id === created.id,
    );
    expect(listed?.isRevoked).toBe(true);
  });

  it('lets a member list and revoke only their own keys', async () => {
    const { identity } = svc.service;
    const member = identity.userByEmail(MEMBER)!;
    const own = identity.createApiKey({ userId: member.id, organizationId: orgId, name: 'mine' });
    const others = await newKey();
    const listed = await listKeys({ key: own.key });
    expect(listed.map((k) => k.id)).toEqual([own.row.id]);
    const refused = await svc.call(`/api-keys/${others.id}`, { key: own.key, method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect((await problemOf(refused)).code).toBe('role_missing');
    expect(
      (await svc.call(`/api-keys/${own.row.id}`, { key: own.key, method: 'DELETE' })).status,
    ).toBe(204);
    expect((await svc.call('/auth/me', { key: own.key })).status).toBe(401);
  });

  it("answers 404 for an unknown key and 403 for another organization's", async () => {
    const unknown = await svc.call('/api-keys/00000000-0000-4000-8000-000000000000', {
      method: 'DELETE',
      headers: { cookie: adminSession },
    });
    expect(unknown.status).toBe(404);
    const me = (await (
      await svc.call('/auth/me', { key: svc.credentials.secondary.apiKey })
    ).json()) as Identity;
    const foreign = await svc.call(`/api-keys/${me.apiKey!.id}`, {
      method: 'DELETE',
      headers: { cookie: adminSession },
    });
    expect(foreign.status).toBe(403);
    expect((await svc.call('/auth/me', { key: svc.credentials.secondary.apiKey })).status).toBe(
      200,
    );
  });

  it('enforces expiresAt', async () => {
    const created = await newKey({ expiresAt: new Date(Date.now() + 60_000).toISOString() });
    expect((await svc.call('/auth/me', { key: created.key })).status).toBe(200);
    clockOffsetMs = 61_000;
    try {
      const expired = await svc.call('/auth/me', { key: created.key });
      expect(expired.status).toBe(401);
      expect((await problemOf(expired)).code).toBe('key_expired');
    } finally {
      clockOffsetMs = 0;
    }
  });
});

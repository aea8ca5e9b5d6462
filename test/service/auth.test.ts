import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE, type Device, type Identity } from '../../src/shared/api';
import {
  DEMO_DEVICES,
  SECONDARY_DEVICE,
  problemOf,
  startService,
  type RunningService,
} from './harness';
import {
  LOGIN_FAILURES_PER_ADDRESS,
  LOGIN_FAILURES_PER_EMAIL,
} from '../../src/service/routes/auth';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.dispose());

const lastUsed = (key: string) => svc.service.identity.apiKeyBySecret(key)?.last_used_ms;

describe('API keys (seed §5)', () => {
  it('answers /auth/me with the identity of the key and its organization', async () => {
    const { primary } = svc.credentials;
    const response = await svc.call('/auth/me', { key: primary.apiKey });
    expect(response.status).toBe(200);
    const me = (await response.json()) as Identity;
    expect(me).toMatchObject({
      authMethod: 'ApiKey',
      organizationId: primary.organizationId,
      organizationName: primary.organizationName,
      entitlements: { vet: true, call: true, hub: true },
      apiKey: {
        organizationId: primary.organizationId,
        allowedFeatures: ['logged-in'],
        expiresAt: null,
      },
    });
    expect(me.apiKey?.keyPrefix).toBe(`${primary.apiKey.slice(0, 12)}...`);
    expect(JSON.stringify(me)).not.toContain(primary.apiKey);
  });

  it.each([
    ['no Authorization header', undefined, 'unauthenticated'],
    ['an unknown key', 'csk_not-a-real-key-at-all', 'key_invalid'],
  ])('rejects %s with 401', async (_, key, code) => {
    const response = await svc.call('/auth/me', { key });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await problemOf(response)).code).toBe(code);
  });

  it('rejects an Authorization header that is not a Bearer key', async () => {
    const response = await svc.call('/auth/me', {
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expect(response.status).toBe(401);
    expect((await problemOf(response)).detail).toContain('Bearer');
  });

  it('rejects expired and revoked keys with 401 naming why', async () => {
    const expired = await svc.call('/devices', { key: svc.credentials.expired.apiKey });
    expect(expired.status).toBe(401);
    expect((await problemOf(expired)).code).toBe('key_expired');
    const revoked = await svc.call('/devices', { key: svc.credentials.revoked.apiKey });
    expect(revoked.status).toBe(401);
    expect((await problemOf(revoked)).code).toBe('key_revoked');
  });

  it('rejects a key on its very next request once revoked', async () => {
    const { identity } = svc.service;
    const owner = identity.userByEmail(svc.credentials.admin.email)!;
    const { row, key } = identity.createApiKey({
      userId: owner.id,
      organizationId: svc.credentials.primary.organizationId,
      name: 'short-lived',
    });
    expect((await svc.call('/auth/me', { key })).status).toBe(200);
    identity.revokeApiKey(row.id);
    expect((await svc.call('/auth/me', { key })).status).toBe(401);
  });

  it('keeps lastUsedAt', async () => {
    const { identity } = svc.service;
    const owner = identity.userByEmail(svc.credentials.admin.email)!;
    const { key } = identity.createApiKey({
      userId: owner.id,
      organizationId: svc.credentials.primary.organizationId,
      name: 'fresh',
    });
    expect(lastUsed(key)).toBeNull();
    const before = Date.now();
    await svc.call('/devices', { key });
    expect(lastUsed(key)).toBeGreaterThanOrEqual(before);
  });

  it('stores keys only as a hash', () => {
    const rows = svc.service.db.prepare('SELECT * FROM api_keys').all();
    expect(JSON.stringify(rows)).not.toContain(svc.credentials.primary.apiKey);
  });
});

describe('403: organization, scope and entitlement (seed §5, §7)', () => {
  const other = () => svc.credentials.secondary;

  it('refuses a path naming another organization', async () => {
    const response = await svc.call(`/organizations/${other().organizationId}/labels`, {
      key: svc.credentials.primary.apiKey,
    });
    expect(response.status).toBe(403);
    expect((await problemOf(response)).code).toBe('organization_mismatch');
  });

  it.each([['/devices?organizationId=OTHER'], ['/hub/conversations?organizationId=OTHER']])(
    'refuses %s with another organization',
    async (path) => {
      const response = await svc.call(path.replace('OTHER', other().organizationId), {
        key: svc.credentials.primary.apiKey,
      });
      expect(response.status).toBe(403);
      expect((await problemOf(response)).code).toBe('organization_mismatch');
    },
  );

  it('accepts organizationId equal to the bound organization', async () => {
    const response = await svc.call(
      `/devices?organizationId=${svc.credentials.primary.organizationId}`,
      { key: svc.credentials.primary.apiKey },
    );
    expect(response.status).toBe(200);
    expect(((await response.json()) as Device[]).map((d) => d.value).sort()).toEqual(
      DEMO_DEVICES.map((d) => d.id).sort(),
    );
  });

  it("refuses another organization's device and label", async () => {
    const now = Date.now();
    const timeline = await svc.call(
      `/hub/conversations/timeline/${SECONDARY_DEVICE.id}?startMs=${now - 3_600_000}&endMs=${now}`,
      {
        key: svc.credentials.primary.apiKey,
      },
    );
    expect(timeline.status).toBe(403);
    const labelId = svc.service.labels.create({
      organizationId: other().organizationId,
      type: 'DictationAudio',
      fromMs: now,
      toMs: now + 60_000,
      friendlyName: 'Phone',
      deviceSerial: 'X',
    });
    const label = await svc.call(`/labels/${labelId}`, { key: svc.credentials.primary.apiKey });
    expect(label.status).toBe(403);
    expect((await problemOf(label)).code).toBe('organization_mismatch');
    expect((await svc.call(`/labels/${labelId}`, { key: other().apiKey })).status).toBe(200);
  });

  it('refuses hub endpoints to an organization without the hub entitlement', async () => {
    const response = await svc.call('/hub/conversations', { key: svc.credentials.noHub.apiKey });
    expect(response.status).toBe(403);
    const problem = await problemOf(response);
    expect(problem.code).toBe('entitlement_missing');
    expect(problem.detail).toContain('entitlements.hub');
    const me = (await (
      await svc.call('/auth/me', { key: svc.credentials.noHub.apiKey })
    ).json()) as Identity;
    expect(me.entitlements?.hub).toBe(false);
    expect(me.entitlements?.vetForceSubscriptionEndDate).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('refuses a key without the feature scope a path needs', async () => {
    const key = svc.credentials.labelsOnly.apiKey;
    const hub = await svc.call('/hub/conversations', { key });
    expect(hub.status).toBe(403);
    expect((await problemOf(hub)).code).toBe('scope_missing');
    const labels = await svc.call(
      `/organizations/${svc.credentials.primary.organizationId}/labels`,
      { key },
    );
    expect(labels.status).toBe(200);
  });
});

describe('user session by cookie', () => {
  const login = (body: unknown) => svc.call('/auth/login', { method: 'POST', json: body });

  it('signs in with e-mail and password and reports authMethod Cookie', async () => {
    const { admin } = svc.credentials;
    const response = await login({ email: admin.email, password: admin.password });
    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toContain(`${SESSION_COOKIE}=`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const session = cookie.split(';')[0]!;
    const me = await (await svc.call('/auth/me', { headers: { cookie: session } })).json();
    expect(me).toMatchObject({
      authMethod: 'Cookie',
      organizationId: admin.organizationId,
      apiKey: null,
      email: admin.email,
    });

    expect(
      (await svc.call('/auth/logout', { method: 'POST', headers: { cookie: session } })).status,
    ).toBe(204);
    const after = await svc.call('/auth/me', { headers: { cookie: session } });
    expect(after.status).toBe(401);
    expect((await problemOf(after)).code).toBe('session_invalid');
  });

  it('acts in the organization asked for when the user belongs to several', async () => {
    const { admin, secondary } = svc.credentials;
    const response = await login({
      email: admin.email,
      password: admin.password,
      organizationId: secondary.organizationId,
    });
    expect(((await response.json()) as Identity).organizationId).toBe(secondary.organizationId);
    const foreign = await login({
      email: admin.email,
      password: admin.password,
      organizationId: svc.credentials.noHub.organizationId,
    });
    expect(foreign.status).toBe(403);
  });

  it('refuses a wrong password without saying which part was wrong', async () => {
    const wrong = await login({ email: svc.credentials.admin.email, password: 'not-it' });
    const unknown = await login({ email: 'nobody@example.com', password: 'not-it' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect((await problemOf(wrong)).detail).toBe((await problemOf(unknown)).detail);
  });

  it('limits failed logins per e-mail with 429 and Retry-After, even for the right password', async () => {
    const member = svc.credentials.admin;
    const other = await login({ email: 'guess-me@example.com', password: 'x' });
    expect(other.status).toBe(401);
    for (let i = 0; i < 5; i++) {
      expect((await login({ email: 'Locked@Example.com', password: `guess ${i}` })).status).toBe(
        401,
      );
    }
    // The e-mail is compared without case: the sixth try is refused before any hashing.
    const limited = await login({ email: 'locked@example.com', password: 'guess 5' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await problemOf(limited)).code).toBe('rate_limited');
    // Another e-mail from the same address still signs in: the address limit is wider.
    expect((await login({ email: member.email, password: member.password })).status).toBe(200);
  });

  it('checks passwords off the event loop: /auth/me is answered while logins hash', async () => {
    const { primary, admin } = svc.credentials;
    const done: string[] = [];
    // As many as may run at once for one e-mail (more would be refused before hashing).
    const logins = Array.from({ length: LOGIN_FAILURES_PER_EMAIL.requests }, () =>
      login({ email: admin.email, password: admin.password }).then((response) => {
        done.push('login');
        return response;
      }),
    );
    const me = svc.call('/auth/me', { key: primary.apiKey }).then((response) => {
      done.push('me');
      return response;
    });
    expect((await me).status).toBe(200);
    expect((await Promise.all(logins)).every((r) => r.status === 200)).toBe(true);
    // Hashing on the event loop would answer /auth/me only after every login before it.
    expect(done.indexOf('me')).toBeLessThan(done.length - 1);
  });
});

describe('the login throttle under parallel guesses', () => {
  let own: RunningService;
  beforeAll(async () => {
    own = await startService();
  });
  afterAll(() => own.dispose());

  const login = (email: string, password: string) =>
    own.call('/auth/login', { method: 'POST', json: { email, password } });

  it('counts each guess before its hash: at most the limit get 401, the rest 429', async () => {
    const { email } = own.credentials.admin;
    // All sent at once: every one arrives while the first is still hashing.
    const statuses = (
      await Promise.all(Array.from({ length: 15 }, (_, i) => login(email, `guess ${i}`)))
    ).map((response) => response.status);
    const refused = statuses.filter((status) => status === 401).length;
    expect(refused).toBe(LOGIN_FAILURES_PER_EMAIL.requests);
    expect(statuses.filter((status) => status === 429)).toHaveLength(15 - refused);
  });

  it('counts parallel guesses at many e-mails against the address', async () => {
    const statuses = (
      await Promise.all(
        Array.from({ length: LOGIN_FAILURES_PER_ADDRESS.requests + 10 }, (_, i) =>
          login(`nobody-${i}@example.com`, 'x'),
        ),
      )
    ).map((response) => response.status);
    expect(statuses.filter((status) => status === 401).length).toBeLessThanOrEqual(
      LOGIN_FAILURES_PER_ADDRESS.requests,
    );
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(10);
  });
});

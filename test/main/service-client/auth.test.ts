import { describe, expect, it } from 'vitest';
import {
  ApiError,
  isApiErrorShape,
  serializeApiError,
} from '../../../src/main/service-client/errors';
import { DEMO_DEVICES } from '../../service/harness';
import { rejection, useProxiedService } from './helpers';

const env = useProxiedService();

/** A client of the service through the proxy, with `apiKey`. */
const clientOf = (apiKey: string) => env.connect({ apiKey }).client;

const stripProblemCode = (body: unknown) => {
  const { code: _code, ...rest } = body as Record<string, unknown>;
  return rest;
};

describe('identity and devices', () => {
  it('reads /auth/me: organization, entitlements, the key and its features', async () => {
    const { primary } = env.svc.credentials;
    const me = await clientOf(primary.apiKey).identity.me();
    expect(me).toMatchObject({
      authMethod: 'ApiKey',
      organizationId: primary.organizationId,
      organizationName: primary.organizationName,
      entitlements: {
        vet: true,
        call: true,
        hub: true,
        vetForceSubscriptionEndDate: null,
        callForceSubscriptionEndDate: null,
      },
      apiKey: {
        organizationId: primary.organizationId,
        allowedFeatures: ['logged-in'],
        expiresAt: null,
      },
    });
    expect(me.apiKey?.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
  });

  it('reads a forced subscription end date and a missing hub entitlement', async () => {
    const me = await clientOf(env.svc.credentials.noHub.apiKey).identity.me();
    expect(me.entitlements?.hub).toBe(false);
    expect(Date.parse(me.entitlements?.vetForceSubscriptionEndDate ?? '')).toBeGreaterThan(
      Date.now(),
    );
  });

  it('lists the devices of the organization, with organizationId and limit on the wire', async () => {
    const { organizationId, apiKey } = env.svc.credentials.primary;
    const devices = await clientOf(apiKey).devices.list({ organizationId });
    expect(devices.map((device) => device.value).sort()).toEqual(
      DEMO_DEVICES.map((d) => d.id).sort(),
    );
    expect(devices[0]).toEqual({
      value: expect.any(String),
      displayName: expect.any(String),
      serial: expect.any(String),
    });
    expect(await clientOf(apiKey).devices.list({ limit: 1 })).toHaveLength(1);
    expect(env.proxy.requests.map((r) => r.query)).toEqual([
      `organizationId=${organizationId}`,
      'limit=1',
    ]);
  });
});

describe('401: the key', () => {
  it.each([
    [
      'an unknown key',
      (): string => 'csk_not-a-real-key-but-long-enough-to-look-like-one',
      'key_invalid',
    ],
    ['a revoked key', (): string => env.svc.credentials.revoked.apiKey, 'key_revoked'],
    ['an expired key', (): string => env.svc.credentials.expired.apiKey, 'key_expired'],
  ] as const)('tells %s apart', async (_, key, kind) => {
    const error = await rejection(clientOf(key()).devices.list(), kind);
    expect(error.status).toBe(401);
    expect(error.detail).toBeTruthy();
    expect(env.proxy.requests).toHaveLength(1); // not retried
    const everything = JSON.stringify([error, error.message, error.stack, String(error.cause)]);
    expect(everything).not.toContain(key());
  });

  it('says revoked in plain words', async () => {
    const error = await rejection(
      clientOf(env.svc.credentials.revoked.apiKey).identity.me(),
      'key_revoked',
    );
    expect(error.message).toBe('The API key has been revoked. Add a new key for this clinic.');
    expect(error.detail).toBe('The API key has been revoked.');
  });

  it('reads a 401 without a code as an invalid key', async () => {
    env.proxy.inject({ kind: 'rewrite', transform: stripProblemCode });
    await rejection(clientOf(env.svc.credentials.revoked.apiKey).identity.me(), 'key_invalid');
  });
});

describe('403: organization, scope, entitlement', () => {
  const causes = [
    [
      'another organization in the path',
      () => {
        const client = clientOf(env.svc.credentials.primary.apiKey);
        return client.labels.list(env.svc.credentials.secondary.organizationId);
      },
      'organization_mismatch',
    ],
    [
      'another organization in the query',
      () => {
        const client = clientOf(env.svc.credentials.primary.apiKey);
        return client.conversations.list({
          organizationId: env.svc.credentials.secondary.organizationId,
        });
      },
      'organization_mismatch',
    ],
    [
      'a hub route without the hub entitlement',
      () => clientOf(env.svc.credentials.noHub.apiKey).conversations.list(),
      'entitlement_missing',
    ],
    [
      'a key without the hub scope',
      () => clientOf(env.svc.credentials.labelsOnly.apiKey).conversations.list(),
      'scope_missing',
    ],
  ] as const;

  it.each(causes)('takes %s from the problem code', async (_, call, kind) => {
    const error = await rejection(call(), kind);
    expect(error.status).toBe(403);
    expect(env.proxy.requests.map((r) => r.path)).not.toContain('/auth/me');
  });

  it.each(causes)('without a code, asks /auth/me to tell %s', async (_, call, kind) => {
    env.proxy.inject({ kind: 'rewrite', transform: stripProblemCode });
    const error = await rejection(call(), kind);
    expect(error.status).toBe(403);
    expect(error.detail).toBeTruthy();
    expect(env.proxy.requests.map((r) => r.path).at(-1)).toBe('/auth/me');
  });

  it('falls back to a missing scope when /auth/me cannot answer', async () => {
    env.proxy.inject({ kind: 'rewrite', transform: stripProblemCode });
    env.proxy.inject({ kind: 'status', status: 500 }, 4);
    await rejection(
      clientOf(env.svc.credentials.noHub.apiKey).conversations.list(),
      'scope_missing',
    );
    expect(env.proxy.requests.filter((r) => r.path === '/auth/me')).toHaveLength(4);
  });
});

describe('other errors', () => {
  const key = () => env.svc.credentials.primary.apiKey;

  it('404: not_found with the service message', async () => {
    const error = await rejection(
      clientOf(key()).labels.get('00000000-0000-4000-8000-000000000000'),
      'not_found',
    );
    expect(error.status).toBe(404);
    expect(error.detail).toBe('No label 00000000-0000-4000-8000-000000000000.');
  });

  it('400: bad_request carrying the problem detail verbatim', async () => {
    const error = await rejection(
      clientOf(key()).conversations.timeline(DEMO_DEVICES[0].id, {
        startMs: 0,
        endMs: 7 * 3_600_000,
      }),
      'bad_request',
    );
    expect(error.status).toBe(400);
    expect(error.detail).toBe(
      'The timeline window spans 420 minutes; at most 360 minutes are allowed.',
    );
  });

  it('keeps the key out of a detail that echoes it', async () => {
    env.proxy.inject({
      kind: 'status',
      status: 400,
      body: JSON.stringify({ detail: `Key ${key()} is not allowed here.` }),
    });
    const error = await rejection(clientOf(key()).identity.me(), 'bad_request');
    expect(error.detail).toBe('Key [API key] is not allowed here.');
  });
});

describe('crossing the IPC boundary', () => {
  it('serializes to a plain object the guard recognizes, and back through JSON', async () => {
    const error = await rejection(
      clientOf(env.svc.credentials.expired.apiKey).identity.me(),
      'key_expired',
    );
    const shape = JSON.parse(JSON.stringify(error)) as unknown;
    expect(shape).toEqual(serializeApiError(error));
    expect(shape).toEqual({
      name: 'ApiError',
      kind: 'key_expired',
      message: 'The API key has expired. Add a new key for this clinic.',
      status: 401,
      detail: expect.stringMatching(/^The API key expired at /),
    });
    expect(isApiErrorShape(shape)).toBe(true);
  });

  it('carries retryAfterMs and says how long to wait', () => {
    const shape = serializeApiError(
      new ApiError('rate_limited', { status: 429, retryAfterMs: 90_000 }),
    );
    expect(shape).toMatchObject({
      retryAfterMs: 90_000,
      message: 'The clinic service is busy. Try again in 90 seconds.',
    });
    expect(isApiErrorShape(shape)).toBe(true);
  });

  it.each([
    ['null', null],
    ['an Error', new Error('x')],
    ['an unknown kind', { name: 'ApiError', kind: 'teapot', message: 'x' }],
    [
      'a status of the wrong type',
      { name: 'ApiError', kind: 'offline', message: 'x', status: '500' },
    ],
  ])('refuses %s', (_, value) => {
    expect(isApiErrorShape(value)).toBe(false);
  });
});

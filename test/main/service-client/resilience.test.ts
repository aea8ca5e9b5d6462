import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpTuning } from '../../../src/main/service-client/http';
import { MINUTE_MS } from '../../../src/shared/api';
import { DEMO_DEVICES, baseMinute, hubMinute } from '../../service/harness';
import { closedPortUrl, rejection, useProxiedService } from './helpers';

const env = useProxiedService();
const device = DEMO_DEVICES[0].id;
const BASE = baseMinute(2);
let nextRangeMinute = 0;

beforeAll(() => {
  env.svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 120 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
});

const make = (tuning: HttpTuning = {}, baseUrl?: string) => env.connect({ tuning, baseUrl });

/** A fresh two-minute range of recorded minutes, so each create can succeed. */
const freshRange = () => {
  const startMs = BASE + nextRangeMinute * MINUTE_MS;
  nextRangeMinute += 2;
  return { deviceId: device, startMs, endMs: startMs + 2 * MINUTE_MS };
};

const seen = (method: string, path: string) =>
  env.proxy.requests.filter((r) => r.method === method && r.path === path).length;

describe('429: rate limited', () => {
  it('waits the Retry-After seconds, then succeeds', async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    expect((await client.identity.me()).organizationId).toBe(
      env.svc.credentials.primary.organizationId,
    );
    expect(sleeps).toEqual([2000]);
    expect(seen('GET', '/auth/me')).toBe(2);
  });

  it('waits until a Retry-After HTTP date, by the injected clock', async () => {
    const now = Date.UTC(2026, 9, 1, 8, 0, 0);
    const { client, sleeps } = make({ now: () => now });
    env.proxy.inject({
      kind: 'status',
      status: 429,
      headers: { 'retry-after': new Date(now + 7000).toUTCString() },
    });
    await client.identity.me();
    expect(sleeps).toEqual([7000]);
  });

  it('backs off with full jitter when there is no Retry-After', async () => {
    const { client, sleeps } = make({ random: () => 0.25 });
    env.proxy.inject({ kind: 'status', status: 429 }, 3);
    await client.identity.me();
    // random() times a ceiling of 100, 200, 400 ms (base 100, doubling)
    expect(sleeps).toEqual([25, 50, 100]);
  });

  it('retries a POST create: the service refused it before doing anything', async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '1' } });
    const created = await client.conversations.create(freshRange());
    expect(created.success).toBe(true);
    expect(sleeps).toEqual([1000]);
    expect(seen('POST', '/hub/conversations/create')).toBe(2);
  });

  it('gives up after the last retry with rate_limited and the wait asked for', async () => {
    const { client, sleeps } = make({ maxRetries: 2 });
    env.proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '3' } }, 3);
    const error = await rejection(client.devices.list(), 'rate_limited');
    expect(error).toMatchObject({ status: 429, retryAfterMs: 3000 });
    expect(sleeps).toEqual([3000, 3000]);
    expect(seen('GET', '/devices')).toBe(3);
  });

  it('hands a 429 straight to a caller who paces its own requests (the sync)', async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '2' } });
    const error = await rejection(
      client.devices.list({}, { rateLimits: 'caller' }),
      'rate_limited',
    );
    expect(error.retryAfterMs).toBe(2000);
    expect(sleeps).toEqual([]);
    expect(seen('GET', '/devices')).toBe(1);
  });

  it('does not wait out a Retry-After beyond the cap: the UI tells the user instead', async () => {
    const { client, sleeps } = make({ maxRetryAfterMs: 60_000 });
    env.proxy.inject({ kind: 'status', status: 429, headers: { 'retry-after': '600' } });
    const error = await rejection(client.devices.list(), 'rate_limited');
    expect(error.retryAfterMs).toBe(600_000);
    expect(error.message).toBe('The clinic service is busy. Try again in 10 minutes.');
    expect(sleeps).toEqual([]);
  });
});

describe('5xx', () => {
  it('retries a GET after 503 and 500, then succeeds', async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'status', status: 503 });
    env.proxy.inject({ kind: 'status', status: 500 });
    expect(await client.devices.list()).toHaveLength(DEMO_DEVICES.length);
    expect(sleeps).toEqual([50, 100]);
    expect(seen('GET', '/devices')).toBe(3);
  });

  it('reports server_error once the retries are spent', async () => {
    const { client, sleeps } = make({ maxRetries: 3 });
    env.proxy.inject({ kind: 'status', status: 502 }, 4);
    const error = await rejection(client.devices.list(), 'server_error');
    expect(error.status).toBe(502);
    expect(error.detail).toBe('The fault proxy answered 502.');
    expect(sleeps).toHaveLength(3);
    expect(seen('GET', '/devices')).toBe(4);
  });

  it('never retries a POST create after a 500: a retry could create a duplicate', async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'status', status: 500 });
    await rejection(client.conversations.create(freshRange()), 'server_error');
    expect(seen('POST', '/hub/conversations/create')).toBe(1);
    expect(env.proxy.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('time-outs and cancellation', () => {
  it('times out a slow answer, and retries a GET that timed out', async () => {
    const { client, sleeps } = make({ timeoutMs: 150 });
    env.proxy.inject({ kind: 'delay', ms: 2000 });
    expect(await client.devices.list()).toHaveLength(DEMO_DEVICES.length);
    expect(sleeps).toHaveLength(1);
    expect(seen('GET', '/devices')).toBe(2);
  });

  it("reports 'timeout' and does not retry a POST", async () => {
    const { client } = make({ timeoutMs: 150 });
    env.proxy.inject({ kind: 'delay', ms: 2000 });
    const started = Date.now();
    const error = await rejection(client.conversations.create(freshRange()), 'timeout');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(error.status).toBeUndefined();
    expect(seen('POST', '/hub/conversations/create')).toBe(1);
  });

  it('takes a per-call time-out over the client default', async () => {
    const { client } = make({ timeoutMs: 5000, maxRetries: 0 });
    env.proxy.inject({ kind: 'delay', ms: 2000 });
    await rejection(client.identity.me({ timeoutMs: 100 }), 'timeout');
  });

  it("cancels an in-flight request: 'cancelled', never retried", async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'delay', ms: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await rejection(client.devices.list({}, { signal: controller.signal }), 'cancelled');
    expect(sleeps).toEqual([]);
    expect(seen('GET', '/devices')).toBe(1);
  });

  it('cancels every request sharing one signal, those queued for a connection too', async () => {
    const { client, sleeps } = make();
    const CALLS = 12; // twice the pool's connections, more than Node's 10 listeners
    env.proxy.inject({ kind: 'delay', ms: 2000 }, CALLS);
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const calls = Array.from({ length: CALLS }, () =>
        rejection(client.devices.list({}, { signal: controller.signal }), 'cancelled'),
      );
      setTimeout(() => controller.abort(), 100);
      await Promise.all(calls);
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    expect(sleeps).toEqual([]);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const { client } = make();
    await rejection(client.identity.me({ signal: AbortSignal.abort() }), 'cancelled');
    expect(env.proxy.requests).toEqual([]);
  });

  it('cancels the wait between retries', async () => {
    const { client } = make({
      sleep: undefined,
      baseDelayMs: 60_000,
      maxDelayMs: 60_000,
      random: () => 1,
    });
    env.proxy.inject({ kind: 'status', status: 503 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await rejection(client.devices.list({}, { signal: controller.signal }), 'cancelled');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(seen('GET', '/devices')).toBe(1);
  });
});

describe('the network', () => {
  it("reports a closed port as 'offline', after retrying a GET", async () => {
    const { client, sleeps } = make({}, await closedPortUrl());
    const error = await rejection(client.identity.me(), 'offline');
    expect(error.detail).toContain('ECONNREFUSED');
    expect(error.message).toBe(
      'The clinic service cannot be reached. Check the network connection.',
    );
    expect(sleeps).toHaveLength(3);
  });

  it('does not retry a POST to a closed port', async () => {
    const { client, sleeps } = make({}, await closedPortUrl());
    await rejection(client.conversations.create(freshRange()), 'offline');
    expect(sleeps).toEqual([]);
  });

  it('retries a GET whose connection dropped mid-body', async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'drop-mid-body' });
    expect(await client.devices.list()).toHaveLength(DEMO_DEVICES.length);
    expect(sleeps).toHaveLength(1);
  });

  it("reports a body that never completes as 'offline'", async () => {
    const { client } = make({ maxRetries: 1 });
    env.proxy.inject({ kind: 'drop-mid-body' }, 2);
    await rejection(client.devices.list(), 'offline');
    expect(seen('GET', '/devices')).toBe(2);
  });

  it('does not retry a POST whose answer was cut off', async () => {
    const { client } = make();
    env.proxy.inject({ kind: 'drop-mid-body' });
    await rejection(client.conversations.create(freshRange()), 'offline');
    expect(seen('POST', '/hub/conversations/create')).toBe(1);
  });

  it('does not retry a POST whose connection was reset before any answer', async () => {
    const { client } = make();
    env.proxy.inject({ kind: 'reset' });
    await rejection(client.conversations.create(freshRange()), 'offline');
    expect(seen('POST', '/hub/conversations/create')).toBe(1);
  });

  it("reports a body that is not JSON as 'invalid_response', without retrying", async () => {
    const { client, sleeps } = make();
    env.proxy.inject({ kind: 'malformed-json' });
    const error = await rejection(client.devices.list(), 'invalid_response');
    expect(error.status).toBeUndefined();
    expect(error.detail).toMatch(/not JSON/);
    expect(sleeps).toEqual([]);
    expect(seen('GET', '/devices')).toBe(1);
  });
});

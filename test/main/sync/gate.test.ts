import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src/main/service-client/errors';
import { RateGate } from '../../../src/main/sync/gate';
import { RateLimiter } from '../../../src/service/http/rate-limit';

// The service's own token bucket on a virtual clock: a burst of 200, then 100 requests a second.
const LIMIT = { requests: 200, perSeconds: 2 };
const REQUESTS = 3000;
const WORKERS = 4;
/** How long the service takes to answer one request. */
const ANSWER_MS = 5;

/** Sends REQUESTS through the gate from WORKERS loops, as the notes queue does; virtual time. */
async function drive(gate: RateGate, limiter: RateLimiter) {
  let refused = 0;
  let sent = 0;
  const request = async () => {
    await new Promise((resolve) => setTimeout(resolve, ANSWER_MS));
    const retryAfterS = limiter.take('key');
    if (retryAfterS === undefined) return;
    refused++;
    throw new ApiError('rate_limited', { status: 429, retryAfterMs: retryAfterS * 1000 });
  };
  const signal = new AbortController().signal;
  const started = Date.now();
  const workers = Array.from({ length: WORKERS }, async () => {
    while (sent < REQUESTS) {
      sent++;
      await gate.call(request, signal);
    }
  });
  const done = Promise.all(workers);
  await vi.runAllTimersAsync();
  await done;
  return { refused, elapsedMs: Date.now() - started };
}

describe('the sync’s rate gate', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }));
  afterEach(() => vi.useRealTimers());

  it('learns the rate the service refills at and keeps to it: ≤ 1% refused, ≥ 0.8× what the limit allows', async () => {
    const gate = new RateGate(
      () => Date.now(),
      (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      () => {},
    );
    const limiter = new RateLimiter(LIMIT, () => Date.now());
    const { refused, elapsedMs } = await drive(gate, limiter);

    expect(gate.refusals).toBe(refused);
    expect(refused / (REQUESTS + refused)).toBeLessThanOrEqual(0.01);
    const allowed = LIMIT.requests + (elapsedMs / 1000) * (LIMIT.requests / LIMIT.perSeconds);
    expect(REQUESTS / allowed).toBeGreaterThanOrEqual(0.8);
    // Paced just under the bucket's 100 a second.
    expect(gate.pacePerSecond).toBeGreaterThan(85);
    expect(gate.pacePerSecond).toBeLessThan(115);
  });

  it('sends nothing paced while the service never refuses', async () => {
    const gate = new RateGate(
      () => Date.now(),
      (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      () => {},
    );
    const { refused, elapsedMs } = await drive(
      gate,
      new RateLimiter({ requests: 1e6, perSeconds: 1 }, () => Date.now()),
    );
    expect(refused).toBe(0);
    expect(gate.pacePerSecond).toBeNull();
    // Only the answers' own time: WORKERS at once.
    expect(elapsedMs).toBe((REQUESTS / WORKERS) * ANSWER_MS);
  });
});

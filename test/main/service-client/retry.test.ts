import { describe, expect, it } from 'vitest';
import { ApiError, type ApiErrorKind } from '../../../src/main/service-client/errors';
import {
  parseRetryAfter,
  retryDelayMs,
  type RetryPolicy,
} from '../../../src/main/service-client/retry';

const NOW = Date.UTC(2026, 9, 1, 8, 0, 0);
const policy: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 100,
  maxDelayMs: 300,
  maxRetryAfterMs: 10_000,
};
const half = () => 0.5;

describe('parseRetryAfter', () => {
  it.each([
    ['delta-seconds', '120', 120_000],
    ['zero', '0', 0],
    ['surrounding spaces', ' 5 ', 5000],
    ['an HTTP date ahead', new Date(NOW + 30_000).toUTCString(), 30_000],
    ['an HTTP date past', new Date(NOW - 30_000).toUTCString(), 0],
    ['nothing', undefined, undefined],
    ['garbage', 'soon', undefined],
    ['a negative number', '-5', undefined],
  ])('%s', (_, header, expected) => {
    expect(parseRetryAfter(header, NOW)).toBe(expected);
  });
});

describe('retryDelayMs', () => {
  const error = (kind: ApiErrorKind, retryAfterMs?: number) => new ApiError(kind, { retryAfterMs });

  it.each([
    ['GET', 'server_error', 50],
    ['HEAD', 'offline', 50],
    ['DELETE', 'timeout', 50],
    ['POST', 'server_error', undefined],
    ['PATCH', 'offline', undefined],
    ['POST', 'timeout', undefined],
    ['POST', 'rate_limited', 50],
    ['GET', 'cancelled', undefined],
    ['GET', 'invalid_response', undefined],
    ['GET', 'not_found', undefined],
    ['GET', 'key_revoked', undefined],
  ] as const)('%s after %s → %s', (method, kind, expected) => {
    expect(retryDelayMs(error(kind), method, 0, policy, half)).toBe(expected);
  });

  it('doubles the jitter ceiling up to the maximum', () => {
    const delays = [0, 1, 2].map((retry) =>
      retryDelayMs(error('server_error'), 'GET', retry, policy, () => 1),
    );
    expect(delays).toEqual([100, 200, 300]);
  });

  it('stops after maxRetries', () => {
    expect(retryDelayMs(error('server_error'), 'GET', 3, policy, half)).toBeUndefined();
    expect(retryDelayMs(error('rate_limited', 1000), 'GET', 3, policy, half)).toBeUndefined();
  });

  it('waits exactly the Retry-After, unless it exceeds the cap', () => {
    expect(retryDelayMs(error('rate_limited', 10_000), 'POST', 0, policy, half)).toBe(10_000);
    expect(retryDelayMs(error('rate_limited', 10_001), 'POST', 0, policy, half)).toBeUndefined();
  });
});

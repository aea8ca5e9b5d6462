import type { ApiError } from './errors';
import { isTransient } from './failures';

/** When and how long to wait before trying a failed request again. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** The first backoff ceiling; it doubles with each retry (full jitter below it). */
  baseDelayMs: number;
  /** The largest backoff ceiling. */
  maxDelayMs: number;
  /** A longer Retry-After is not waited out: the request fails with it, for the UI to tell. */
  maxRetryAfterMs: number;
}

/** Repeating these cannot do anything twice. A POST may have created something before it failed. */
const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'DELETE']);

/** Retry-After as delta-seconds or an HTTP date, in milliseconds from `nowMs`. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const trimmed = value?.trim();
  if (!trimmed) return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP date form starts with the day's name; Date.parse alone would take "-5" as a year.
  const date = /^[A-Za-z]/.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** Exponential backoff with full jitter: uniformly random below the retry's ceiling. */
const backoffMs = (policy: RetryPolicy, retry: number, random: () => number): number =>
  Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry));

/**
 * How long to wait before retry number `retry` (0 for the first), or undefined to give up.
 * Only transient failures (failures.ts) are tried again: a 429 for every method, since the
 * service refused it before doing anything; server errors, lost connections and time-outs only
 * for idempotent methods.
 */
export function retryDelayMs(
  error: ApiError,
  method: string,
  retry: number,
  policy: RetryPolicy,
  random: () => number,
): number | undefined {
  if (retry >= policy.maxRetries || !isTransient(error)) return undefined;
  if (error.kind === 'rate_limited') {
    if (error.retryAfterMs === undefined) return backoffMs(policy, retry, random);
    return error.retryAfterMs <= policy.maxRetryAfterMs ? error.retryAfterMs : undefined;
  }
  return IDEMPOTENT_METHODS.has(method) ? backoffMs(policy, retry, random) : undefined;
}

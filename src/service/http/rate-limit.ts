import type { FastifyInstance } from 'fastify';
import { ProblemError } from './problems';

/** At most `requests` per `perSeconds`, in bursts of up to `requests`. */
export interface RateLimit {
  requests: number;
  perSeconds: number;
}

/** Generous: a busy desktop client stays far below it; a runaway loop does not. */
export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 3000, perSeconds: 60 };

/** Parses the `--rate-limit N/S` form; undefined when it is not two whole numbers above 0. */
export function parseRateLimit(text: string): RateLimit | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  if (!match) return undefined;
  const [requests, perSeconds] = [Number(match[1]), Number(match[2])];
  return requests > 0 && perSeconds > 0 ? { requests, perSeconds } : undefined;
}

/** Callers a limiter remembers at most; beyond it, full buckets and then the oldest are dropped. */
export const MAX_CALLERS = 10_000;

interface Bucket {
  tokens: number;
  updatedMs: number;
}

/**
 * One token bucket per caller: it holds `requests` tokens and refills them over `perSeconds`. A
 * full bucket is the same as none, so the callers remembered stay bounded: past `maxCallers`,
 * the full ones are dropped, then (a flood of new callers) those untouched longest.
 */
export class RateLimiter {
  /** In order of last use: the first is the one untouched longest. */
  private readonly buckets = new Map<string, Bucket>();
  private readonly tokensPerMs: number;

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number,
    private readonly maxCallers = MAX_CALLERS,
  ) {
    this.tokensPerMs = limit.requests / (limit.perSeconds * 1000);
  }

  /** How many callers it remembers now (at most `maxCallers`). */
  get size(): number {
    return this.buckets.size;
  }

  private tokensOf(bucket: Bucket, nowMs: number): number {
    return Math.min(
      this.limit.requests,
      bucket.tokens + (nowMs - bucket.updatedMs) * this.tokensPerMs,
    );
  }

  /** Forgets `caller` (a successful login clears its failures). */
  forget(caller: string): void {
    this.buckets.delete(caller);
  }

  /** Puts back a token taken for `caller` (an attempt that turned out not to count). */
  giveBack(caller: string): void {
    const bucket = this.buckets.get(caller);
    if (bucket) bucket.tokens = Math.min(this.limit.requests, bucket.tokens + 1);
  }

  /** Takes a token for `caller`; returns the whole seconds to wait when there is none. */
  take(caller: string): number | undefined {
    const nowMs = this.now();
    const known = this.buckets.get(caller);
    const bucket = {
      tokens: known ? this.tokensOf(known, nowMs) : this.limit.requests,
      updatedMs: nowMs,
    };
    const wait =
      bucket.tokens >= 1
        ? undefined
        : Math.max(1, Math.ceil((1 - bucket.tokens) / this.tokensPerMs / 1000));
    if (wait === undefined) bucket.tokens -= 1;
    // Taken from, so not full: the sweep keeps it, and as the newest it is dropped last.
    this.buckets.delete(caller);
    this.buckets.set(caller, bucket);
    if (this.buckets.size > this.maxCallers) this.prune(nowMs);
    return wait;
  }

  /**
   * Drops the full buckets; if over half the bound is still left, the oldest down to half, so a
   * flood of new callers costs one sweep per maxCallers/2 of them, not one per request.
   */
  private prune(nowMs: number): void {
    for (const [caller, bucket] of this.buckets) {
      if (this.tokensOf(bucket, nowMs) >= this.limit.requests) this.buckets.delete(caller);
    }
    const keep = Math.floor(this.maxCallers / 2);
    for (const caller of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(caller);
    }
  }
}

/**
 * Limits every authenticated request per API key (a session counts per user and organization);
 * runs after authentication, so a refused credential costs nothing. Over the limit: 429 with
 * Retry-After.
 */
export function installRateLimit(app: FastifyInstance, limiter: RateLimiter): void {
  const { limit } = limiter;
  app.addHook('onRequest', async (request) => {
    const principal = request.principal;
    if (!principal) return;
    const caller = principal.apiKey
      ? `key ${principal.apiKey.id}`
      : `user ${principal.userId} ${principal.organizationId}`;
    const retryAfter = limiter.take(caller);
    if (retryAfter === undefined) return;
    throw new ProblemError(
      429,
      'rate_limited',
      'Too many requests',
      `More than ${limit.requests} requests in ${limit.perSeconds} s; retry after ${retryAfter} s.`,
      undefined,
      { 'retry-after': String(retryAfter) },
    );
  });
}

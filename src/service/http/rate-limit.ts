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

/** One token bucket per caller: it holds `requests` tokens and refills them over `perSeconds`. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; updatedMs: number }>();
  private readonly tokensPerMs: number;

  constructor(
    readonly limit: RateLimit,
    private readonly now: () => number,
  ) {
    this.tokensPerMs = limit.requests / (limit.perSeconds * 1000);
  }

  /** The whole seconds `caller` must wait for a token, without taking one; undefined: none. */
  wait(caller: string): number | undefined {
    const nowMs = this.now();
    const bucket = this.buckets.get(caller);
    if (!bucket) return undefined;
    const tokens = Math.min(
      this.limit.requests,
      bucket.tokens + (nowMs - bucket.updatedMs) * this.tokensPerMs,
    );
    return tokens >= 1 ? undefined : Math.max(1, Math.ceil((1 - tokens) / this.tokensPerMs / 1000));
  }

  /** Forgets `caller` (a successful login clears its failures). */
  forget(caller: string): void {
    this.buckets.delete(caller);
  }

  /** Takes a token for `caller`; returns the whole seconds to wait when there is none. */
  take(caller: string): number | undefined {
    const nowMs = this.now();
    const bucket = this.buckets.get(caller) ?? { tokens: this.limit.requests, updatedMs: nowMs };
    bucket.tokens = Math.min(
      this.limit.requests,
      bucket.tokens + (nowMs - bucket.updatedMs) * this.tokensPerMs,
    );
    bucket.updatedMs = nowMs;
    this.buckets.set(caller, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.tokensPerMs / 1000));
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

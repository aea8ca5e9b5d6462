import { setTimeout as delay } from 'node:timers/promises';
import { isApiError } from '../service-client/errors';
import type { CallOptions } from '../service-client/http';

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** Paced requests go at this share of the rate the service was seen to allow. */
const PACE_SHARE = 0.95;
/** While paced, every this many requests without a 429 the pace quickens by PROBE_STEP … */
const PROBE_EVERY = 200;
/** … so that a rate first estimated low (the service busy with others then) is found again. */
const PROBE_STEP = 0.02;

export const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal });

/**
 * One pause shared by every request of a run: when the service answers 429, nothing is sent
 * until its Retry-After has passed (or, without one, a backoff that doubles up to 30 s), then
 * the refused request is sent again.
 *
 * A rate limit is a bucket that refills at a steady rate: the first 429 says only that the burst
 * is spent. The requests that succeed between it and the next 429 say how fast the bucket
 * refills; from then on requests are spaced just under that rate, so a long sync keeps to the
 * limit rather than meeting it every few seconds (each meeting costs a refused request per
 * request in flight, and a wait rounded up to whole seconds).
 */
export class RateGate {
  private until = 0;
  private backoffMs = FIRST_BACKOFF_MS;
  /** Milliseconds between requests while paced; null until a rate has been seen. */
  private intervalMs: number | null = null;
  private nextSlotMs = 0;
  private lastRefusalMs: number | null = null;
  private successesSinceRefusal = 0;
  /** Pauses (429s that closed the gate). */
  waits = 0;
  /** Every 429 answer, those of requests already in flight when the gate closed included. */
  refusals = 0;

  constructor(
    private readonly now: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    private readonly onWait: (until: number | null) => void,
  ) {}

  /** The pace requests keep to (per second), once a 429 has shown the service's rate. */
  get pacePerSecond(): number | null {
    return this.intervalMs === null ? null : 1000 / this.intervalMs;
  }

  /** Calls `request` once the gate is open (and its turn in the pace has come), again after every 429. */
  async call<T>(request: (options: CallOptions) => Promise<T>, signal: AbortSignal): Promise<T> {
    for (;;) {
      await this.open(signal);
      await this.turn(signal);
      try {
        const result = await request({ signal, rateLimits: 'caller' });
        this.succeeded();
        return result;
      } catch (error) {
        if (!isApiError(error) || error.kind !== 'rate_limited') throw error;
        this.refused(error.retryAfterMs);
      }
    }
  }

  private succeeded(): void {
    this.backoffMs = FIRST_BACKOFF_MS;
    this.successesSinceRefusal++;
    if (this.intervalMs !== null && this.successesSinceRefusal % PROBE_EVERY === 0)
      this.intervalMs *= 1 - PROBE_STEP;
  }

  private refused(retryAfterMs: number | undefined): void {
    const now = this.now();
    this.refusals++;
    // A request sent before the gate closed: the same refusal, not news about the rate.
    if (this.until <= now) {
      this.waits++;
      if (
        this.lastRefusalMs !== null &&
        now > this.lastRefusalMs &&
        this.successesSinceRefusal > 0
      ) {
        const allowedPerMs = this.successesSinceRefusal / (now - this.lastRefusalMs);
        this.intervalMs = 1 / (allowedPerMs * PACE_SHARE);
      }
      this.lastRefusalMs = now;
      this.successesSinceRefusal = 0;
    }
    const waitMs = retryAfterMs ?? this.backoffMs;
    if (retryAfterMs === undefined) this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    this.until = Math.max(this.until, now + waitMs);
  }

  /**
   * Waits out the pause, if any, including any extension a later 429 made meanwhile (stopping
   * early only if the clock does not move, as with a test's instant sleep).
   */
  private async open(signal: AbortSignal): Promise<void> {
    let left = this.until - this.now();
    if (left <= 0) return;
    this.onWait(this.until);
    while (left > 0) {
      const before = this.now();
      await this.sleep(left, signal);
      if (this.now() === before) break;
      left = this.until - this.now();
    }
    this.onWait(null);
  }

  /** Takes the next slot of the pace and waits for it (no wait while not paced). */
  private async turn(signal: AbortSignal): Promise<void> {
    if (this.intervalMs === null) return;
    const now = this.now();
    const at = Math.max(now, this.nextSlotMs);
    this.nextSlotMs = at + this.intervalMs;
    if (at > now) await this.sleep(at - now, signal);
  }
}

import { setTimeout as delay } from 'node:timers/promises';
import { isApiError } from '../api/errors';
import type { CallOptions } from '../api/http';

const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;

export const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal });

/**
 * One pause shared by every request of a run: when the service answers 429, nothing is sent
 * until its Retry-After has passed (or, without one, a backoff that doubles up to 30 s), then
 * the refused request is sent again.
 */
export class RateGate {
  private until = 0;
  private backoffMs = FIRST_BACKOFF_MS;
  waits = 0;

  constructor(
    private readonly now: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    private readonly onWait: (until: number | null) => void,
  ) {}

  /** Calls `request` once the gate is open, again after every 429. */
  async call<T>(request: (options: CallOptions) => Promise<T>, signal: AbortSignal): Promise<T> {
    for (;;) {
      await this.open(signal);
      try {
        const result = await request({ signal });
        this.backoffMs = FIRST_BACKOFF_MS;
        return result;
      } catch (error) {
        if (!isApiError(error) || error.kind !== 'rate_limited') throw error;
        const waitMs = error.retryAfterMs ?? this.backoffMs;
        if (error.retryAfterMs === undefined)
          this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
        this.until = Math.max(this.until, this.now() + waitMs);
        this.waits++;
      }
    }
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
}

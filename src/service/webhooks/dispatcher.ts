import { checkDestination, publicOnlyLookup, type WebhookDestinations } from './destinations';
import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import {
  DELIVERY_HEADER,
  EVENT_HEADER,
  SIGNATURE_HEADER,
  TEST_EVENT_ID_PREFIX,
  WEBHOOK_DISABLE_AFTER_FAILURES,
  type ServiceEvent,
} from '../../shared/api';
import type { ServiceDatabase } from '../db/database';
import { readMeta, writeMeta } from '../db/database';
import {
  subscribes,
  type QueuedDelivery,
  type WebhookRow,
  type WebhookStore,
} from '../db/webhook-store';
import { newEventId, type EventLog } from '../events/event-log';
import { signBody } from './signature';

/** Seed §6.2: about 1 s, 16 s, 81 s, 4 min, 10 min — n⁴ seconds for the n-th retry. */
export const DEFAULT_WEBHOOK_BACKOFF_MS: readonly number[] = [
  1_000, 16_000, 81_000, 256_000, 625_000,
];
/** How long a receiver has to answer (the seed does not show its value). */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;
/** Each retry waits its backoff times a random factor in [1 - JITTER, 1 + JITTER]. */
const BACKOFF_JITTER = 0.1;

/** Events up to this sequence number have been queued (written by the migration to version 2). */
const FANOUT_CURSOR_KEY = 'webhook-fanout-seq';
const FANOUT_BATCH = 500;
const MAX_IN_FLIGHT = 16;
/** setTimeout cannot wait longer; a later delivery is simply re-armed when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface DispatcherDeps {
  db: ServiceDatabase;
  store: WebhookStore;
  events: EventLog;
  now: () => number;
  /** The wait before each of the retries; its length is the number of retries. */
  backoffMs: readonly number[];
  timeoutMs: number;
  /** Where deliveries may go: checked again at each attempt. */
  destinations: WebhookDestinations;
}

type Outcome = 'success' | 'retry' | 'final';

interface AttemptResult {
  httpStatusCode: number;
  responseTimeMs: number;
  /** Set when no response arrived. */
  error?: string;
}

/**
 * Seed §6.2: 2xx succeeds; no response, 408, 429 and 5xx fail and are retried; other answers
 * (3xx, which is not followed, and the other 4xx) fail for good: the receiver has answered.
 */
export function outcomeOf(httpStatusCode: number): Outcome {
  if (httpStatusCode >= 200 && httpStatusCode < 300) return 'success';
  if (httpStatusCode === 0 || httpStatusCode === 408 || httpStatusCode === 429) return 'retry';
  return httpStatusCode >= 500 ? 'retry' : 'final';
}

const jittered = (ms: number) =>
  Math.round(ms * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * Math.random()));

/**
 * Delivers events to webhooks, at least once. New events are read from the durable event log
 * (whatever appended them) and fanned out into the `webhook_queue` table in the same transaction
 * that advances a cursor, so none is queued twice or lost; a queued delivery leaves the queue only
 * when it succeeds or runs out of attempts. A restarted service resumes where it stopped.
 */
export class WebhookDispatcher {
  private timer: NodeJS.Timeout | undefined;
  private wakePending = false;
  private stopped = false;
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly shutdown = new AbortController();
  private readonly agent: Agent;

  constructor(private readonly deps: DispatcherDeps) {
    // Connections go only to addresses the policy allows, whatever a name resolves to later.
    this.agent = new Agent({
      keepAliveTimeout: 4_000,
      ...(deps.destinations === 'public' ? { connect: { lookup: publicOnlyLookup } } : {}),
    });
  }

  /** Queues what the log holds beyond the cursor and sends what is due (also after a restart). */
  start(): void {
    this.wake();
  }

  /** Runs the dispatcher soon, after the current transaction (if any) is over. */
  wake(): void {
    if (this.stopped || this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.run();
    });
  }

  /** Sends a ping (evt_test_ id, data {test: true}) to one webhook now; true when it succeeded. */
  async ping(webhook: WebhookRow): Promise<{ success: boolean; eventId: string }> {
    const event: ServiceEvent = {
      id: newEventId(TEST_EVENT_ID_PREFIX),
      type: 'ping',
      organizationId: webhook.organization_id,
      timestamp: new Date(this.deps.now()).toISOString(),
      data: { test: true },
    };
    this.queue(webhook, event);
    const queued = this.deps.store.queued(webhook.id, event.id)!;
    return { success: await this.attempt(queued), eventId: event.id };
  }

  /**
   * Whether it has nothing left to send a webhook: every event logged so far fanned out, none of
   * its deliveries queued (a retry to come included) or under way. Until then a delivery may
   * still arrive; after, none will until a new event is logged — what "nothing more was sent"
   * can be checked against.
   */
  settled(webhookId: string): boolean {
    const cursor = Number(readMeta(this.deps.db, FANOUT_CURSOR_KEY) ?? 0);
    return (
      this.deps.events.since(cursor, 1).length === 0 &&
      !this.deps.store.hasQueued(webhookId) &&
      ![...this.inFlight.keys()].some((key) => key.startsWith(`${webhookId} `))
    );
  }

  /** Stops sending: attempts under way are abandoned unlogged (and resent after a restart). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.shutdown.abort();
    await Promise.allSettled(this.inFlight.values());
    await this.agent.destroy();
  }

  private run(): void {
    if (this.stopped) return;
    this.fanOut();
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room > 0) {
      for (const delivery of this.deps.store.due(this.deps.now(), room))
        void this.attempt(delivery);
    }
    this.arm();
  }

  /** Arms one timer for the earliest queued delivery. */
  private arm(): void {
    clearTimeout(this.timer);
    const due = this.deps.store.nextDueMs();
    if (this.stopped || due === undefined || this.inFlight.size >= MAX_IN_FLIGHT) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, due - this.deps.now()));
    this.timer = setTimeout(() => this.run(), delay);
    this.timer.unref();
  }

  private fanOut(): void {
    const { db, events, store } = this.deps;
    let more = true;
    while (more) {
      more = db.transaction(() => {
        const cursor = Number(readMeta(db, FANOUT_CURSOR_KEY) ?? 0);
        const batch = events.since(cursor, FANOUT_BATCH);
        for (const { seq, ...event } of batch) {
          for (const webhook of store.subscribers(event.organizationId, seq)) {
            if (subscribes(webhook, event.type)) this.queue(webhook, event);
          }
        }
        if (batch.length > 0) writeMeta(db, FANOUT_CURSOR_KEY, String(batch.at(-1)!.seq));
        return batch.length === FANOUT_BATCH;
      })();
    }
  }

  private queue(webhook: WebhookRow, event: ServiceEvent): void {
    this.deps.store.enqueue({
      webhook_id: webhook.id,
      event_id: event.id,
      event_type: event.type,
      body: JSON.stringify(event),
      next_attempt_ms: this.deps.now(),
    });
  }

  /** One attempt, logged with its outcome; resolves to whether it succeeded. */
  private attempt(delivery: QueuedDelivery): Promise<boolean> {
    const key = `${delivery.webhook_id} ${delivery.event_id}`;
    const running = this.inFlight.get(key);
    if (running) return running;
    // Leased while under way, so the timer does not pick it again; a crash lets the lease lapse.
    this.deps.store.reschedule(
      delivery,
      delivery.attempts,
      this.deps.now() + this.deps.timeoutMs + 1_000,
    );
    const attempt = this.send(delivery).then((result) => {
      this.inFlight.delete(key);
      if (result === undefined) {
        this.deps.store.reschedule(delivery, delivery.attempts, delivery.next_attempt_ms);
        return false;
      }
      const success = this.record(delivery, result);
      this.wake();
      return success;
    });
    this.inFlight.set(key, attempt);
    return attempt;
  }

  /** POSTs the queued body; undefined when the service is stopping (not an attempt). */
  private async send(delivery: QueuedDelivery): Promise<AttemptResult | undefined> {
    const { timeoutMs } = this.deps;
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      await checkDestination(delivery.url, this.deps.destinations);
      const response = await request(delivery.url, {
        method: 'POST',
        body: delivery.body,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'clinic-service-webhooks',
          [SIGNATURE_HEADER]: signBody(delivery.secret, delivery.body),
          [EVENT_HEADER]: delivery.event_type,
          [DELIVERY_HEADER]: delivery.event_id,
        },
        dispatcher: this.agent,
        signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), this.shutdown.signal]),
      });
      await response.body.dump();
      return { httpStatusCode: response.statusCode, responseTimeMs: elapsed() };
    } catch (error) {
      if (this.shutdown.signal.aborted) return undefined;
      const { name, code, message } = error as { name?: string; code?: string; message?: string };
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      return {
        httpStatusCode: 0,
        responseTimeMs: elapsed(),
        error: timedOut
          ? `No response within ${timeoutMs} ms.`
          : `${code ? `${code}: ` : ''}${message ?? String(error)}`,
      };
    }
  }

  /** Logs the attempt, then dequeues, reschedules or disables, in one transaction. */
  private record(delivery: QueuedDelivery, result: AttemptResult): boolean {
    const { db, store, backoffMs, now } = this.deps;
    const outcome = outcomeOf(result.httpStatusCode);
    const attemptNumber = delivery.attempts + 1;
    const willRetry = outcome === 'retry' && attemptNumber <= backoffMs.length;
    db.transaction(() => {
      const webhook = store.webhook(delivery.webhook_id);
      if (!webhook) return; // deleted while the attempt was under way
      store.recordAttempt({
        webhookId: delivery.webhook_id,
        eventId: delivery.event_id,
        eventType: delivery.event_type,
        attemptNumber,
        httpStatusCode: result.httpStatusCode,
        responseTimeMs: result.responseTimeMs,
        errorMessage: errorMessage(result, outcome, willRetry),
        success: outcome === 'success',
        createdMs: now(),
      });
      // Disabled while the attempt was under way: logged, but its queue and count are settled.
      if (webhook.is_active !== 1) return;
      if (outcome === 'success') {
        store.dequeue(delivery);
        store.resetFailures(delivery.webhook_id);
        return;
      }
      if (store.countFailure(delivery.webhook_id) >= WEBHOOK_DISABLE_AFTER_FAILURES) {
        store.disable(delivery.webhook_id);
      } else if (willRetry) {
        const waitMs = jittered(backoffMs[attemptNumber - 1]!);
        store.reschedule(delivery, attemptNumber, now() + waitMs);
      } else {
        store.dequeue(delivery);
      }
    })();
    return outcome === 'success';
  }
}

function errorMessage(result: AttemptResult, outcome: Outcome, willRetry: boolean): string | null {
  if (outcome === 'success') return null;
  const what = result.error ?? `The receiver answered HTTP ${result.httpStatusCode}.`;
  if (willRetry) return `${what} Will retry.`;
  if (outcome === 'final')
    return `${what} Not retried: 3xx and 4xx answers other than 408 and 429 are final.`;
  return `${what} No retries left.`;
}

import { randomUUID } from 'node:crypto';
import { DELIVERIES_RETURNED, type Delivery, type Webhook } from '../../shared/api';
import { all, get, run } from '../../node-common/sql';
import type { ServiceDatabase } from './database';

export interface WebhookRow {
  id: string;
  organization_id: string;
  url: string;
  description: string;
  event_types: string;
  secret: string;
  is_active: number;
  consecutive_failures: number;
  created_ms: number;
  after_seq: number;
}

/** A queued delivery with what sending it needs from its webhook. */
export interface QueuedDelivery {
  webhook_id: string;
  event_id: string;
  event_type: string;
  body: string;
  attempts: number;
  next_attempt_ms: number;
  url: string;
  secret: string;
}

export type DeliveryRecord = Omit<Delivery, 'id' | 'createdAt'> & {
  webhookId: string;
  createdMs: number;
};

interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  attempt_number: number;
  http_status_code: number;
  response_time_ms: number;
  error_message: string | null;
  success: number;
  created_ms: number;
}

export const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  description: row.description,
  eventTypes: JSON.parse(row.event_types) as string[],
  isActive: row.is_active === 1,
  consecutiveFailures: row.consecutive_failures,
  createdAt: new Date(row.created_ms).toISOString(),
});

/** Whether the webhook receives events of `type`: an empty eventTypes means every event. */
export function subscribes(row: WebhookRow, type: string): boolean {
  const types = JSON.parse(row.event_types) as string[];
  return types.length === 0 || types.includes(type);
}

/** Webhooks, their durable delivery queue and the log of attempts (seed §2.8, §6.2). */
export class WebhookStore {
  constructor(private readonly db: ServiceDatabase) {}

  create(input: {
    organizationId: string;
    url: string;
    description: string;
    eventTypes: readonly string[];
    secret: string;
    createdMs: number;
    afterSeq: number;
  }): WebhookRow {
    const row: WebhookRow = {
      id: randomUUID(),
      organization_id: input.organizationId,
      url: input.url,
      description: input.description,
      event_types: JSON.stringify(input.eventTypes),
      secret: input.secret,
      is_active: 1,
      consecutive_failures: 0,
      created_ms: input.createdMs,
      after_seq: input.afterSeq,
    };
    run(
      this.db,
      `INSERT INTO webhooks (id, organization_id, url, description, event_types, secret, is_active, consecutive_failures, created_ms, after_seq)
         VALUES (@id, @organization_id, @url, @description, @event_types, @secret, @is_active, @consecutive_failures, @created_ms, @after_seq)`,
      row,
    );
    return row;
  }

  webhook(id: string): WebhookRow | undefined {
    return get<WebhookRow>(this.db, 'SELECT * FROM webhooks WHERE id = ?', id);
  }

  webhooks(organizationId: string): WebhookRow[] {
    return all<WebhookRow>(
      this.db,
      'SELECT * FROM webhooks WHERE organization_id = ? ORDER BY created_ms, rowid',
      organizationId,
    );
  }

  delete(id: string): void {
    run(this.db, 'DELETE FROM webhooks WHERE id = ?', id);
  }

  /** Re-activates a webhook: its failure count restarts and it receives events from now on. */
  enable(id: string, afterSeq: number): void {
    run(
      this.db,
      'UPDATE webhooks SET is_active = 1, consecutive_failures = 0, after_seq = ? WHERE id = ? AND is_active = 0',
      [afterSeq, id],
    );
  }

  /** Deactivates a webhook and drops the deliveries it still had queued. */
  disable(id: string): void {
    run(this.db, 'UPDATE webhooks SET is_active = 0 WHERE id = ?', id);
    run(this.db, 'DELETE FROM webhook_queue WHERE webhook_id = ?', id);
  }

  /** Active webhooks of the organization created before the event numbered `seq`. */
  subscribers(organizationId: string, seq: number): WebhookRow[] {
    return all<WebhookRow>(
      this.db,
      'SELECT * FROM webhooks WHERE organization_id = ? AND is_active = 1 AND after_seq < ?',
      [organizationId, seq],
    );
  }

  enqueue(delivery: Omit<QueuedDelivery, 'url' | 'secret' | 'attempts'>): void {
    run(
      this.db,
      `INSERT OR IGNORE INTO webhook_queue (webhook_id, event_id, event_type, body, attempts, next_attempt_ms)
         VALUES (@webhook_id, @event_id, @event_type, @body, 0, @next_attempt_ms)`,
      delivery,
    );
  }

  queued(webhookId: string, eventId: string): QueuedDelivery | undefined {
    return get<QueuedDelivery>(
      this.db,
      `SELECT q.*, w.url, w.secret FROM webhook_queue q JOIN webhooks w ON w.id = q.webhook_id
         WHERE q.webhook_id = ? AND q.event_id = ?`,
      [webhookId, eventId],
    );
  }

  /** Deliveries of active webhooks due at or before `ms`, earliest first. */
  due(ms: number, limit: number): QueuedDelivery[] {
    return all<QueuedDelivery>(
      this.db,
      `SELECT q.*, w.url, w.secret FROM webhook_queue q JOIN webhooks w ON w.id = q.webhook_id
         WHERE q.next_attempt_ms <= ? AND w.is_active = 1 ORDER BY q.next_attempt_ms LIMIT ?`,
      [ms, limit],
    );
  }

  /** Whether any delivery to the webhook is queued (due, waiting for a retry, or leased). */
  hasQueued(webhookId: string): boolean {
    return (
      get<{ one: number }>(
        this.db,
        'SELECT 1 AS one FROM webhook_queue WHERE webhook_id = ? LIMIT 1',
        webhookId,
      ) !== undefined
    );
  }

  nextDueMs(): number | undefined {
    const row = get<{ due: number | null }>(
      this.db,
      `SELECT min(q.next_attempt_ms) AS due FROM webhook_queue q JOIN webhooks w ON w.id = q.webhook_id
         WHERE w.is_active = 1`,
    );
    return row!.due ?? undefined;
  }

  /** Sets when the delivery is next attempted, and how many attempts it has had. */
  reschedule(delivery: QueuedDelivery, attempts: number, nextAttemptMs: number): void {
    run(
      this.db,
      'UPDATE webhook_queue SET attempts = ?, next_attempt_ms = ? WHERE webhook_id = ? AND event_id = ?',
      [attempts, nextAttemptMs, delivery.webhook_id, delivery.event_id],
    );
  }

  dequeue(delivery: QueuedDelivery): void {
    run(this.db, 'DELETE FROM webhook_queue WHERE webhook_id = ? AND event_id = ?', [
      delivery.webhook_id,
      delivery.event_id,
    ]);
  }

  /** Logs one attempt and keeps only the newest ones of the webhook. */
  recordAttempt(record: DeliveryRecord): void {
    run(
      this.db,
      `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, attempt_number, http_status_code,
           response_time_ms, error_message, success, created_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        randomUUID(),
        record.webhookId,
        record.eventId,
        record.eventType,
        record.attemptNumber,
        record.httpStatusCode,
        record.responseTimeMs,
        record.errorMessage,
        Number(record.success),
        record.createdMs,
      ],
    );
    run(
      this.db,
      `DELETE FROM webhook_deliveries WHERE webhook_id = @id AND seq <=
           (SELECT seq FROM webhook_deliveries WHERE webhook_id = @id ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
      { id: record.webhookId, keep: DELIVERIES_RETURNED },
    );
  }

  /** Counts a failed attempt; returns the webhook's consecutive failures. */
  countFailure(id: string): number {
    const row = get<{ consecutive_failures: number }>(
      this.db,
      'UPDATE webhooks SET consecutive_failures = consecutive_failures + 1 WHERE id = ? RETURNING consecutive_failures',
      id,
    );
    return row!.consecutive_failures;
  }

  resetFailures(id: string): void {
    run(this.db, 'UPDATE webhooks SET consecutive_failures = 0 WHERE id = ?', id);
  }

  /** The newest attempts first. */
  deliveries(webhookId: string): Delivery[] {
    const rows = all<DeliveryRow>(
      this.db,
      'SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?',
      [webhookId, DELIVERIES_RETURNED],
    );
    return rows.map((row) => ({
      id: row.id,
      eventId: row.event_id,
      eventType: row.event_type,
      attemptNumber: row.attempt_number,
      httpStatusCode: row.http_status_code,
      responseTimeMs: row.response_time_ms,
      errorMessage: row.error_message,
      success: row.success === 1,
      createdAt: new Date(row.created_ms).toISOString(),
    }));
  }
}

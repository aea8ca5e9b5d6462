import { randomBytes } from 'node:crypto';
import { EVENT_ID_PREFIX, type EventData, type ServiceEvent } from '../../shared/api';
import { all, get, run } from '../../node-common/sql';
import type { ServiceDatabase } from '../db/database';

export type LoggedEventType = keyof EventData;

interface EventRow {
  seq: number;
  id: string;
  organization_id: string;
  type: string;
  timestamp_ms: number;
  data: string;
}

export const newEventId = (prefix = EVENT_ID_PREFIX) => prefix + randomBytes(12).toString('hex');

/**
 * The durable log of every event (seed §6.1). Callers append inside the transaction that makes
 * the change, so an event exists exactly when its change does; webhook delivery reads from here.
 */
export class EventLog {
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly db: ServiceDatabase,
    private readonly now: () => number,
  ) {}

  append<T extends LoggedEventType>(organizationId: string, type: T, data: EventData[T]): string {
    const id = newEventId();
    run(
      this.db,
      'INSERT INTO events (id, organization_id, type, timestamp_ms, data) VALUES (?, ?, ?, ?, ?)',
      [id, organizationId, type, this.now(), JSON.stringify(data)],
    );
    for (const listener of this.listeners) listener();
    return id;
  }

  /**
   * Calls `listener` after each append. It runs inside the appending transaction, so it should
   * only schedule work (the webhook dispatcher reads the log once the transaction is over).
   */
  onAppend(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The sequence number of the newest event (0 for an empty log). */
  lastSeq(): number {
    const row = get<{ seq: number | null }>(this.db, 'SELECT max(seq) AS seq FROM events');
    return row!.seq ?? 0;
  }

  /** Events after `afterSeq`, oldest first. */
  since(afterSeq: number, limit = 1000): (ServiceEvent & { seq: number })[] {
    const rows = all<EventRow>(this.db, 'SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ?', [
      afterSeq,
      limit,
    ]);
    return rows.map((row) => ({
      seq: row.seq,
      id: row.id,
      type: row.type as ServiceEvent['type'],
      organizationId: row.organization_id,
      timestamp: new Date(row.timestamp_ms).toISOString(),
      data: JSON.parse(row.data) as Record<string, unknown>,
    }));
  }
}

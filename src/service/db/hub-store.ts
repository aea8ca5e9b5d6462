import type { ConversationStatus, Device } from '../../shared/api';
import type { HubMinute } from '../hub/simulator';
import { all, get, run } from '../../node-common/sql';
import type { ServiceDatabase } from './database';
import type { GeneratedMinutes } from '../hub/generated-minutes';
import type { MinuteRow } from './minute-row';

export interface DeviceRow {
  id: string;
  organization_id: string;
  display_name: string;
  serial: string;
}

export type ConversationOrigin = 'api' | 'auto' | 'button';

export interface ConversationRow {
  id: string;
  organization_id: string;
  device_id: string;
  start_ms: number;
  end_ms: number;
  status: ConversationStatus;
  speech_minute_count: number;
  origin: ConversationOrigin;
  not_importable_reason: string;
  transcript_text: string;
  label_id: string | null;
  created_ms: number;
  completed_ms: number | null;
  next_step_ms: number | null;
}

export interface ConversationPageQuery {
  organizationId: string;
  deviceId?: string;
  status?: ConversationStatus;
  /** Only conversations whose range overlaps [startMs, endMs); either bound alone is open-ended. */
  startMs?: number;
  endMs?: number;
  /** Keyset cursor: the last row of the previous page. */
  after?: { createdMs: number; id: string };
  limit: number;
}

export const toDevice = (row: DeviceRow): Device => ({
  value: row.id,
  displayName: row.display_name,
  serial: row.serial,
});

export class HubStore {
  /**
   * `generated`: minutes computed when asked for rather than stored (the scale seed's hospital);
   * they are read together with the stored ones.
   */
  constructor(
    private readonly db: ServiceDatabase,
    readonly generated?: GeneratedMinutes,
  ) {}

  createDevice(row: DeviceRow): void {
    run(
      this.db,
      'INSERT INTO devices (id, organization_id, display_name, serial) VALUES (@id, @organization_id, @display_name, @serial)',
      row,
    );
  }

  device(id: string): DeviceRow | undefined {
    return get<DeviceRow>(this.db, 'SELECT * FROM devices WHERE id = ?', id);
  }

  devices(organizationId?: string, limit = -1): DeviceRow[] {
    if (organizationId === undefined)
      return all<DeviceRow>(this.db, 'SELECT * FROM devices ORDER BY id');
    return all<DeviceRow>(
      this.db,
      'SELECT * FROM devices WHERE organization_id = ? ORDER BY display_name, id LIMIT ?',
      [organizationId, limit],
    );
  }

  /** Stores minutes, keeping any already there (the simulator may regenerate a partial day). */
  insertMinutes(deviceId: string, minutes: readonly HubMinute[]): void {
    const insert = `INSERT OR IGNORE INTO hub_minutes
        (device_id, minute_ms, speech_ms, transcript, diarized, clips, audio_ok)
      VALUES (?, ?, ?, ?, ?, ?, ?)`;
    for (const m of minutes) {
      run(this.db, insert, [
        deviceId,
        m.minuteMs,
        m.speechMs,
        m.transcript,
        m.diarized,
        JSON.stringify(m.clips),
        Number(m.audioOk),
      ]);
    }
  }

  lastMinuteMs(deviceId: string): number | undefined {
    const row = get<{ last: number | null }>(
      this.db,
      'SELECT max(minute_ms) AS last FROM hub_minutes WHERE device_id = ?',
      deviceId,
    );
    return row!.last ?? undefined;
  }

  /** Minutes whose start lies in [startMs, endMs), oldest first, stored or generated. */
  minutes(deviceId: string, startMs: number, endMs: number): MinuteRow[] {
    const stored = all<MinuteRow>(
      this.db,
      `SELECT minute_ms, speech_ms, transcript, diarized, clips, audio_ok FROM hub_minutes
         WHERE device_id = ? AND minute_ms >= ? AND minute_ms < ? ORDER BY minute_ms`,
      [deviceId, startMs, endMs],
    );
    const generated = this.generated?.minutes(deviceId, startMs, endMs) ?? [];
    if (generated.length === 0) return stored;
    // A stored minute is the one recorded: it wins over a generated one.
    const byMinute = new Map(generated.map((m) => [m.minute_ms, m]));
    for (const m of stored) byMinute.set(m.minute_ms, m);
    return [...byMinute.values()].sort((a, b) => a.minute_ms - b.minute_ms);
  }

  insertConversation(row: ConversationRow): void {
    run(
      this.db,
      `INSERT INTO conversations (id, organization_id, device_id, start_ms, end_ms, status, speech_minute_count, origin,
           not_importable_reason, transcript_text, label_id, created_ms, completed_ms, next_step_ms)
         VALUES (@id, @organization_id, @device_id, @start_ms, @end_ms, @status, @speech_minute_count, @origin,
           @not_importable_reason, @transcript_text, @label_id, @created_ms, @completed_ms, @next_step_ms)`,
      row,
    );
  }

  conversation(id: string): ConversationRow | undefined {
    return get<ConversationRow>(this.db, 'SELECT * FROM conversations WHERE id = ?', id);
  }

  /** The first conversation on the device whose range intersects [startMs, endMs), if any. */
  overlapping(deviceId: string, startMs: number, endMs: number): ConversationRow | undefined {
    return get<ConversationRow>(
      this.db,
      'SELECT * FROM conversations WHERE device_id = ? AND start_ms < ? AND end_ms > ? ORDER BY start_ms LIMIT 1',
      [deviceId, endMs, startMs],
    );
  }

  /** Newest first; ties on created_ms broken by id so the keyset cursor is total. */
  conversationPage(query: ConversationPageQuery): ConversationRow[] {
    const where = ['organization_id = @organizationId'];
    if (query.deviceId !== undefined) where.push('device_id = @deviceId');
    if (query.status !== undefined) where.push('status = @status');
    if (query.startMs !== undefined) where.push('end_ms > @startMs');
    if (query.endMs !== undefined) where.push('start_ms < @endMs');
    if (query.after)
      where.push('(created_ms < @afterMs OR (created_ms = @afterMs AND id < @afterId))');
    return all<ConversationRow>(
      this.db,
      `SELECT * FROM conversations WHERE ${where.join(' AND ')} ORDER BY created_ms DESC, id DESC LIMIT @limit`,
      {
        organizationId: query.organizationId,
        deviceId: query.deviceId,
        status: query.status,
        startMs: query.startMs,
        endMs: query.endMs,
        afterMs: query.after?.createdMs,
        afterId: query.after?.id,
        limit: query.limit,
      },
    );
  }

  updateConversation(id: string, changes: Partial<Omit<ConversationRow, 'id'>>): void {
    const columns = Object.keys(changes);
    if (columns.length === 0) return;
    run(
      this.db,
      `UPDATE conversations SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`,
      { ...changes, id },
    );
  }

  /** Conversations whose next processing step is due at or before `ms`. */
  dueConversations(ms: number): ConversationRow[] {
    return all<ConversationRow>(
      this.db,
      'SELECT * FROM conversations WHERE next_step_ms IS NOT NULL AND next_step_ms <= ? ORDER BY next_step_ms',
      ms,
    );
  }

  nextDueMs(): number | undefined {
    const row = get<{ due: number | null }>(
      this.db,
      'SELECT min(next_step_ms) AS due FROM conversations',
    );
    return row!.due ?? undefined;
  }
}

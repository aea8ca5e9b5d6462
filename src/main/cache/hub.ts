import type {
  Conversation,
  ConversationStatus,
  Device,
  Identity,
  TimelineMinute,
  TranscriptState,
} from '../../shared/api';
import { TERMINAL_STATUSES } from '../../shared/api/values';
import type { CreatedRange } from '../../shared/ipc';
import { all, flag, get, run, upsert, type Db } from '../../node-common/sql';
import { conversationAge } from './retention';
import { saveSyncState, type SyncStateWrite } from './sync-state';

interface ConversationRow {
  id: string;
  device_id: string;
  status: ConversationStatus;
  speech_minute_count: number;
  transcript_state: TranscriptState;
  is_importable: number;
  not_importable_reason: string;
  transcript_text: string;
  start_ms: number | null;
  end_ms: number | null;
  label_id: string | null;
}

interface MinuteRow {
  minute_ms: number;
  vad_is_silent: number;
  vad_speech_ms: number;
  transcript: string;
  diarized: string;
}

interface RangeRow {
  conversation_id: string;
  device_id: string;
  start_ms: number;
  end_ms: number;
  created_at: string;
}

/**
 * A listed conversation's place in the list: its position in its walk, in a band of positions
 * below every earlier walk's (a walk lists the list from its top; one not listed again keeps its
 * place after those that were). In SQL: 64-bit integers, exact where a JS number is not. Walks
 * start at least a millisecond apart and list fewer than 2^20 conversations each; the bands go
 * below zero for centuries. Before, each page with new conversations moved every older one down
 * by their number: a write of every conversation cached, 0.7 s a sync at 100,000 records and
 * 43 s at a million.
 */
const WALK_BAND = 1 << 20;
const WALKS_FROM_MS = Date.UTC(2026, 0, 1);
// Cast: a bound number may reach SQLite as a REAL, and a REAL this large rounds to 256s.
const WALK_POSITION = `(CAST(@position AS INTEGER)
  - (CAST(@walk AS INTEGER) - ${WALKS_FROM_MS}) * ${WALK_BAND})`;

export interface ConversationPageInput {
  items: readonly Conversation[];
  /** The walk this page belongs to (the time it started). */
  walk: number;
  /** The listing position of the page's first item. */
  startPosition: number;
  seenAt: number;
  /**
   * The text window's start (retention): a conversation older than this is stored without its
   * transcript, as a cleanup leaves it. Absent: every transcript is kept.
   */
  textFromMs?: number;
  state?: SyncStateWrite;
}

export interface ConversationPageResult {
  /** Conversations the cache did not hold. */
  added: number;
  /** Conversations whose status, transcript or counts changed. */
  changed: number;
}

export interface CachedConversationQuery {
  status?: ConversationStatus;
  deviceId?: string;
  limit?: number;
  offset?: number;
}

export interface CachedConversations {
  items: Conversation[];
  total: number;
  /** When the service last showed the least recently seen of these items; null for none. */
  fetchedAt: number | null;
}

export interface TimelineInput {
  deviceId: string;
  startMs: number;
  endMs: number;
  /** Every recorded minute of [startMs, endMs) as the service answered. */
  minutes: readonly TimelineMinute[];
  fetchedAt: number;
}

/** The cached minutes of a range, and how much of the range the cache has fetched. */
export interface CachedTimeline {
  minutes: TimelineMinute[];
  /** Milliseconds of [startMs, endMs) inside fetched windows (absent minutes there had no data). */
  coveredMs: number;
  /** The whole range was fetched: the minutes are the complete answer as of `fetchedAt`. */
  complete: boolean;
  /** When the oldest part of the covered range was fetched; null when none was. */
  fetchedAt: number | null;
}

const toConversation = (row: ConversationRow): Conversation => ({
  conversationId: row.id,
  deviceId: row.device_id,
  status: row.status,
  speechMinuteCount: row.speech_minute_count,
  transcriptState: row.transcript_state,
  isImportable: row.is_importable === 1,
  notImportableReason: row.not_importable_reason,
  transcriptText: row.transcript_text,
  ...(row.start_ms !== null && row.end_ms !== null
    ? { startMs: row.start_ms, endMs: row.end_ms, labelId: row.label_id }
    : {}),
});

const toRange = (row: RangeRow): CreatedRange => ({
  conversationId: row.conversation_id,
  deviceId: row.device_id,
  startMs: row.start_ms,
  endMs: row.end_ms,
  createdAt: row.created_at,
});

const CONVERSATION_COLUMNS = `id, device_id, status, speech_minute_count, transcript_state,
  is_importable, not_importable_reason, transcript_text, start_ms, end_ms, label_id`;

const conversationParams = (c: Conversation) => ({
  id: c.conversationId,
  deviceId: c.deviceId,
  status: c.status,
  speechMinuteCount: c.speechMinuteCount,
  transcriptState: c.transcriptState,
  isImportable: flag(c.isImportable),
  notImportableReason: c.notImportableReason,
  transcriptText: c.transcriptText,
  startMs: c.startMs ?? null,
  endMs: c.endMs ?? null,
  labelId: c.labelId ?? null,
});

const CONVERSATION_UPDATE = `device_id = excluded.device_id, status = excluded.status,
  speech_minute_count = excluded.speech_minute_count, transcript_state = excluded.transcript_state,
  is_importable = excluded.is_importable, not_importable_reason = excluded.not_importable_reason,
  transcript_text = excluded.transcript_text, start_ms = excluded.start_ms,
  end_ms = excluded.end_ms, label_id = excluded.label_id, seen_at = excluded.seen_at`;

const sameConversation = (row: ConversationRow, c: Conversation) =>
  row.device_id === c.deviceId &&
  row.status === c.status &&
  row.speech_minute_count === c.speechMinuteCount &&
  row.transcript_state === c.transcriptState &&
  row.is_importable === flag(c.isImportable) &&
  row.not_importable_reason === c.notImportableReason &&
  row.transcript_text === c.transcriptText &&
  row.start_ms === (c.startMs ?? null) &&
  row.end_ms === (c.endMs ?? null) &&
  row.label_id === (c.labelId ?? null);

const TERMINAL_JSON = JSON.stringify(TERMINAL_STATUSES);

const AGE_OF_LISTED = `SELECT ${conversationAge({
  id: '@id',
  startMs: '@startMs',
  labelId: '@labelId',
  firstSeenAt: 'coalesce((SELECT first_seen_at FROM conversations WHERE id = @id), @seenAt)',
})} AS age`;

/** A listed conversation's age (retention.ts), whether or not the cache holds it yet. */
const ageOf = (db: Db, c: Conversation, seenAt: number): number =>
  get<{ age: number }>(db, AGE_OF_LISTED, {
    id: c.conversationId,
    startMs: c.startMs ?? null,
    labelId: c.labelId ?? null,
    seenAt,
  })!.age;

/** The fetched windows of a device that intersect [startMs, endMs). */
const coverageWithin = (db: Db, deviceId: string, startMs: number, endMs: number) =>
  all<{ start_ms: number; end_ms: number; fetched_at: number }>(
    db,
    `SELECT start_ms, end_ms, fetched_at FROM timeline_coverage
      WHERE device_id = @deviceId AND start_ms < @endMs AND end_ms > @startMs`,
    { deviceId, startMs, endMs },
  );

export const hubWrites = {
  storeIdentity(db: Db, identity: Identity, fetchedAt: number): void {
    run(
      db,
      upsert('identity', 'singleton', {
        singleton: '1',
        user_id: '@userId',
        email: '@email',
        organization_id: '@organizationId',
        organization_name: '@organizationName',
        body: '@body',
        fetched_at: '@fetchedAt',
      }),
      {
        userId: identity.userId,
        email: identity.email,
        organizationId: identity.organizationId,
        organizationName: identity.organizationName,
        body: JSON.stringify(identity),
        fetchedAt,
      },
    );
  },

  /**
   * Replaces the device list (the service answers it whole): devices it lacks go, the others are
   * updated in place, so a list that did not change changes no device (the review queue reads
   * every item anew when one does: migration 012).
   */
  storeDevices(db: Db, devices: readonly Device[], fetchedAt: number): void {
    db.transaction(() => {
      run(db, 'DELETE FROM devices WHERE id NOT IN (SELECT value FROM json_each(?))', [
        JSON.stringify(devices.map((device) => device.value)),
      ]);
      devices.forEach((device, position) =>
        run(
          db,
          `INSERT INTO devices (id, display_name, serial, position, fetched_at)
           VALUES (@value, @displayName, @serial, @position, @fetchedAt)
           ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name,
             serial = excluded.serial, position = excluded.position, fetched_at = excluded.fetched_at`,
          { ...device, position, fetchedAt },
        ),
      );
    })();
  },

  /**
   * Stores a page of the conversation listing (newest created first) at its positions. The
   * conversations no walk has listed yet this time are older than every new one, so they move
   * down by the number added: the cached order stays the service's after every page.
   */
  storeConversationPage(db: Db, page: ConversationPageInput): ConversationPageResult {
    return db.transaction(() => {
      let added = 0;
      let changed = 0;
      page.items.forEach((listed, index) => {
        const conversation =
          page.textFromMs !== undefined &&
          listed.transcriptText !== '' &&
          ageOf(db, listed, page.seenAt) < page.textFromMs
            ? { ...listed, transcriptText: '' }
            : listed;
        const before = get<ConversationRow>(
          db,
          `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = ?`,
          conversation.conversationId,
        );
        if (!before) added++;
        else if (!sameConversation(before, conversation)) changed++;
        run(
          db,
          `INSERT INTO conversations (${CONVERSATION_COLUMNS}, list_position, listed_in_walk, seen_at,
                                      first_seen_at)
           VALUES (@id, @deviceId, @status, @speechMinuteCount, @transcriptState, @isImportable,
                   @notImportableReason, @transcriptText, @startMs, @endMs, @labelId,
                   ${WALK_POSITION}, @walk, @seenAt, @seenAt)
           ON CONFLICT (id) DO UPDATE SET ${CONVERSATION_UPDATE},
             list_position = excluded.list_position, listed_in_walk = excluded.listed_in_walk`,
          {
            ...conversationParams(conversation),
            position: page.startPosition + index,
            walk: page.walk,
            seenAt: page.seenAt,
          },
        );
      });
      if (page.state) saveSyncState(db, page.state);
      return { added, changed };
    })();
  },

  /** One conversation as fetched (get, complete): a new one goes to the top of the list. */
  storeConversation(db: Db, conversation: Conversation, seenAt: number): void {
    run(
      db,
      `INSERT INTO conversations (${CONVERSATION_COLUMNS}, list_position, listed_in_walk, seen_at,
                                  first_seen_at)
       VALUES (@id, @deviceId, @status, @speechMinuteCount, @transcriptState, @isImportable,
               @notImportableReason, @transcriptText, @startMs, @endMs, @labelId,
               (SELECT coalesce(min(list_position), 0) - 1 FROM conversations), 0, @seenAt,
               @seenAt)
       ON CONFLICT (id) DO UPDATE SET ${CONVERSATION_UPDATE}`,
      { ...conversationParams(conversation), seenAt },
    );
  },

  /** After a complete walk: conversations it did not list are gone from the service. */
  sweepConversations(db: Db, walk: number, state?: SyncStateWrite): number {
    return db.transaction(() => {
      const deleted = run(db, 'DELETE FROM conversations WHERE listed_in_walk < ?', walk);
      if (state) saveSyncState(db, state);
      return deleted;
    })();
  },

  /**
   * Stores the answer for a window of a device's timeline: the minutes in it are replaced and
   * the window is recorded as fetched (overlapping older windows are trimmed around it).
   */
  storeTimeline(db: Db, input: TimelineInput): void {
    const { deviceId, startMs, endMs, fetchedAt } = input;
    db.transaction(() => {
      run(
        db,
        `DELETE FROM timeline_minutes
          WHERE device_id = @deviceId AND minute_ms >= @startMs AND minute_ms < @endMs`,
        { deviceId, startMs, endMs },
      );
      for (const minute of input.minutes) {
        if (minute.minuteStartMs < startMs || minute.minuteStartMs >= endMs) continue;
        run(
          db,
          `INSERT OR REPLACE INTO timeline_minutes
             (device_id, minute_ms, vad_is_silent, vad_speech_ms, transcript, diarized)
           VALUES (@deviceId, @minuteMs, @silent, @speechMs, @transcript, @diarized)`,
          {
            deviceId,
            minuteMs: minute.minuteStartMs,
            silent: flag(minute.vadIsSilent),
            speechMs: minute.vadSpeechDurationMs,
            transcript: minute.transcriptText,
            diarized: minute.diarizedTranscriptText,
          },
        );
      }
      const overlapping = coverageWithin(db, deviceId, startMs, endMs);
      const insert = (start: number, end: number, at: number) =>
        run(
          db,
          `INSERT INTO timeline_coverage (device_id, start_ms, end_ms, fetched_at)
           VALUES (@deviceId, @start, @end, @at)`,
          { deviceId, start, end, at },
        );
      for (const old of overlapping) {
        run(db, 'DELETE FROM timeline_coverage WHERE device_id = ? AND start_ms = ?', [
          deviceId,
          old.start_ms,
        ]);
        if (old.start_ms < startMs) insert(old.start_ms, startMs, old.fetched_at);
        if (old.end_ms > endMs) insert(endMs, old.end_ms, old.fetched_at);
      }
      insert(startMs, endMs, fetchedAt);
    })();
  },

  addCreatedRange(db: Db, range: CreatedRange): void {
    run(
      db,
      upsert('created_ranges', 'conversation_id', {
        conversation_id: '@conversationId',
        device_id: '@deviceId',
        start_ms: '@startMs',
        end_ms: '@endMs',
        created_at: '@createdAt',
      }),
      range,
    );
  },
};

export const hubReads = {
  identity(db: Db): Identity | null {
    const row = get<{ body: string }>(db, 'SELECT body FROM identity WHERE singleton = 1');
    return row ? (JSON.parse(row.body) as Identity) : null;
  },

  devices(db: Db): Device[] {
    return all<Device>(
      db,
      'SELECT id AS value, display_name AS displayName, serial FROM devices ORDER BY position',
    );
  },

  /** The device list and when it was fetched (null when the cache holds none). */
  devicesFetched(db: Db): { devices: Device[]; fetchedAt: number | null } {
    const at = get<{ at: number | null }>(db, 'SELECT min(fetched_at) AS at FROM devices');
    return { devices: hubReads.devices(db), fetchedAt: at?.at ?? null };
  },

  /** Cached conversations in the service's order (newest created first). */
  conversations(db: Db, query: CachedConversationQuery = {}): CachedConversations {
    const filter = `WHERE (@status IS NULL OR status = @status)
      AND (@deviceId IS NULL OR device_id = @deviceId)`;
    const params = { status: query.status ?? null, deviceId: query.deviceId ?? null };
    const total = get<{ n: number }>(
      db,
      `SELECT count(*) AS n FROM conversations ${filter}`,
      params,
    )!.n;
    const rows = all<ConversationRow & { seen_at: number }>(
      db,
      `SELECT ${CONVERSATION_COLUMNS}, seen_at FROM conversations ${filter}
        ORDER BY list_position, seq LIMIT @limit OFFSET @offset`,
      { ...params, limit: query.limit ?? 20, offset: query.offset ?? 0 },
    );
    const fetchedAt = rows.length > 0 ? Math.min(...rows.map((row) => row.seen_at)) : null;
    return { items: rows.map(toConversation), total, fetchedAt };
  },

  conversation(db: Db, deviceId: string, conversationId: string): Conversation | null {
    return hubReads.conversationSeen(db, deviceId, conversationId)?.conversation ?? null;
  },

  /** A cached conversation and when the service last showed it. */
  conversationSeen(
    db: Db,
    deviceId: string,
    conversationId: string,
  ): { conversation: Conversation; seenAt: number } | null {
    const row = get<ConversationRow & { seen_at: number }>(
      db,
      `SELECT ${CONVERSATION_COLUMNS}, seen_at FROM conversations WHERE id = ? AND device_id = ?`,
      [conversationId, deviceId],
    );
    return row ? { conversation: toConversation(row), seenAt: row.seen_at } : null;
  },

  /** Conversations not yet terminal that the walk `walk` has not listed (they may change). */
  openConversationsNotListedIn(db: Db, walk: number): number {
    return get<{ n: number }>(
      db,
      `SELECT count(*) AS n FROM conversations WHERE listed_in_walk < @walk
         AND status NOT IN (SELECT value FROM json_each(@terminal))`,
      { walk, terminal: TERMINAL_JSON },
    )!.n;
  },

  timeline(db: Db, deviceId: string, startMs: number, endMs: number): CachedTimeline {
    const minutes = all<MinuteRow>(
      db,
      `SELECT minute_ms, vad_is_silent, vad_speech_ms, transcript, diarized FROM timeline_minutes
        WHERE device_id = @deviceId AND minute_ms >= @startMs AND minute_ms < @endMs
        ORDER BY minute_ms`,
      { deviceId, startMs, endMs },
    ).map((row): TimelineMinute => ({
      minuteStartMs: row.minute_ms,
      vadIsSilent: row.vad_is_silent === 1,
      vadSpeechDurationMs: row.vad_speech_ms,
      transcriptText: row.transcript,
      diarizedTranscriptText: row.diarized,
    }));
    const windows = coverageWithin(db, deviceId, startMs, endMs);
    const coveredMs = windows.reduce(
      (sum, w) => sum + Math.min(w.end_ms, endMs) - Math.max(w.start_ms, startMs),
      0,
    );
    const fetchedAt = windows.length > 0 ? Math.min(...windows.map((w) => w.fetched_at)) : null;
    return { minutes, coveredMs, complete: coveredMs >= endMs - startMs, fetchedAt };
  },

  /** Cached conversations of a device whose known range intersects [startMs, endMs), oldest first. */
  conversationsWithin(db: Db, deviceId: string, startMs: number, endMs: number): Conversation[] {
    return all<ConversationRow>(
      db,
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations
        WHERE device_id = @deviceId AND start_ms < @endMs AND end_ms > @startMs
        ORDER BY start_ms`,
      { deviceId, startMs, endMs },
    ).map(toConversation);
  },

  /** Ranges on `deviceId` intersecting [startMs, endMs), oldest first. */
  createdRangesWithin(db: Db, deviceId: string, startMs: number, endMs: number): CreatedRange[] {
    return all<RangeRow>(
      db,
      `SELECT * FROM created_ranges
        WHERE device_id = @deviceId AND start_ms < @endMs AND end_ms > @startMs
        ORDER BY start_ms`,
      { deviceId, startMs, endMs },
    ).map(toRange);
  },

  createdRange(db: Db, conversationId: string): CreatedRange | null {
    const row = get<RangeRow>(
      db,
      'SELECT * FROM created_ranges WHERE conversation_id = ?',
      conversationId,
    );
    return row ? toRange(row) : null;
  },
};

import type { ConversationStatus, RecordType } from '../../shared/api';
import { TRANSCRIPT_NOTE_TYPES } from '../../shared/api/values';
import type { ReviewFacts, ReviewSettings } from '../../shared/ipc';
import { speciesMentioned } from '../../shared/review/patient-match';
import { reasonsChangeAt, reviewItem } from '../../shared/review/queue';
import { indexQueue, type QueueIndex } from '../../shared/review/queue-index';
import { all, each, flag, get, run, type Db } from '../../node-common/sql';

/**
 * The review queue's facts and this user's marks (migration 006). Reads answer every candidate
 * item (unreviewed, or reviewed as an older version; with `showReviewed`, every one) as
 * ReviewFacts; the rules that make them a queue are src/shared/review/queue.ts.
 */

export interface ReviewQueueQuery {
  /** Also what was reviewed as it is now, or signed off. */
  showReviewed: boolean;
  /** The name of the clinic's sign-off board(s): their done tasks sign records off. */
  signOffBoardName: string;
  /** The time the items are judged at. */
  nowMs: number;
}

/** Items read whole (a page of the queue, a record's view), whatever their state. */
export interface ReviewFactsQuery {
  signOffBoardName: string;
  /** Record (label) ids. */
  records: readonly string[];
  /** Conversation ids. */
  conversations: readonly string[];
}

export interface ReviewMarks {
  /** Record (label) ids. */
  records: readonly string[];
  /** Conversation ids. */
  conversations: readonly string[];
}

const TRANSCRIPT_TYPES = `(${TRANSCRIPT_NOTE_TYPES.map((t) => `'${t}'`).join(', ')})`;

/** A current note of the record whose version was not the one reviewed (`types` in or not in). */
const changedSince = (inOrNotIn: 'IN' | 'NOT IN') => `EXISTS (
  SELECT 1 FROM notes n
   WHERE n.label_id = l.id AND n.is_current = 1 AND n.type ${inOrNotIn} ${TRANSCRIPT_TYPES}
     AND NOT EXISTS (SELECT 1 FROM review_versions v
                      WHERE v.label_id = n.label_id AND v.version_key = n.version_key))`;

/** Records' facts where `where` holds (a condition on l, r, s and the two columns above). */
const recordFactsWhere = (where: string) => `
  SELECT l.id, l.type, l.from_ms, l.to_ms, l.patient_name, l.friendly_name, l.device_serial,
         l.transcript_pending, r.reviewed_at,
         CASE WHEN r.label_id IS NULL THEN 0 ELSE ${changedSince('IN')} END AS transcript_changed,
         CASE WHEN r.label_id IS NULL THEN 0 ELSE ${changedSince('NOT IN')} END AS note_changed,
         s.assignee AS signed_off_by, s.signed_at AS signed_off_at
    FROM labels l
    LEFT JOIN review_records r ON r.label_id = l.id
    LEFT JOIN (
      SELECT t.group_key, max(t.assignee) AS assignee,
             max(coalesce(nullif(t.completed_at, ''), t.completed_at_iso)) AS signed_at
        FROM tasks t JOIN task_boards b ON b.id = t.board_id
       WHERE b.name = @signOffBoardName AND t.completed_at_iso IS NOT NULL
       GROUP BY t.group_key
    ) s ON s.group_key = l.id
   WHERE ${where}`;

interface RecordFactsRow {
  id: string;
  type: RecordType;
  from_ms: number;
  to_ms: number;
  patient_name: string | null;
  friendly_name: string;
  device_serial: string;
  transcript_pending: number;
  reviewed_at: number | null;
  transcript_changed: number;
  note_changed: number;
  signed_off_by: string | null;
  signed_off_at: string | null;
}

/**
 * Conversations that can need attention (UPLOADED ones are their records) where `where` holds
 * (a condition on c and rc).
 */
const conversationFactsWhere = (where: string) => `
  SELECT c.id, c.device_id, c.status, c.not_importable_reason,
         coalesce(c.start_ms, cr.start_ms) AS start_ms, coalesce(c.end_ms, cr.end_ms) AS end_ms,
         d.serial, d.display_name, rc.status AS reviewed_status, rc.reviewed_at
    FROM conversations c
    LEFT JOIN created_ranges cr ON cr.conversation_id = c.id
    LEFT JOIN devices d ON d.id = c.device_id
    LEFT JOIN review_conversations rc ON rc.conversation_id = c.id
   WHERE c.status IN ('FAILED', 'FILTERED', 'ACTIVE', 'COMPLETED', 'PROCESSING') AND ${where}`;

/**
 * The queue, in its order (compareItems): newest first, undated last, then by id. What this
 * user reviewed as it is now, or the clinic signed off, only with @showReviewed.
 */
const RECORDS_IN_QUEUE = `${recordFactsWhere(`@showReviewed = 1
    OR ((r.label_id IS NULL OR transcript_changed OR note_changed) AND s.group_key IS NULL)`)}
  ORDER BY l.from_ms DESC, l.id DESC`;
const CONVERSATIONS_IN_QUEUE = `${conversationFactsWhere(
  '(@showReviewed = 1 OR rc.status IS NULL OR rc.status <> c.status)',
)}
  ORDER BY coalesce(c.start_ms, cr.start_ms) IS NULL, coalesce(c.start_ms, cr.start_ms) DESC,
           c.id DESC`;

/** Items by id (@ids, a JSON array), looked up rather than scanned for. */
const BY_ID = (column: string) => `${column} IN (SELECT value FROM json_each(@ids))`;
const RECORDS_BY_ID = recordFactsWhere(BY_ID('l.id'));
const CONVERSATIONS_BY_ID = conversationFactsWhere(BY_ID('c.id'));

interface ConversationFactsRow {
  id: string;
  device_id: string;
  status: ConversationStatus;
  not_importable_reason: string;
  start_ms: number | null;
  end_ms: number | null;
  serial: string | null;
  display_name: string | null;
  reviewed_status: string | null;
  reviewed_at: number | null;
}

/** The first words of a transcript, without its speaker labels. */
const previewOf = (content: string | null): string =>
  (content ?? '')
    .replace(/^[^\S\n]*[\p{L}][\p{L}\d ]{0,30}:\s*/gmu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 160);

const recordOf = (row: RecordFactsRow): ReviewFacts => ({
  kind: 'record',
  id: row.id,
  deviceId: null,
  source: { key: row.device_serial || row.friendly_name, name: row.friendly_name },
  startMs: row.from_ms,
  endMs: row.to_ms,
  recordType: row.type,
  patient: row.patient_name,
  reviewed:
    row.reviewed_at === null
      ? { state: 'never' }
      : row.transcript_changed || row.note_changed
        ? {
            state: 'changed',
            at: row.reviewed_at,
            transcript: row.transcript_changed === 1,
            note: row.note_changed === 1,
          }
        : { state: 'current', at: row.reviewed_at },
  transcriptPending: row.transcript_pending === 1,
  conversationStatus: null,
  statusReason: '',
  signedOff:
    row.signed_off_by === null ? null : { by: row.signed_off_by, at: row.signed_off_at ?? '' },
  // Read for the items shown only (reviewPreviews): most of a queue is never on screen.
  preview: '',
});

const conversationOf = (row: ConversationFactsRow): ReviewFacts => ({
  kind: 'conversation',
  id: row.id,
  deviceId: row.device_id,
  source: { key: row.serial ?? row.device_id, name: row.display_name ?? row.device_id },
  startMs: row.start_ms,
  endMs: row.end_ms,
  recordType: null,
  patient: null,
  reviewed:
    row.reviewed_at !== null && row.reviewed_status === row.status
      ? { state: 'current', at: row.reviewed_at }
      : { state: 'never' },
  transcriptPending: false,
  conversationStatus: row.status,
  statusReason: row.not_importable_reason,
  signedOff: null,
  preview: '',
});

/** What a patient's other records tell of it, for telling patients of one name apart. */
export interface PatientEvidence {
  species: Record<string, number>;
  lastSeenInRoomMs: number | null;
}

export interface PatientEvidenceQuery {
  patientIds: readonly string[];
  /** The room (device serial) of the record a patient is suggested for, and its start. */
  deviceSerial: string;
  beforeMs: number;
}

/** A patient's records read for species words: its latest ones are enough. */
const EVIDENCE_RECORDS = 50;

/**
 * What changed in the queue since main's whole reading of it (migration 012): the items the
 * cache's writes touched, logged up to `upTo`; or `whole` when the log cannot say (not tracking,
 * more changes than it keeps, a task board or a device changed).
 */
export type QueueChanges =
  { whole: true } | { whole: false; upTo: number; records: string[]; conversations: string[] };

export const reviewReads = {
  /** The queue's changes since it was read whole (one snapshot: the log and its state agree). */
  queueChanges(db: Db): QueueChanges {
    return db.transaction((): QueueChanges => {
      const state = get<{ tracking: number; overflowed: number }>(
        db,
        'SELECT tracking, overflowed FROM queue_tracking',
      )!;
      if (state.tracking !== 1 || state.overflowed === 1) return { whole: true };
      const upTo =
        get<{ upTo: number | null }>(db, 'SELECT max(seq) AS upTo FROM queue_changes')!.upTo ?? 0;
      const changed = all<{ kind: string; id: string }>(
        db,
        'SELECT DISTINCT kind, id FROM queue_changes',
      );
      if (changed.some((row) => row.kind === 'everything')) return { whole: true };
      const of = (kind: string) => changed.filter((row) => row.kind === kind).map((row) => row.id);
      return { whole: false, upTo, records: of('record'), conversations: of('conversation') };
    })();
  },

  /** Per patient: the species its records' current notes mention, and when it was last in the room. */
  patientEvidence(db: Db, query: PatientEvidenceQuery): Record<string, PatientEvidence> {
    const evidence: Record<string, PatientEvidence> = {};
    for (const id of query.patientIds) {
      const texts = all<{ content: string }>(
        db,
        `SELECT n.content FROM notes n
          WHERE n.is_current = 1 AND n.label_id IN (
            SELECT id FROM labels WHERE patient_id = ? ORDER BY from_ms DESC LIMIT ?)`,
        [id, EVIDENCE_RECORDS],
      );
      const seen = get<{ at: number | null }>(
        db,
        `SELECT max(from_ms) AS at FROM labels
          WHERE patient_id = ? AND device_serial = ? AND device_serial <> '' AND from_ms < ?`,
        [id, query.deviceSerial, query.beforeMs],
      );
      evidence[id] = {
        species: speciesMentioned(texts.map((t) => t.content).join('\n')),
        lastSeenInRoomMs: seen?.at ?? null,
      };
    }
    return evidence;
  },

  /**
   * Every item the review queue may show, judged at `nowMs` and packed newest first
   * (src/shared/review/queue-index.ts) on this thread: a clinic's million records never cross
   * to the main thread, or stay there, as objects.
   */
  reviewQueue(db: Db, query: ReviewQueueQuery): QueueIndex {
    const params = {
      showReviewed: flag(query.showReviewed),
      signOffBoardName: query.signOffBoardName,
    };
    const judged = (facts: ReviewFacts) => reviewItem(facts, query.nowMs);
    // The few conversations first and whole: the records' rows are read as they are packed,
    // which keeps the connection busy until the last.
    const conversations = all<ConversationFactsRow>(db, CONVERSATIONS_IN_QUEUE, params).map((row) =>
      judged(conversationOf(row)),
    );
    const records = (function* () {
      for (const row of each<RecordFactsRow>(db, RECORDS_IN_QUEUE, params))
        yield judged(recordOf(row));
    })();
    return indexQueue(records, conversations, (item) => reasonsChangeAt(item, query.nowMs));
  },

  /** The facts of the items asked for (unordered; ids no queue holds are left out). */
  reviewFacts(db: Db, query: ReviewFactsQuery): ReviewFacts[] {
    const { signOffBoardName } = query;
    const records =
      query.records.length === 0
        ? []
        : all<RecordFactsRow>(db, RECORDS_BY_ID, {
            signOffBoardName,
            ids: JSON.stringify(query.records),
          });
    const conversations =
      query.conversations.length === 0
        ? []
        : all<ConversationFactsRow>(db, CONVERSATIONS_BY_ID, {
            ids: JSON.stringify(query.conversations),
          });
    return [...records.map(recordOf), ...conversations.map(conversationOf)];
  },

  /** The first words of each record's current transcript, for the items a screen shows. */
  reviewPreviews(db: Db, labelIds: readonly string[]): Record<string, string> {
    const rows = all<{ label_id: string; content: string }>(
      db,
      `SELECT label_id, substr(content, 1, 240) AS content FROM notes
        WHERE is_current = 1 AND type IN ${TRANSCRIPT_TYPES}
          AND label_id IN (SELECT value FROM json_each(?))`,
      [JSON.stringify(labelIds)],
    );
    return Object.fromEntries(rows.map((row) => [row.label_id, previewOf(row.content)]));
  },

  /** The review settings saved (keys absent were never set). */
  reviewSettings(db: Db): Partial<ReviewSettings> {
    const rows = all<{ key: string; value: string }>(db, 'SELECT key, value FROM review_settings');
    return Object.fromEntries(rows.map((row) => [row.key, JSON.parse(row.value) as unknown]));
  },
};

export const reviewWrites = {
  /** Before a whole reading of the queue: the cache logs what changes in it from now on. */
  trackQueueChanges(db: Db): void {
    db.transaction(() => {
      run(db, 'UPDATE queue_tracking SET tracking = 1, overflowed = 0');
      run(db, 'DELETE FROM queue_changes');
    })();
  },

  /** The changes up to `upTo` are in main's queue now. */
  forgetQueueChanges(db: Db, upTo: number): void {
    run(db, 'DELETE FROM queue_changes WHERE seq <= ?', [upTo]);
  },

  /**
   * Marks items reviewed as they are now: a record with the versions of its current notes, a
   * conversation with its status. Unknown ids are ignored (nothing to compare with later).
   */
  markReviewed(db: Db, marks: ReviewMarks, at: number): void {
    const records = JSON.stringify(marks.records);
    db.transaction(() => {
      run(
        db,
        `INSERT INTO review_records (label_id, reviewed_at)
         SELECT id, @at FROM labels WHERE id IN (SELECT value FROM json_each(@records))
         ON CONFLICT (label_id) DO UPDATE SET reviewed_at = excluded.reviewed_at`,
        { records, at },
      );
      run(db, 'DELETE FROM review_versions WHERE label_id IN (SELECT value FROM json_each(?))', [
        records,
      ]);
      run(
        db,
        `INSERT INTO review_versions (label_id, version_key)
         SELECT label_id, version_key FROM notes
          WHERE is_current = 1 AND label_id IN (SELECT value FROM json_each(?))`,
        [records],
      );
      run(
        db,
        `INSERT INTO review_conversations (conversation_id, status, reviewed_at)
         SELECT id, status, @at FROM conversations WHERE id IN (SELECT value FROM json_each(@ids))
         ON CONFLICT (conversation_id) DO UPDATE
           SET status = excluded.status, reviewed_at = excluded.reviewed_at`,
        { ids: JSON.stringify(marks.conversations), at },
      );
    })();
  },

  /** Takes the marks off: the items are new again. */
  markUnreviewed(db: Db, marks: ReviewMarks): void {
    const records = JSON.stringify(marks.records);
    db.transaction(() => {
      for (const table of ['review_records', 'review_versions'])
        run(db, `DELETE FROM ${table} WHERE label_id IN (SELECT value FROM json_each(?))`, [
          records,
        ]);
      run(
        db,
        'DELETE FROM review_conversations WHERE conversation_id IN (SELECT value FROM json_each(?))',
        [JSON.stringify(marks.conversations)],
      );
    })();
  },

  saveReviewSettings(db: Db, settings: Partial<ReviewSettings>): void {
    db.transaction(() => {
      for (const [key, value] of Object.entries(settings)) {
        if (value === undefined) continue;
        run(
          db,
          `INSERT INTO review_settings (key, value) VALUES (?, ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [key, JSON.stringify(value)],
        );
      }
    })();
  },
};

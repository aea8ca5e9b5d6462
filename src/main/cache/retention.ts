import type { RecordType } from '../../shared/api';
import { MINUTE_MS } from '../../shared/api/values';
import type { KeptRecord } from '../../shared/ipc';
import { all, get, run, type Db } from '../../node-common/sql';
import { RECORD_TABLES } from './record-tables';
import { saveSyncState } from './sync-state';

/**
 * Retention's queries (issue 29): what the cache holds and what a cleanup would remove; the
 * removal itself in small transactions (a cleanup runs beside the sync and the screens, and each
 * write holds the writer thread); the full-text indexes merged so deleted words leave their
 * segments; the WAL checkpointed and truncated; freed pages given back to the file system.
 *
 * With `secure_delete` on (database.ts), SQLite overwrites what a delete frees with zeros. FTS5
 * does not delete at once: a deleted row's words stay in the index's segments, marked deleted,
 * until the segments holding them are merged. So every removal marks the indexes dirty (in its
 * own transaction) and a cleanup merges them all, step by step, before it ends; a cleanup
 * killed in between merges at the next.
 */

/** The full-text indexes (migrations 002, 007 and 011): a cleanup merges each, so deleted words leave them. */
export const TEXT_INDEXES = [
  'notes_fts',
  'recent_notes_fts',
  'history_fts',
  'patients_fts',
  'conversations_fts',
  'speaker_lines_fts',
];

/** The sync_state stream saying the indexes hold deleted words still to be merged out. */
const INDEX_STREAM = 'retention.index';

/**
 * A conversation's age: the start of the range it covers (the service's, else the range this
 * app created, else its record's), else when this computer first saw it. The columns are SQL
 * expressions, so the walk can ask it of a conversation before storing it (hub.ts).
 */
export const conversationAge = (c: {
  id: string;
  startMs: string;
  labelId: string;
  firstSeenAt: string;
}) => `coalesce(${c.startMs},
  (SELECT start_ms FROM created_ranges WHERE conversation_id = ${c.id}),
  (SELECT from_ms FROM labels WHERE id = ${c.labelId}),
  ${c.firstSeenAt})`;

const CONVERSATION_AGE = conversationAge({
  id: 'conversations.id',
  startMs: 'conversations.start_ms',
  labelId: 'conversations.label_id',
  firstSeenAt: 'coalesce(conversations.first_seen_at, conversations.seen_at)',
});

/** Which records a cleanup removes: older than `before`, neither kept nor spared. */
export interface RecordCutoff {
  before: number;
  /** Records an export running now reads: left for the next cleanup. */
  spare: readonly string[];
}

/** Labels old enough to go that no mark keeps and no export reads. */
const REMOVABLE_LABELS = `FROM labels WHERE from_ms < @before
  AND id NOT IN (SELECT label_id FROM kept_records)
  AND id NOT IN (SELECT value FROM json_each(@spare))`;

/** What the cache's data takes on disk: its pages in use (free pages hold zeros). */
function inUseBytes(db: Db): number {
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  return (pages - free) * pageSize;
}

const LABEL_TEXT = 'coalesce(octet_length(patient_name), 0) + octet_length(friendly_name)';

/** Bytes of clinical text held for the records `labels` selects (a subquery of label ids). */
function recordText(db: Db, labelIds: string, params: object): number {
  const parts = [
    `SELECT coalesce(sum(${LABEL_TEXT}), 0) AS n FROM labels WHERE id IN (${labelIds})`,
    ...RECORD_TABLES.filter((t) => t.textBytes !== null).map(
      (t) =>
        `SELECT coalesce(sum(${t.textBytes}), 0) AS n FROM ${t.table}
          WHERE ${t.labelColumn} IN (${labelIds})`,
    ),
  ];
  return get<{ n: number }>(db, `SELECT sum(n) AS n FROM (${parts.join(' UNION ALL ')})`, params)!
    .n;
}

const CONVERSATION_TEXT = 'octet_length(transcript_text)';
const TIMELINE_TEXT = 'octet_length(transcript) + octet_length(diarized)';

/** What a cleanup with these cutoffs would remove, and what the cache holds. */
export interface TextPreview {
  /** The whole cache: its records and the bytes of its pages in use. */
  kept: { records: number; bytes: number };
  /**
   * What goes: records, and an estimate of the bytes it frees (its share of the clinical text
   * times the pages in use: the indexes and the rows' overhead go with their text). `spared`:
   * records old enough that a mark or an export keeps.
   */
  next: { records: number; bytes: number; spared: number };
}

export const retentionReads = {
  textPreview(db: Db, cutoff: RecordCutoff | null): TextPreview {
    const records = get<{ n: number }>(db, 'SELECT count(*) AS n FROM labels')!.n;
    const bytes = inUseBytes(db);
    const kept = { records, bytes };
    if (cutoff === null) return { kept, next: { records: 0, bytes: 0, spared: 0 } };
    const params = { before: cutoff.before, spare: JSON.stringify(cutoff.spare) };
    const going = get<{ n: number }>(db, `SELECT count(*) AS n ${REMOVABLE_LABELS}`, params)!.n;
    const old = get<{ n: number }>(
      db,
      'SELECT count(*) AS n FROM labels WHERE from_ms < @before',
      params,
    )!.n;
    const sumOf = (sql: string) => get<{ n: number | null }>(db, sql, params)!.n ?? 0;
    const allText =
      recordText(db, 'SELECT id FROM labels', {}) +
      sumOf(`SELECT sum(${CONVERSATION_TEXT}) AS n FROM conversations`) +
      sumOf(`SELECT sum(${TIMELINE_TEXT}) AS n FROM timeline_minutes`);
    const goingText =
      recordText(db, `SELECT id ${REMOVABLE_LABELS}`, params) +
      sumOf(
        `SELECT sum(${CONVERSATION_TEXT}) AS n FROM conversations
          WHERE ${CONVERSATION_AGE} < @before`,
      ) +
      sumOf(`SELECT sum(${TIMELINE_TEXT}) AS n FROM timeline_minutes WHERE minute_ms < @before`);
    return {
      kept,
      next: {
        records: going,
        bytes: allText === 0 ? 0 : Math.round((bytes * goingText) / allText),
        spared: old - going,
      },
    };
  },

  /** The bytes of the cache's pages in use (after a cleanup: how much it freed). */
  textBytes(db: Db): number {
    return inUseBytes(db);
  },

  /** Records marked "Keep on this computer", newest first. */
  keptRecords(db: Db): KeptRecord[] {
    return all<{
      id: string;
      type: RecordType;
      from_ms: number;
      patient_name: string | null;
      kept_at: number;
    }>(
      db,
      `SELECT labels.id, type, from_ms, patient_name, kept_at
         FROM kept_records JOIN labels ON labels.id = kept_records.label_id
        ORDER BY from_ms DESC, labels.id DESC`,
    ).map((row) => ({
      labelId: row.id,
      type: row.type,
      fromTime: new Date(row.from_ms).toISOString(),
      patient: row.patient_name,
      keptAt: new Date(row.kept_at).toISOString(),
    }));
  },

  isKept(db: Db, labelId: string): boolean {
    return get(db, 'SELECT 1 FROM kept_records WHERE label_id = ?', labelId) !== undefined;
  },

  /** Kept records that started before `before` (the sync refreshes them outside its walk). */
  keptBefore(db: Db, before: number): string[] {
    return all<{ id: string }>(
      db,
      `SELECT labels.id FROM kept_records JOIN labels ON labels.id = kept_records.label_id
        WHERE from_ms < ? ORDER BY from_ms DESC`,
      before,
    ).map((row) => row.id);
  },

  /** When each of these records started (those the cache holds). */
  recordStarts(db: Db, ids: readonly string[]): Record<string, number> {
    const rows = all<{ id: string; from_ms: number }>(
      db,
      'SELECT id, from_ms FROM labels WHERE id IN (SELECT value FROM json_each(?))',
      JSON.stringify(ids),
    );
    return Object.fromEntries(rows.map((row) => [row.id, row.from_ms]));
  },

  /** Whether deleted words still wait in the full-text indexes for a merge. */
  indexesToMerge(db: Db): boolean {
    return get(db, 'SELECT 1 FROM sync_state WHERE stream = ?', INDEX_STREAM) !== undefined;
  },
};

/** A step of a cleanup: how many it removed, and whether more are left. */
export interface RemovalStep {
  removed: number;
  more: boolean;
}

/** Marks the indexes dirty in the transaction that deleted indexed text. */
const indexesDirty = (db: Db, at: number) =>
  saveSyncState(db, { stream: INDEX_STREAM, value: { since: at }, at });

const totalChanges = (db: Db) => get<{ n: number }>(db, 'SELECT total_changes() AS n')!.n;

export const retentionWrites = {
  /**
   * Marks a cached record "Keep on this computer"; false when the cache does not hold it (the
   * caller stores it first).
   */
  keepRecord(db: Db, labelId: string, at: number): boolean {
    run(
      db,
      `INSERT INTO kept_records (label_id, kept_at) SELECT id, @at FROM labels WHERE id = @labelId
       ON CONFLICT (label_id) DO NOTHING`,
      { labelId, at },
    );
    return retentionReads.isKept(db, labelId);
  },

  releaseRecord(db: Db, labelId: string): void {
    run(db, 'DELETE FROM kept_records WHERE label_id = ?', labelId);
  },

  /**
   * Removes up to `limit` records older than the cutoff, oldest first, with everything keyed
   * by them (record-tables.ts: the foreign keys cascade, and the indexes' triggers fire).
   */
  removeRecords(db: Db, cutoff: RecordCutoff & { limit: number; at: number }): RemovalStep {
    return db.transaction(() => {
      const removed = run(
        db,
        `DELETE FROM labels WHERE seq IN (SELECT seq ${REMOVABLE_LABELS}
          ORDER BY from_ms LIMIT @limit)`,
        { before: cutoff.before, spare: JSON.stringify(cutoff.spare), limit: cutoff.limit },
      );
      if (removed > 0) indexesDirty(db, cutoff.at);
      return { removed, more: removed === cutoff.limit };
    })();
  },

  /**
   * Empties the transcripts of up to `limit` conversations older than `before`. The rest of the
   * row stays (device, status, range: no clinical text), so the listing's order and the sync's
   * walk over it hold, and the walk stores no text older than the window (hub.ts).
   */
  removeConversationText(db: Db, step: { before: number; limit: number; at: number }): RemovalStep {
    return db.transaction(() => {
      const removed = run(
        db,
        `UPDATE conversations SET transcript_text = '' WHERE seq IN (
           SELECT seq FROM conversations
            WHERE transcript_text <> '' AND ${CONVERSATION_AGE} < @before LIMIT @limit)`,
        step,
      );
      if (removed > 0) indexesDirty(db, step.at);
      return { removed, more: removed === step.limit };
    })();
  },

  /**
   * Removes up to `limit` hub timeline minutes older than `before` (device by device, along the
   * primary key); the last step cuts the fetched windows to what is left, so an offline read of
   * those hours says "not cached" rather than "no recording".
   */
  removeTimelines(db: Db, step: { before: number; limit: number }): RemovalStep {
    return db.transaction(() => {
      const devices = all<{ device_id: string }>(
        db,
        'SELECT DISTINCT device_id FROM timeline_coverage',
      );
      let removed = 0;
      for (const { device_id: deviceId } of devices) {
        if (removed >= step.limit) break;
        removed += run(
          db,
          `DELETE FROM timeline_minutes WHERE device_id = @deviceId AND minute_ms IN (
             SELECT minute_ms FROM timeline_minutes
              WHERE device_id = @deviceId AND minute_ms < @before LIMIT @limit)`,
          { deviceId, before: step.before, limit: step.limit - removed },
        );
      }
      const more = removed >= step.limit;
      if (!more) {
        // The last step: the windows (which name the devices to visit) are cut only now.
        const kept = Math.ceil(step.before / MINUTE_MS) * MINUTE_MS;
        run(db, 'DELETE FROM timeline_coverage WHERE end_ms <= ?', kept);
        run(db, 'UPDATE timeline_coverage SET start_ms = ? WHERE start_ms < ?', [kept, kept]);
      }
      return { removed, more };
    })();
  },

  /**
   * One step of merging a full-text index into one segment, which drops deleted words from it:
   * FTS5's 'merge' with at most `pages` pages of work. The first step of a cleanup (`first`)
   * starts a merge of every segment there is (a negative count); later ones go on with it even
   * when the sync adds segments meanwhile. Answers whether the step did any work: a merge is
   * done at the first step that does none.
   */
  mergeIndexStep(db: Db, step: { index: string; pages: number; first: boolean }): boolean {
    if (!TEXT_INDEXES.includes(step.index)) throw new Error(`No full-text index ${step.index}.`);
    const before = totalChanges(db);
    run(
      db,
      `INSERT INTO ${step.index} (${step.index}, rank) VALUES ('merge', ?)`,
      step.first ? -step.pages : step.pages,
    );
    return totalChanges(db) - before >= 2;
  },

  /** Every index merged: nothing deleted lingers in them. */
  indexesMerged(db: Db, at: number): void {
    saveSyncState(db, { stream: INDEX_STREAM, value: null, at });
  },

  /**
   * Gives up to `pages` free pages back to the file system (a cache made with auto_vacuum
   * incremental, database.ts); answers how many went (0 for an older cache, which reuses them).
   */
  releaseFreePages(db: Db, pages: number): number {
    if ((db.pragma('auto_vacuum', { simple: true }) as number) !== 2) return 0;
    const before = db.pragma('freelist_count', { simple: true }) as number;
    db.pragma(`incremental_vacuum(${Math.max(1, Math.floor(pages))})`);
    return before - (db.pragma('freelist_count', { simple: true }) as number);
  },

  /**
   * Copies the WAL into the database and truncates it to nothing, so what the cleanup overwrote
   * is no longer in the WAL either. `busy` when a reader held on to an older snapshot meanwhile:
   * the caller tries again.
   */
  checkpoint(db: Db): { busy: boolean } {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    return { busy: (result?.busy ?? 0) !== 0 };
  },
};

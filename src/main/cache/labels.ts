import { createHash } from 'node:crypto';
import type { Label, LabelListQuery, RecordingOrder, Note, RecordType } from '../../shared/api';
import { TRANSCRIPT_NOTE_TYPES } from '../../shared/api/values';
import type { KnownPatient } from '../../shared/ipc';
import { currentNote, currentTranscript, isProcessingContent } from '../../shared/transcript';
import { all, fewEnoughToLookUp, get, likeContaining, run, type Db } from '../../node-common/sql';
import { saveSyncState, type SyncStateWrite } from './sync-state';

interface LabelRow {
  id: string;
  type: RecordType;
  from_ms: number;
  to_ms: number;
  patient_id: string | null;
  patient_name: string | null;
  friendly_name: string;
  device_serial: string;
  notes_fetched_at: number | null;
}

interface NoteRow {
  label_id: string;
  type: string;
  content: string;
  created_at: string;
  time: string;
}

/** Which labels of a listing need their notes fetched (labels.get). */
export interface LabelPageResult {
  /** New, changed, or in the re-scan window and not settled; newest first. */
  needNotes: string[];
  /** Labels the cache did not hold. */
  added: number;
}

/**
 * The re-scan window's extra rule: a label's notes are fetched again while they may still change
 * (its current transcript is missing or still being generated, or they were last fetched less
 * than `settleMs` after the recording ended), at most once per `refetchBefore`.
 */
interface NotesRecheck {
  settleMs: number;
  /** Notes fetched after this time are fresh enough for this run. */
  refetchBefore: number;
}

export interface LabelPageInput {
  /** Rows of a listing. Rows that carry their notes are stored whole and need no fetch. */
  rows: readonly Label[];
  seenAt: number;
  recheck?: NotesRecheck;
  /** Saved in the same transaction: a crash never separates a page from its cursor. */
  state?: SyncStateWrite;
  /**
   * A screen's page (not a sync's walk): rows held unchanged are left as they are, their
   * seen_at too, so a page that brings nothing new writes nothing. Every commit empties the
   * readers' page caches (SQLite drops a connection's cache when the WAL has changed), and the
   * list's next read was cold: a filtered page at 1M read in 24 ms instead of 3, sealed. Only a
   * sync's walk must mark every row it saw (sweepLabels deletes the ones it did not).
   */
  changesOnly?: boolean;
}

export interface LabelSweep {
  /** Labels starting in [fromMs, toMs) … */
  fromMs?: number;
  toMs?: number;
  /** … that no listing or fetch has shown since this time are gone from the service. */
  seenBefore: number;
}

/** A page of cached labels and the number matching the query (as X-Total-Count). */
export interface CachedLabelPage {
  items: Label[];
  total: number;
}

export interface HubRecordQuery {
  startMs: number;
  endMs: number;
  deviceSerial?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

const LABEL_COLUMNS = `id, type, from_ms, to_ms, patient_id, patient_name, friendly_name,
  device_serial, notes_fetched_at`;

function toLabel(row: LabelRow, notes: Note[] | null): Label {
  return {
    id: row.id,
    type: row.type,
    fromTime: iso(row.from_ms),
    toTime: iso(row.to_ms),
    patient: row.patient_id !== null ? { id: row.patient_id, name: row.patient_name ?? '' } : null,
    ownedPatientNotes: notes,
    friendlyName: row.friendly_name,
    deviceSerial: row.device_serial,
  };
}

const toNote = (row: NoteRow): Note => ({
  type: row.type,
  content: row.content,
  createdAt: row.created_at,
  time: row.time,
});

/** A label's row as JSON for the set-based statements below. */
const rowJson = (label: Label) => ({
  id: label.id,
  type: label.type,
  fromMs: Date.parse(label.fromTime),
  toMs: Date.parse(label.toTime),
  patientId: label.patient?.id ?? null,
  patientName: label.patient?.name ?? null,
  friendlyName: label.friendlyName,
  deviceSerial: label.deviceSerial,
});

const ROW_COLUMNS = [
  'type',
  'from_ms',
  'to_ms',
  'patient_id',
  'patient_name',
  'friendly_name',
  'device_serial',
] as const;
const ROW_FIELDS = `value->>'id', value->>'type', value->>'fromMs', value->>'toMs',
  value->>'patientId', value->>'patientName', value->>'friendlyName', value->>'deviceSerial'`;
const ROW_CHANGED = `(${ROW_COLUMNS.map((c) => `labels.${c}`).join(', ')})
  IS NOT (${ROW_COLUMNS.map((c) => `excluded.${c}`).join(', ')})`;
const ROW_UPDATE = ROW_COLUMNS.map((c) => `${c} = excluded.${c}`).join(', ');

/*
 * Writes are set-based: one INSERT … SELECT FROM json_each(?) per batch rather than a statement
 * per row. Every statement that fires an FTS trigger opens a savepoint on the FTS5 table, which
 * makes row-by-row writes several times slower.
 */

/** Listing rows: new or changed rows (and unsettled ones when rechecked) need their notes. */
const UPSERT_LIST_ROWS = `
  INSERT INTO labels (id, ${ROW_COLUMNS.join(', ')}, seen_at)
  SELECT ${ROW_FIELDS}, @seenAt FROM json_each(@rows) WHERE true
  ON CONFLICT (id) DO UPDATE SET
    notes_stale = CASE
      WHEN ${ROW_CHANGED} THEN 1
      -- What this user reviewed is rechecked at every run of the window: a newer transcript or
      -- note must bring it back to the review queue as "updated" (migration 006).
      WHEN @recheck = 1 AND labels.id IN (SELECT label_id FROM review_records) THEN 1
      WHEN @recheck = 1
        AND (labels.transcript_pending = 1 OR labels.notes_fetched_at IS NULL
             OR labels.notes_fetched_at < labels.to_ms + @settleMs)
        AND (labels.notes_fetched_at IS NULL OR labels.notes_fetched_at <= @refetchBefore)
        THEN 1
      ELSE labels.notes_stale END,
    ${ROW_UPDATE},
    seen_at = max(labels.seen_at, excluded.seen_at)
  WHERE @changesOnly = 0 OR ${ROW_CHANGED}
  RETURNING id, from_ms, notes_stale`;

/** Labels with their notes, as fetched: their notes are now fresh. */
const UPSERT_DETAIL_ROWS = `
  INSERT INTO labels (id, ${ROW_COLUMNS.join(', ')}, seen_at, notes_stale, notes_fetched_at,
                      transcript_pending)
  SELECT ${ROW_FIELDS}, @fetchedAt, 0, @fetchedAt, value->>'pending'
    FROM json_each(@rows) WHERE true
  ON CONFLICT (id) DO UPDATE SET
    ${ROW_UPDATE},
    seen_at = max(labels.seen_at, excluded.seen_at),
    notes_stale = 0,
    notes_fetched_at = excluded.notes_fetched_at,
    transcript_pending = excluded.transcript_pending`;

/** Versions the service no longer lists (append-only in the seed, but a cache follows). */
const DELETE_OLD_NOTES = `
  DELETE FROM notes
   WHERE label_id IN (SELECT value FROM json_each(@ids))
     AND (label_id, version_key) NOT IN
         (SELECT value->>0, value->>1 FROM json_each(@keys))`;

const UPSERT_NOTES = `
  INSERT INTO notes (label_id, version_key, type, content, created_at, time, position, is_current)
  SELECT value->>'labelId', value->>'key', value->>'type', value->>'content',
         value->>'createdAt', value->>'time', value->>'position', value->>'current'
    FROM json_each(@notes) WHERE true
  ON CONFLICT (label_id, version_key) DO UPDATE SET
    position = excluded.position, is_current = excluded.is_current
  WHERE notes.position IS NOT excluded.position OR notes.is_current IS NOT excluded.is_current`;

const versionKey = (note: Note): string =>
  createHash('sha1')
    .update(`${note.type}\0${note.createdAt}\0${note.time}\0${note.content}`)
    .digest('base64url');

/** The notes that are current: the transcript (both transcript types together) and one per other type. */
function currentSet(notes: readonly Note[]): Set<Note> {
  const current = new Set<Note>();
  const transcript = currentTranscript(notes);
  if (transcript) current.add(transcript);
  const transcriptTypes: readonly string[] = TRANSCRIPT_NOTE_TYPES;
  for (const type of new Set(notes.map((n) => n.type))) {
    if (transcriptTypes.includes(type)) continue;
    const note = currentNote(notes, type);
    if (note) current.add(note);
  }
  return current;
}

/** Stores labels with all their note versions; call inside a transaction. */
function storeDetails(db: Db, labels: readonly Label[], fetchedAt: number): void {
  if (labels.length === 0) return;
  const rows: object[] = [];
  const notes: object[] = [];
  const keys: [string, string][] = [];
  for (const label of labels) {
    const versions = label.ownedPatientNotes ?? [];
    const transcript = currentTranscript(versions);
    const pending = transcript === undefined || isProcessingContent(transcript.content);
    rows.push({ ...rowJson(label), pending: pending ? 1 : 0 });
    const current = currentSet(versions);
    versions.forEach((note, position) => {
      const key = versionKey(note);
      keys.push([label.id, key]);
      notes.push({
        labelId: label.id,
        key,
        type: note.type,
        content: note.content,
        createdAt: note.createdAt,
        time: note.time,
        position,
        current: current.has(note) ? 1 : 0,
      });
    });
  }
  const notesJson = JSON.stringify(notes);
  run(db, UPSERT_DETAIL_ROWS, { rows: JSON.stringify(rows), fetchedAt });
  run(db, DELETE_OLD_NOTES, {
    ids: JSON.stringify(labels.map((l) => l.id)),
    keys: JSON.stringify(keys),
  });
  run(db, UPSERT_NOTES, { notes: notesJson });
}

/**
 * How many of `ids` the cache holds: a page's lookups, where counting the whole table before
 * and after a page would read every label (at a million, each listing page and each page of the
 * list kept while scrolling).
 */
const heldOf = (db: Db, ids: readonly string[]) =>
  get<{ n: number }>(
    db,
    'SELECT count(*) AS n FROM labels WHERE id IN (SELECT value FROM json_each(?))',
    JSON.stringify(ids),
  )!.n;

export const labelWrites = {
  /** Stores a page of a listing; answers which labels need their notes fetched. */
  storeLabelPage(db: Db, page: LabelPageInput): LabelPageResult {
    return db.transaction(() => {
      const ids = [...new Set(page.rows.map((label) => label.id))];
      const heldBefore = heldOf(db, ids);
      const whole = page.rows.filter((label) => label.ownedPatientNotes !== null);
      const bare = page.rows.filter((label) => label.ownedPatientNotes === null);
      storeDetails(db, whole, page.seenAt);
      const recheck = page.recheck;
      const returned =
        bare.length === 0
          ? []
          : all<{ id: string; from_ms: number; notes_stale: number }>(db, UPSERT_LIST_ROWS, {
              rows: JSON.stringify(bare.map(rowJson)),
              seenAt: page.seenAt,
              recheck: recheck ? 1 : 0,
              settleMs: recheck?.settleMs ?? 0,
              refetchBefore: recheck?.refetchBefore ?? 0,
              changesOnly: page.changesOnly ? 1 : 0,
            });
      const needNotes = returned
        .filter((row) => row.notes_stale === 1)
        .sort((a, b) => b.from_ms - a.from_ms || (a.id < b.id ? 1 : -1))
        .map((row) => row.id);
      if (page.state) saveSyncState(db, page.state);
      return { needNotes, added: ids.length - heldBefore };
    })();
  },

  /** Stores labels with their notes (from labels.get), every version, and marks the current ones. */
  storeLabels(db: Db, labels: readonly Label[], fetchedAt: number): void {
    db.transaction(() => storeDetails(db, labels, fetchedAt))();
  },

  /** Deletes labels (and, through the foreign key, their notes and index entries). */
  deleteLabels(db: Db, ids: readonly string[]): number {
    return run(db, 'DELETE FROM labels WHERE id IN (SELECT value FROM json_each(?))', [
      JSON.stringify(ids),
    ]);
  },

  /** Deletes the labels of a time span that a complete walk over it did not see. */
  sweepLabels(db: Db, sweep: LabelSweep, state?: SyncStateWrite): number {
    return db.transaction(() => {
      const deleted = run(
        db,
        `DELETE FROM labels WHERE seen_at < @seenBefore
           AND from_ms >= @fromMs AND from_ms < @toMs`,
        {
          seenBefore: sweep.seenBefore,
          fromMs: sweep.fromMs ?? Number.MIN_SAFE_INTEGER,
          toMs: sweep.toMs ?? Number.MAX_SAFE_INTEGER,
        },
      );
      if (state) saveSyncState(db, state);
      return deleted;
    })();
  },
};

/** The service's filters and orders on the cached rows, and the order only the cache has. */
export type CachedLabelQuery = Omit<LabelListQuery, 'sortingProperty'> & {
  sortingProperty?: RecordingOrder;
};

/**
 * Each order, then from_ms and id to break ties as the service does. No term twice: a repeated
 * one keeps SQLite from reading an index in order.
 */
const SORT_ORDER: Record<RecordingOrder, (direction: string) => string> = {
  FromTime: (direction: string) => `from_ms ${direction}, id ${direction}`,
  Duration: (direction: string) =>
    `to_ms - from_ms ${direction}, from_ms ${direction}, id ${direction}`,
  Type: (direction: string) => `type ${direction}, from_ms ${direction}, id ${direction}`,
  Patient: (direction: string) =>
    `patient_name IS NULL, patient_name COLLATE NOCASE ${direction}, from_ms ${direction}, id ${direction}`,
};

/** The patient filter as the labels of the matching patients (migration 013), read by patient. */
const BY_PATIENT = `patient_id IS NOT NULL AND (patient_id, patient_name) IN (
  SELECT patient_id, patient_name FROM patients WHERE patient_name LIKE @patientSearch ESCAPE '\\')`;

/**
 * Whether the patients matching a pattern have few labels (fewEnoughToLookUp). Then the patient
 * filter reads theirs by patient (`BY_PATIENT`, through labels_by_patient); else it reads every
 * label of the list's range and matches its name (labels_by_type holds it).
 */
function fewLabelsOf(db: Db, pattern: string): boolean {
  const matched = get<{ n: number | null }>(
    db,
    "SELECT sum(labels) AS n FROM patients WHERE patient_name LIKE ? ESCAPE '\\'",
    pattern,
  )!.n;
  const held = get<{ n: number }>(db, 'SELECT labels AS n FROM label_count')!.n;
  return fewEnoughToLookUp(matched ?? 0, held);
}

function notesOf(db: Db, labelId: string): Note[] {
  return all<NoteRow>(
    db,
    'SELECT label_id, type, content, created_at, time FROM notes WHERE label_id = ? ORDER BY position, seq',
    labelId,
  ).map(toNote);
}

const withNotes = (db: Db, row: LabelRow): Label =>
  toLabel(row, row.notes_fetched_at === null ? null : notesOf(db, row.id));

export const labelReads = {
  /** The label with every note version, in the service's order; notes null until fetched. */
  label(db: Db, id: string): Label | null {
    const row = get<LabelRow>(db, `SELECT ${LABEL_COLUMNS} FROM labels WHERE id = ?`, id);
    return row ? withNotes(db, row) : null;
  },

  /** When the service last showed the label (a listing or a detail); null when not cached. */
  labelSeenAt(db: Db, id: string): number | null {
    return (
      get<{ seen_at: number }>(db, 'SELECT seen_at FROM labels WHERE id = ?', id)?.seen_at ?? null
    );
  },

  /**
   * Cached labels as the service lists them (the same filters, sorting and tie-breaks; rows
   * without notes). `userId` is not cached (list rows do not carry it) and is ignored.
   */
  labels(db: Db, query: CachedLabelQuery = {}): CachedLabelPage {
    const patientSearch = query.patientSearch ? likeContaining(query.patientSearch) : null;
    const byPatient = patientSearch !== null && fewLabelsOf(db, patientSearch);
    // [applies, condition, its parameter]: the service's filters, on the cached columns.
    const filters: [boolean, string, Record<string, unknown>][] = [
      [
        (query.types?.length ?? 0) > 0,
        'type IN (SELECT value FROM json_each(@types))',
        { types: JSON.stringify(query.types ?? []) },
      ],
      [
        query.fromTime !== undefined,
        'from_ms >= @fromMs',
        { fromMs: Date.parse(query.fromTime ?? '') },
      ],
      [query.toTime !== undefined, 'from_ms < @toMs', { toMs: Date.parse(query.toTime ?? '') }],
      [
        patientSearch !== null,
        byPatient ? BY_PATIENT : "patient_name LIKE @patientSearch ESCAPE '\\'",
        { patientSearch },
      ],
    ];
    const applied = filters.filter(([applies]) => applies);
    const where = applied.map(([, condition]) => condition);
    const params = Object.assign({}, ...applied.map(([, , param]) => param)) as Record<
      string,
      unknown
    >;
    const filter = `${byPatient ? 'INDEXED BY labels_by_patient' : ''} ${
      where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
    }`;
    const direction = query.isSortingDescending === false ? 'ASC' : 'DESC';
    const order = `ORDER BY ${SORT_ORDER[query.sortingProperty ?? 'FromTime'](direction)}`;
    // Unfiltered: the kept count (migration 010), not a read of every label.
    const total = get<{ n: number }>(
      db,
      where.length === 0
        ? 'SELECT labels AS n FROM label_count'
        : `SELECT count(*) AS n FROM labels ${filter}`,
      params,
    )!.n;
    const rows = all<LabelRow>(
      db,
      `SELECT ${LABEL_COLUMNS} FROM labels ${filter} ${order} LIMIT @limit OFFSET @offset`,
      { ...params, limit: query.limit ?? 50, offset: query.offset ?? 0 },
    );
    return { items: rows.map((row) => toLabel(row, null)), total };
  },

  /**
   * Patients of cached labels (the seed has no patient list) whose name contains `search`
   * (case-insensitive, as the listing's patientSearch; all when empty), by name, with how many
   * cached labels each has. A patient renamed on the service goes by the name of its newest label.
   */
  patients(db: Db, search: string, limit = 50): KnownPatient[] {
    // The kept patients (migration 013): a row per patient and name, the newest name wins.
    return all<KnownPatient>(
      db,
      `SELECT patient_id AS id, patient_name AS name, sum(labels) AS recordings, max(newest_ms)
         FROM patients
        GROUP BY patient_id
       HAVING @search = '' OR patient_name LIKE @pattern ESCAPE '\\'
        ORDER BY patient_name COLLATE NOCASE, patient_id
        LIMIT @limit`,
      { search, pattern: likeContaining(search), limit },
    ).map(({ id, name, recordings }) => ({ id, name: name ?? '', recordings }));
  },

  /**
   * The starts of the newest label and of the newest whose notes were never fetched (null: none):
   * every label starting after the second has its notes here (search reaches back to it, see
   * the sync's searchReach). Labels only marked to be fetched again keep the notes they have,
   * so they do not count.
   */
  notesFrontier(db: Db): { newestMs: number | null; newestWithoutNotesMs: number | null } {
    const newest = (where: string) =>
      get<{ fromMs: number }>(
        db,
        `SELECT from_ms AS fromMs FROM labels ${where} ORDER BY from_ms DESC LIMIT 1`,
      )?.fromMs ?? null;
    return {
      newestMs: newest(''),
      newestWithoutNotesMs: newest('WHERE notes_stale = 1 AND notes_fetched_at IS NULL'),
    };
  },

  /** Labels whose notes must be fetched, newest first (the sync's persisted queue). */
  labelsNeedingNotes(db: Db, limit: number): string[] {
    return all<{ id: string }>(
      db,
      'SELECT id FROM labels WHERE notes_stale = 1 ORDER BY from_ms DESC LIMIT ?',
      limit,
    ).map((row) => row.id);
  },

  /**
   * Hub records (HubMic, HubBatch) of a device overlapping [startMs, endMs), oldest first, without
   * their notes: each is a conversation that was processed, where the service says no more.
   */
  hubRecordsWithin(db: Db, query: HubRecordQuery & { deviceSerial: string }): Label[] {
    return all<LabelRow>(
      db,
      `SELECT ${LABEL_COLUMNS} FROM labels
        WHERE type IN ('HubMic', 'HubBatch') AND device_serial = @deviceSerial
          AND from_ms < @endMs AND to_ms > @startMs
        ORDER BY from_ms`,
      { startMs: query.startMs, endMs: query.endMs, deviceSerial: query.deviceSerial },
    ).map((row) => toLabel(row, null));
  },

  /** The patient of each cached label of `ids` (null when it has none); unknown ids are left out. */
  patientsOf(db: Db, ids: readonly string[]): Record<string, string | null> {
    if (ids.length === 0) return {};
    const rows = all<{ id: string; patient_name: string | null }>(
      db,
      'SELECT id, patient_name FROM labels WHERE id IN (SELECT value FROM json_each(?))',
      JSON.stringify(ids),
    );
    return Object.fromEntries(rows.map((row) => [row.id, row.patient_name]));
  },

  /** The hub record a conversation became: a HubMic or HubBatch label of exactly its range. */
  hubRecordFor(db: Db, query: HubRecordQuery): Label | null {
    const row = get<LabelRow>(
      db,
      `SELECT ${LABEL_COLUMNS} FROM labels
        WHERE from_ms = @startMs AND to_ms = @endMs AND type IN ('HubMic', 'HubBatch')
          AND (@deviceSerial IS NULL OR device_serial = @deviceSerial)
        ORDER BY id LIMIT 1`,
      { startMs: query.startMs, endMs: query.endMs, deviceSerial: query.deviceSerial ?? null },
    );
    return row ? withNotes(db, row) : null;
  },
};

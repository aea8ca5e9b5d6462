import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type {
  Conversation,
  ConversationStatus,
  Label,
  Note,
  RecordType,
} from '../../../src/shared/api';

/** A temporary folder per test file, removed after all its tests. */
export function useTempDir(prefix: string): () => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `earmark-${prefix}-`));
    dirs.push(dir);
    return dir;
  };
}

/** SQLite's page size, as the cache uses it. */
export const PAGE = 4096;

/** Writes `bytes` over a file at `offset` (damage, for the tests of a damaged cache). */
export function overwrite(file: string, offset: number, bytes: Buffer): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, bytes, 0, bytes.length, offset);
  closeSync(fd);
}

/**
 * Scribbles over three pages in the middle of a cache's file, its WAL checkpointed into it: the
 * header and the schema stay readable, so only a whole check (or a query reading them) finds it.
 */
export function damageMiddlePages(file: string): void {
  const pages = Math.floor(statSync(file).size / PAGE);
  overwrite(file, Math.floor(pages / 2) * PAGE, Buffer.alloc(3 * PAGE, 0x5a));
}

const iso = (ms: number) => new Date(ms).toISOString();
export const T0 = Date.UTC(2026, 9, 1, 8, 0, 0);
export const MINUTE = 60_000;

export function note(content: string, atMs: number, type = 'Transcript'): Note {
  return { type, content, createdAt: iso(atMs), time: iso(atMs) };
}

/** A label as the service lists or details it; notes null for a list row. */
export function label(
  index: number,
  options: {
    type?: RecordType;
    patient?: string | null;
    notes?: Note[] | null;
    fromMs?: number;
    minutes?: number;
  } = {},
): Label {
  const fromMs = options.fromMs ?? T0 + index * MINUTE * 15;
  const patient = options.patient === undefined ? `Patient ${index}` : options.patient;
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    type: options.type ?? 'ClinicConversation',
    fromTime: iso(fromMs),
    toTime: iso(fromMs + (options.minutes ?? 10) * MINUTE),
    patient: patient === null ? null : { id: `patient-${patient}`, name: patient },
    ownedPatientNotes: options.notes ?? null,
    friendlyName: 'Exam Room iPad',
    deviceSerial: 'IPAD-1',
  };
}

/**
 * A hub's conversation as the service lists it: an uploaded one ready, with its transcript; any
 * other still processing. `times` as the field dialect sends them.
 */
export const conversation = (
  id: string,
  status: ConversationStatus = 'UPLOADED',
  deviceId = 'room-1',
  times: { startMs: number; endMs: number } | null = null,
): Conversation => ({
  conversationId: id,
  deviceId,
  status,
  speechMinuteCount: 3,
  transcriptState: status === 'UPLOADED' ? 'READY' : 'PROCESSING',
  isImportable: status === 'UPLOADED',
  notImportableReason: '',
  transcriptText: status === 'UPLOADED' ? `transcript of ${id}` : '',
  ...times,
});

/** The full-text indexes of the cache (migrations 002, 007 and 011). */
const FTS_INDEXES = [
  'notes_fts',
  'recent_notes_fts',
  'history_fts',
  'patients_fts',
  'conversations_fts',
  'speaker_lines_fts',
];

/**
 * FTS5's own check of every index, including that it matches its content table row for row
 * (rank 1): throws "database disk image is malformed" when an index has drifted. Then the kept
 * count of labels (010) against the labels, the count of the newest notes (011) against them, and
 * the kept patients (013) against the labels' patients.
 */
export function checkIndexes(db: {
  prepare(sql: string): { run(): unknown; get(): unknown };
}): void {
  // A table a migration after the file's version adds is not there yet.
  const has = (name: string) =>
    Boolean(db.prepare(`SELECT 1 FROM sqlite_master WHERE name = '${name}'`).get());
  /** A count kept in a one-row table (`kept`, SQL) against a count of what it counts. */
  const sameCount = (table: string, kept: string, counted: string) => {
    if (!has(table)) return;
    const { n, of } = db
      .prepare(`SELECT (SELECT ${kept} FROM ${table}) AS n, (SELECT ${counted}) AS of`)
      .get() as { n: number; of: number };
    if (n !== of) throw new Error(`${table} counts ${n}; the cache holds ${of}.`);
  };
  for (const table of FTS_INDEXES)
    if (has(table))
      db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`).run();
  sameCount('label_count', 'labels', 'count(*) FROM labels');
  sameCount('recent_notes_held', 'notes', 'count(*) FROM recent_notes');
  // The kept patients (013) are the labels' own.
  if (has('patients')) {
    const drift = db
      .prepare(
        `WITH kept AS (SELECT patient_id, patient_name, labels, newest_ms FROM patients),
              held AS (SELECT patient_id, coalesce(patient_name, ''), count(*), max(from_ms)
                         FROM labels WHERE patient_id IS NOT NULL GROUP BY 1, 2)
         SELECT (SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM held))
              + (SELECT count(*) FROM (SELECT * FROM held EXCEPT SELECT * FROM kept)) AS n`,
      )
      .get() as { n: number };
    if (drift.n !== 0)
      throw new Error(`patients differs from the labels' patients in ${drift.n} rows.`);
  }
}

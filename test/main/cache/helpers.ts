import { mkdtempSync, rmSync } from 'node:fs';
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
  for (const table of FTS_INDEXES) {
    // An index a migration after this file's version adds is not there yet.
    if (!db.prepare(`SELECT 1 FROM sqlite_master WHERE name = '${table}'`).get()) continue;
    db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 1)`).run();
  }
  // The kept count of labels (010) is theirs.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'label_count'").get()) {
    const counts = db
      .prepare(
        'SELECT (SELECT labels FROM label_count) AS kept, (SELECT count(*) FROM labels) AS n',
      )
      .get() as { kept: number; n: number };
    if (counts.kept !== counts.n)
      throw new Error(`label_count holds ${counts.kept}; the cache holds ${counts.n} labels.`);
  }
  // The kept patients (013) are the labels' own.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'patients'").get()) {
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
  // The newest notes' own index (011): its count of them is theirs.
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'recent_notes_held'").get()) {
    const held = db
      .prepare(
        `SELECT (SELECT notes FROM recent_notes_held) AS kept,
                (SELECT count(*) FROM recent_notes) AS n`,
      )
      .get() as { kept: number; n: number };
    if (held.kept !== held.n)
      throw new Error(`recent_notes_held counts ${held.kept}; it holds ${held.n} notes.`);
  }
}

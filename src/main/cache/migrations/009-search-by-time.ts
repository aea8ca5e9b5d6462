import type { Migration } from '../migrate';

/** Keys stay below 2^53, exact in JavaScript: 26 bits of minutes (2000 to 2127), 27 of slots. */
const EPOCH_MS = Date.UTC(2000, 0, 1);
const LAST_MINUTE = 2 ** 26 - 1;
const SLOTS = 2 ** 27;

/** The first key of the minute a record starting at `fromMs` (SQL) starts in: newest smallest. */
const minuteBase = (fromMs: string) =>
  `(${LAST_MINUTE} - min(max((${fromMs} - ${EPOCH_MS}) / 60000, 0), ${LAST_MINUTE})) * ${SLOTS}`;

/**
 * The rows a table already holds keyed, in `seq` order within each minute; `fromMs` is the
 * record's start as seen from `rows` (a join giving each row's `seq`).
 */
const keyRows = (table: string, rows: string, fromMs: string) => `
  ALTER TABLE ${table} ADD COLUMN search_key INTEGER;
  UPDATE ${table} SET search_key = keyed.search_key FROM (
    SELECT seq, base + row_number() OVER (PARTITION BY base ORDER BY seq) - 1 AS search_key
      FROM (SELECT ${table}.seq AS seq, ${minuteBase(fromMs)} AS base FROM ${rows})
  ) AS keyed WHERE ${table}.seq = keyed.seq;
  CREATE UNIQUE INDEX ${table}_by_search_key ON ${table} (search_key);`;

/** A row just inserted (`new.seq`) keyed: the next free slot of its record's start minute. */
const keyNewRow = (table: string, fromMs: string) => `
  UPDATE ${table} SET search_key = (
    SELECT coalesce(max(taken.search_key) + 1, base.key)
      FROM (SELECT ${minuteBase(fromMs)} AS key) AS base
      LEFT JOIN ${table} AS taken ON taken.search_key BETWEEN base.key AND base.key + ${SLOTS - 1}
  ) WHERE seq = new.seq;`;

/** An index over `content` (its `column`) keyed by `search_key`, filled in key order. */
const keyedIndex = (index: string, content: string, column: string, tokenize: string) => `
  CREATE VIRTUAL TABLE ${index} USING fts5(
    ${column}, content = '${content}', content_rowid = 'search_key', tokenize = '${tokenize}'
  );
  INSERT INTO ${index} (rowid, ${column})
    SELECT search_key, ${column} FROM ${content} ORDER BY search_key;`;

const WORDS = 'porter unicode61 remove_diacritics 2';
const NAMES = 'unicode61 remove_diacritics 2';

/**
 * Search by time (issue 31). A search over a hospital's million records cannot rank every match
 * (bm25 and a snippet for each: hundreds of thousands for a common word). The indexes of notes
 * and patients' names are keyed by time instead, so the newest matches are the first rows FTS5
 * reads and a search stops after the few it shows (search.ts).
 *
 * - `search_key` of `notes` and of `labels`: a row's rowid in `notes_fts` / `history_fts`, or in
 *   `patients_fts`: its record's start minute, newest first (minuteBase), then the next free slot
 *   of that minute, so keys are unique. Set once, when the row is stored (a record whose start
 *   later moves keeps its key). `seq` could not serve: the sync stores the newest records first
 *   and then walks back. Keys grow as the sync goes, which FTS5 writes cheapest: a key below the
 *   last one written in a transaction makes it flush what it holds.
 * - The three indexes are rebuilt with those keys, in key order; their triggers are migration
 *   002's, with the key for the rowid.
 * - The Recordings list (labels.ts) at any size: sorted by duration, its first page is the
 *   first rows of `labels_by_duration` (either direction; ties as the list breaks them).
 *   Filtered by type and dates, `labels_by_type` holds the rows to look at, and their patient's
 *   name, so counting them (and matching the patient filter) reads the index alone.
 */
export const migration: Migration = {
  version: 9,
  name: 'search by time',
  up(db) {
    db.exec(`
      DROP TRIGGER notes_fts_insert;
      DROP TRIGGER notes_fts_delete;
      DROP TRIGGER notes_fts_update;
      DROP TRIGGER patients_fts_insert;
      DROP TRIGGER patients_fts_delete;
      DROP TRIGGER patients_fts_update;
      DROP TABLE notes_fts;
      DROP TABLE history_fts;
      DROP TABLE patients_fts;
      DROP VIEW current_notes;
      DROP VIEW replaced_notes;

      ${keyRows('labels', 'labels', 'from_ms')}
      ${keyRows('notes', 'notes JOIN labels ON labels.id = notes.label_id', 'labels.from_ms')}

      CREATE VIEW current_notes AS SELECT search_key, content FROM notes WHERE is_current = 1;
      CREATE VIEW replaced_notes AS SELECT search_key, content FROM notes WHERE is_current = 0;
      ${keyedIndex('notes_fts', 'current_notes', 'content', WORDS)}
      ${keyedIndex('history_fts', 'replaced_notes', 'content', WORDS)}
      ${keyedIndex('patients_fts', 'labels', 'patient_name', NAMES)}

      CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        ${keyNewRow('notes', '(SELECT from_ms FROM labels WHERE id = new.label_id)')}
        INSERT INTO notes_fts (rowid, content)
          SELECT search_key, content FROM notes WHERE seq = new.seq AND is_current = 1;
        INSERT INTO history_fts (rowid, content)
          SELECT search_key, content FROM notes WHERE seq = new.seq AND is_current = 0;
      END;
      CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, content)
          SELECT 'delete', old.search_key, old.content WHERE old.is_current = 1;
        INSERT INTO history_fts (history_fts, rowid, content)
          SELECT 'delete', old.search_key, old.content WHERE old.is_current = 0;
      END;
      CREATE TRIGGER notes_fts_update AFTER UPDATE OF content, is_current ON notes
      WHEN old.content IS NOT new.content OR old.is_current IS NOT new.is_current BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, content)
          SELECT 'delete', old.search_key, old.content WHERE old.is_current = 1;
        INSERT INTO history_fts (history_fts, rowid, content)
          SELECT 'delete', old.search_key, old.content WHERE old.is_current = 0;
        INSERT INTO notes_fts (rowid, content)
          SELECT new.search_key, new.content WHERE new.is_current = 1;
        INSERT INTO history_fts (rowid, content)
          SELECT new.search_key, new.content WHERE new.is_current = 0;
      END;

      CREATE TRIGGER patients_fts_insert AFTER INSERT ON labels BEGIN
        ${keyNewRow('labels', 'new.from_ms')}
        INSERT INTO patients_fts (rowid, patient_name)
          SELECT search_key, patient_name FROM labels WHERE seq = new.seq;
      END;
      CREATE TRIGGER patients_fts_delete AFTER DELETE ON labels BEGIN
        INSERT INTO patients_fts (patients_fts, rowid, patient_name)
          VALUES ('delete', old.search_key, old.patient_name);
      END;
      CREATE TRIGGER patients_fts_update AFTER UPDATE OF patient_name ON labels
      WHEN old.patient_name IS NOT new.patient_name BEGIN
        INSERT INTO patients_fts (patients_fts, rowid, patient_name)
          VALUES ('delete', old.search_key, old.patient_name);
        INSERT INTO patients_fts (rowid, patient_name) VALUES (new.search_key, new.patient_name);
      END;

      CREATE INDEX labels_by_duration ON labels ((to_ms - from_ms), from_ms, id);
      CREATE INDEX labels_by_type ON labels (type, from_ms, patient_name, id);
    `);
  },
};

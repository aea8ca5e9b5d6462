import type { Migration } from '../migrate';

/** Keys stay below 2^53, exact in JavaScript: 26 bits of minutes (2000 to 2127), 27 of slots. */
const EPOCH_MS = Date.UTC(2000, 0, 1);
const LAST_MINUTE = 2 ** 26 - 1;
const SLOTS = 2 ** 27;

/** The first key of the minute a record starting at `fromMs` (SQL) starts in: newest smallest. */
const minuteBase = (fromMs: string) =>
  `(${LAST_MINUTE} - min(max((${fromMs} - ${EPOCH_MS}) / 60000, 0), ${LAST_MINUTE})) * ${SLOTS}`;

const NOTE_INDEX = (index: string, view: string) => `
  CREATE VIRTUAL TABLE ${index} USING fts5(
    content, content = '${view}', content_rowid = 'search_key',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  INSERT INTO ${index} (rowid, content) SELECT search_key, content FROM ${view} ORDER BY search_key;`;

/**
 * Search by time (issue 31). A search over a hospital's million records cannot rank every match
 * (bm25 and a snippet for each: hundreds of thousands for a common word). The note indexes are
 * keyed by time instead, so the newest matches are the first rows FTS5 reads and a search stops
 * after the few it shows (search.ts).
 *
 * - `notes.search_key`: the rowid of a note in `notes_fts` / `history_fts`: its record's start
 *   minute, newest first (minuteBase), then the next free slot of that minute, so keys are
 *   unique. Set once, when the note is stored (a record whose start later moves keeps its key).
 *   Keys grow as the sync goes (newest records first), which FTS5 writes cheapest: a key below
 *   the last one written in a transaction makes it flush what it holds.
 * - Both note indexes are rebuilt with those keys, in key order. Their triggers are migration
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
      DROP TABLE notes_fts;
      DROP TABLE history_fts;
      DROP VIEW current_notes;
      DROP VIEW replaced_notes;

      ALTER TABLE notes ADD COLUMN search_key INTEGER;
      UPDATE notes SET search_key = keyed.search_key FROM (
        SELECT seq, base + row_number() OVER (PARTITION BY base ORDER BY seq) - 1 AS search_key
          FROM (SELECT n.seq, ${minuteBase('l.from_ms')} AS base
                  FROM notes n JOIN labels l ON l.id = n.label_id)
      ) AS keyed WHERE notes.seq = keyed.seq;
      CREATE UNIQUE INDEX notes_by_search_key ON notes (search_key);

      CREATE VIEW current_notes AS SELECT search_key, content FROM notes WHERE is_current = 1;
      CREATE VIEW replaced_notes AS SELECT search_key, content FROM notes WHERE is_current = 0;
      ${NOTE_INDEX('notes_fts', 'current_notes')}
      ${NOTE_INDEX('history_fts', 'replaced_notes')}

      CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        UPDATE notes SET search_key = (
          SELECT coalesce(max(taken.search_key) + 1, base.key)
            FROM (SELECT ${minuteBase('from_ms')} AS key FROM labels WHERE id = new.label_id)
                 AS base
            LEFT JOIN notes AS taken
              ON taken.search_key BETWEEN base.key AND base.key + ${SLOTS - 1}
        ) WHERE seq = new.seq;
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

      CREATE INDEX labels_by_duration ON labels ((to_ms - from_ms), from_ms, id);
      CREATE INDEX labels_by_type ON labels (type, from_ms, patient_name, id);
    `);
  },
};

import type { Migration } from '../migrate';

/** How many of the newest current notes a trim keeps, and how many make a trim. */
const RECENT_NOTES_KEPT = 10_000;
const RECENT_NOTES_TRIMMED_PAST = 20_000;

/** Above every search key (009 keeps them below 2^53): while it is the bound, every note is held. */
const EVERY_KEY = Number.MAX_SAFE_INTEGER;

const HELD = '(SELECT bound FROM recent_notes_held)';
const WORDS = 'porter unicode61 remove_diacritics 2';

/**
 * The newest current notes, indexed again on their own (issue 31). A search for a word being
 * typed ("vacc", "th") is an FTS5 prefix query, and FTS5 reads every doclist of every word the
 * prefix starts before it returns its first match: in `notes_fts` of a million records, 5 ms
 * for "vacc", 0.4 s for "th" and "b", however few hits are shown. Asked of the newest ten to
 * twenty thousand notes first, its cost no longer grows with the history: the newest hits are
 * theirs whenever they hold enough (search.ts). A prefix index (`prefix=` on `notes_fts`) was
 * measured instead: each prefix length grows the index by 58–73% (+430–540 MB at 1M) and
 * serves that one length only.
 *
 * - `recent_notes_held`, one row: `bound`, the largest search key held (keys are newest
 *   smallest): every current note keyed at most `bound` is in `recent_notes_fts`, and no other;
 *   `notes`, how many. `keep` and `trim_at` are the sizes below (a row, so a test can shrink them).
 * - The triggers follow 009's on `notes`. A note is keyed after it is inserted (009's insert
 *   trigger updates its `search_key`), so the key's update is when a new note comes in.
 * - Past `trim_at` notes, a trim lowers the bound to the `keep`-th newest and deletes the rest
 *   from the index (a trigger, inside the write that crossed it: ~0.2 s, once per ten thousand
 *   new notes). The bound never rises: a note stored later for an older record stays out.
 */
export const migration: Migration = {
  version: 11,
  name: 'recent notes search',
  up(db) {
    db.exec(`
      CREATE TABLE recent_notes_held (
        only INTEGER PRIMARY KEY CHECK (only = 1),
        bound INTEGER NOT NULL,
        notes INTEGER NOT NULL,
        keep INTEGER NOT NULL,
        trim_at INTEGER NOT NULL
      );
      INSERT INTO recent_notes_held (only, bound, notes, keep, trim_at) VALUES (
        1,
        coalesce((SELECT search_key FROM notes WHERE is_current = 1
                   ORDER BY search_key LIMIT 1 OFFSET ${RECENT_NOTES_KEPT - 1}), ${EVERY_KEY}),
        0, ${RECENT_NOTES_KEPT}, ${RECENT_NOTES_TRIMMED_PAST}
      );
      CREATE VIEW recent_notes AS
        SELECT search_key, content FROM notes WHERE is_current = 1 AND search_key <= ${HELD};
      CREATE VIRTUAL TABLE recent_notes_fts USING fts5(
        content, content = 'recent_notes', content_rowid = 'search_key', tokenize = '${WORDS}'
      );
      INSERT INTO recent_notes_fts (rowid, content)
        SELECT search_key, content FROM recent_notes ORDER BY search_key;
      UPDATE recent_notes_held SET notes = (SELECT count(*) FROM recent_notes);

      CREATE TRIGGER recent_notes_keyed AFTER UPDATE OF search_key ON notes
      WHEN old.search_key IS NULL AND new.is_current = 1 AND new.search_key <= ${HELD} BEGIN
        INSERT INTO recent_notes_fts (rowid, content) VALUES (new.search_key, new.content);
        UPDATE recent_notes_held SET notes = notes + 1;
      END;
      CREATE TRIGGER recent_notes_deleted AFTER DELETE ON notes
      WHEN old.is_current = 1 AND old.search_key <= ${HELD} BEGIN
        INSERT INTO recent_notes_fts (recent_notes_fts, rowid, content)
          VALUES ('delete', old.search_key, old.content);
        UPDATE recent_notes_held SET notes = notes - 1;
      END;
      CREATE TRIGGER recent_notes_changed AFTER UPDATE OF content, is_current ON notes
      WHEN (old.content IS NOT new.content OR old.is_current IS NOT new.is_current)
        AND old.search_key <= ${HELD} BEGIN
        INSERT INTO recent_notes_fts (recent_notes_fts, rowid, content)
          SELECT 'delete', old.search_key, old.content WHERE old.is_current = 1;
        INSERT INTO recent_notes_fts (rowid, content)
          SELECT new.search_key, new.content WHERE new.is_current = 1;
        UPDATE recent_notes_held SET notes = notes - old.is_current + new.is_current;
      END;

      CREATE TRIGGER recent_notes_trim AFTER UPDATE OF notes ON recent_notes_held
      WHEN new.notes > new.trim_at BEGIN
        INSERT INTO recent_notes_fts (recent_notes_fts, rowid, content)
          SELECT 'delete', search_key, content FROM recent_notes
           WHERE search_key > (SELECT search_key FROM recent_notes
                                ORDER BY search_key LIMIT 1 OFFSET new.keep - 1);
        UPDATE recent_notes_held SET notes = new.keep, bound = (
          SELECT search_key FROM recent_notes ORDER BY search_key LIMIT 1 OFFSET new.keep - 1);
      END;
    `);
  },
};

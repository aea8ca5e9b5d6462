import type { Migration } from '../migrate';

/** Transcripts: English stems (porter). Names: no stemming. Both fold case and diacritics. */
const WORDS = 'porter unicode61 remove_diacritics 2';
const NAMES = 'unicode61 remove_diacritics 2';

/** An external-content index of one column of `table` (rowid `seq`), kept right by triggers. */
const columnIndex = (index: string, table: string, column: string, tokenize: string) => `
  CREATE VIRTUAL TABLE ${index} USING fts5(
    ${column}, content = '${table}', content_rowid = 'seq', tokenize = '${tokenize}'
  );
  CREATE TRIGGER ${index}_insert AFTER INSERT ON ${table} BEGIN
    INSERT INTO ${index} (rowid, ${column}) VALUES (new.seq, new.${column});
  END;
  CREATE TRIGGER ${index}_delete AFTER DELETE ON ${table} BEGIN
    INSERT INTO ${index} (${index}, rowid, ${column}) VALUES ('delete', old.seq, old.${column});
  END;
  CREATE TRIGGER ${index}_update AFTER UPDATE OF ${column} ON ${table}
  WHEN old.${column} IS NOT new.${column} BEGIN
    INSERT INTO ${index} (${index}, rowid, ${column}) VALUES ('delete', old.seq, old.${column});
    INSERT INTO ${index} (rowid, ${column}) VALUES (new.seq, new.${column});
  END;`;

/**
 * FTS5 over note contents (current versions and, apart, the versions they replaced), patient
 * names and conversation transcripts. Each index is external-content (the text is stored once, in
 * its table) and kept right by triggers; a delete hands FTS5 the old values, which it needs to
 * find the tokens to remove. Updates fire only when the indexed text (or a note's currency)
 * really changes, so re-listing a label (which rewrites its row) costs the index nothing.
 *
 * Notes have two indexes, over two views of the table: `notes_fts` holds the current versions
 * (what a search ranks first, with no join to filter the history out of every match) and
 * `history_fts` the replaced ones. A note that stops being current moves from one to the other.
 *
 * Tokenizers: transcripts and conversations stem English words (porter: "vomiting" finds
 * "vomit"); names do not. Both fold case and diacritics. `rebuild` indexes rows already there.
 */
export const migration: Migration = {
  version: 2,
  name: 'full-text search',
  up(db) {
    db.exec(`
      CREATE VIEW current_notes AS SELECT seq, content FROM notes WHERE is_current = 1;
      CREATE VIEW replaced_notes AS SELECT seq, content FROM notes WHERE is_current = 0;
      CREATE VIRTUAL TABLE notes_fts USING fts5(
        content, content = 'current_notes', content_rowid = 'seq',
        tokenize = '${WORDS}'
      );
      CREATE VIRTUAL TABLE history_fts USING fts5(
        content, content = 'replaced_notes', content_rowid = 'seq',
        tokenize = '${WORDS}'
      );
      CREATE TRIGGER notes_fts_insert AFTER INSERT ON notes BEGIN
        INSERT INTO notes_fts (rowid, content) SELECT new.seq, new.content WHERE new.is_current = 1;
        INSERT INTO history_fts (rowid, content) SELECT new.seq, new.content WHERE new.is_current = 0;
      END;
      CREATE TRIGGER notes_fts_delete AFTER DELETE ON notes BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, content)
          SELECT 'delete', old.seq, old.content WHERE old.is_current = 1;
        INSERT INTO history_fts (history_fts, rowid, content)
          SELECT 'delete', old.seq, old.content WHERE old.is_current = 0;
      END;
      CREATE TRIGGER notes_fts_update AFTER UPDATE OF content, is_current ON notes
      WHEN old.content IS NOT new.content OR old.is_current IS NOT new.is_current BEGIN
        INSERT INTO notes_fts (notes_fts, rowid, content)
          SELECT 'delete', old.seq, old.content WHERE old.is_current = 1;
        INSERT INTO history_fts (history_fts, rowid, content)
          SELECT 'delete', old.seq, old.content WHERE old.is_current = 0;
        INSERT INTO notes_fts (rowid, content) SELECT new.seq, new.content WHERE new.is_current = 1;
        INSERT INTO history_fts (rowid, content) SELECT new.seq, new.content WHERE new.is_current = 0;
      END;

      ${columnIndex('patients_fts', 'labels', 'patient_name', NAMES)}
      ${columnIndex('conversations_fts', 'conversations', 'transcript_text', WORDS)}

      INSERT INTO notes_fts (notes_fts) VALUES ('rebuild');
      INSERT INTO history_fts (history_fts) VALUES ('rebuild');
      INSERT INTO patients_fts (patients_fts) VALUES ('rebuild');
      INSERT INTO conversations_fts (conversations_fts) VALUES ('rebuild');
    `);
  },
};

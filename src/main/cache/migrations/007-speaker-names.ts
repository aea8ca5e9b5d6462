import type { Migration } from '../migrate';

/**
 * Speaker names (issue 28): the names and moved lines a user gives a record's transcript, one
 * row per transcript version they were made on (`version_key`: transcriptVersionKey of
 * src/shared/speakers/overlay.ts), as JSON in the shapes of that module. Unlike the rest of the
 * cache this is the user's own data, which the service cannot give back: a damaged cache keeps
 * it (database.ts salvages it, as it does created ranges), and it goes only with its recording.
 *
 * `is_current` marks the row of the record's current transcript version, whose named lines are
 * in `speaker_lines` and its full-text index, so a speaker's name finds their lines (search.ts).
 * The index is external-content with triggers, as migration 002's; a label's lines are replaced
 * whole (delete, insert), never updated.
 */
export const migration: Migration = {
  version: 7,
  name: 'speaker names',
  up(db) {
    db.exec(`
      CREATE TABLE speaker_overlays (
        label_id TEXT NOT NULL,
        version_key TEXT NOT NULL,
        names TEXT NOT NULL,
        moves TEXT NOT NULL,
        notice TEXT,
        is_current INTEGER NOT NULL DEFAULT 0,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (label_id, version_key)
      ) WITHOUT ROWID;
      CREATE INDEX speaker_overlays_current ON speaker_overlays (label_id) WHERE is_current = 1;

      CREATE TABLE speaker_lines (
        seq INTEGER PRIMARY KEY,
        label_id TEXT NOT NULL,
        line INTEGER NOT NULL,
        speaker TEXT NOT NULL,
        role TEXT,
        text TEXT NOT NULL,
        UNIQUE (label_id, line)
      );
      CREATE VIRTUAL TABLE speaker_lines_fts USING fts5(
        speaker, text, content = 'speaker_lines', content_rowid = 'seq',
        tokenize = 'porter unicode61 remove_diacritics 2'
      );
      CREATE TRIGGER speaker_lines_fts_insert AFTER INSERT ON speaker_lines BEGIN
        INSERT INTO speaker_lines_fts (rowid, speaker, text) VALUES (new.seq, new.speaker, new.text);
      END;
      CREATE TRIGGER speaker_lines_fts_delete AFTER DELETE ON speaker_lines BEGIN
        INSERT INTO speaker_lines_fts (speaker_lines_fts, rowid, speaker, text)
          VALUES ('delete', old.seq, old.speaker, old.text);
      END;

      -- A recording gone from the service takes its names along.
      CREATE TRIGGER speaker_names_of_deleted_label AFTER DELETE ON labels BEGIN
        DELETE FROM speaker_overlays WHERE label_id = old.id;
        DELETE FROM speaker_lines WHERE label_id = old.id;
      END;
    `);
  },
};

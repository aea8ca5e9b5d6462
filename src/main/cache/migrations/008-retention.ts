import type { Migration } from '../migrate';

/**
 * Retention (issue 29): records the user keeps on this computer whatever their age, and when
 * this computer first saw each conversation.
 *
 * - `kept_records`: "Keep on this computer". Keyed by the record and cascading with it (as
 *   every record-keyed table: record-tables.ts lists them), so a record the service deleted
 *   takes its mark with it; a cleanup never removes a kept record.
 * - `conversations.first_seen_at`: a conversation's age is the start of the range it covers;
 *   where the service says none (the seed's conversation has no times) and no record or
 *   created range tells it, it is the time this computer first saw it. A sync's later sighting
 *   never moves it. Conversations already cached take their last sighting, the best known.
 * - A record's review marks (006) go with it, as its speaker names (007) already do: a cleanup
 *   that removes a record leaves nothing of it. They have no foreign key (a damaged cache's
 *   marks are salvaged into the new one before its records are synced again): a trigger.
 */
export const migration: Migration = {
  version: 8,
  name: 'retention',
  up(db) {
    db.exec(`
      CREATE TABLE kept_records (
        label_id TEXT PRIMARY KEY REFERENCES labels (id) ON DELETE CASCADE,
        kept_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      ALTER TABLE conversations ADD COLUMN first_seen_at INTEGER;
      UPDATE conversations SET first_seen_at = seen_at;

      CREATE TRIGGER review_marks_of_deleted_label AFTER DELETE ON labels BEGIN
        DELETE FROM review_records WHERE label_id = old.id;
        DELETE FROM review_versions WHERE label_id = old.id;
      END;
    `);
  },
};

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
 */
export const migration: Migration = {
  version: 6,
  name: 'retention',
  up(db) {
    db.exec(`
      CREATE TABLE kept_records (
        label_id TEXT PRIMARY KEY REFERENCES labels (id) ON DELETE CASCADE,
        kept_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      ALTER TABLE conversations ADD COLUMN first_seen_at INTEGER;
      UPDATE conversations SET first_seen_at = seen_at;
    `);
  },
};

import type { Migration } from '../migrate';

/**
 * What this user of this computer reviewed (the cache is per account, so per user), kept across
 * restarts, and the review settings. Unlike the rest of the cache the service cannot give these
 * back, so a damaged cache's marks are salvaged like created ranges.
 *
 * - A record's mark keeps the version keys of the notes that were current when it was reviewed
 *   (`review_versions`): a current transcript or note whose key is not among them is a newer
 *   version, and the record is back as "updated". Notes have no id; their version key (001) does.
 * - A conversation's mark keeps the status it was reviewed in: a later status brings it back.
 * - `tasks_by_group` finds the sign-off task of a record (groupKey = the record's id) at once;
 *   `notes_current` reads a record's current versions without its history.
 */
export const migration: Migration = {
  version: 6,
  name: 'review state',
  up(db) {
    db.exec(`
      CREATE TABLE review_records (
        label_id TEXT PRIMARY KEY,
        reviewed_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE review_versions (
        label_id TEXT NOT NULL,
        version_key TEXT NOT NULL,
        PRIMARY KEY (label_id, version_key)
      ) WITHOUT ROWID;

      CREATE TABLE review_conversations (
        conversation_id TEXT PRIMARY KEY,
        status TEXT NOT NULL,
        reviewed_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      -- One JSON value per setting (ReviewSettings).
      CREATE TABLE review_settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

      CREATE INDEX tasks_by_group ON tasks (group_key, board_id);
      CREATE INDEX notes_current ON notes (label_id, type) WHERE is_current = 1;
    `);
  },
};

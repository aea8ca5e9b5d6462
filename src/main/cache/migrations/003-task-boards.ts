import type { Migration } from '../migrate';

/** Task boards and their tasks, for the follow-up screen (seed §2.6, §2.7). */
export const migration: Migration = {
  version: 3,
  name: 'task boards',
  up(db) {
    db.exec(`
      CREATE TABLE task_boards (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        statuses TEXT NOT NULL, -- JSON array of TaskStatus
        fields TEXT NOT NULL,   -- JSON array of FieldDefinition
        created_at TEXT NOT NULL,
        fetched_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        board_id TEXT NOT NULL REFERENCES task_boards (id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        group_key TEXT NOT NULL,
        status_id TEXT NOT NULL,
        fields TEXT NOT NULL, -- JSON object of field values
        link_url TEXT NOT NULL,
        description TEXT NOT NULL,
        assignee TEXT NOT NULL,
        due_date TEXT NOT NULL,
        completed_at TEXT NOT NULL,
        completed_at_iso TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        fetched_at INTEGER NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX tasks_by_board ON tasks (board_id, created_at, id);
    `);
  },
};

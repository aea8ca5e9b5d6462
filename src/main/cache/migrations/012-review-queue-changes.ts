import type { Migration } from '../migrate';

/** Changes logged past this many since tracking began: the queue is read whole instead. */
const CHANGES_KEPT = 10_000;

/** What a change is to the review queue: a record, a conversation, or everything (a board, a device). */
type Entry = ['record' | 'conversation' | 'everything', string];

/**
 * A trigger that logs `entries` (SQL over `old` and `new`) when `event` on `table` happens while
 * the queue's changes are tracked and `when` holds.
 */
const logs = (name: string, event: string, table: string, when: string, entries: Entry[]) => `
  CREATE TRIGGER ${name} AFTER ${event} ON ${table}
  WHEN (SELECT tracking FROM queue_tracking) = 1 AND (${when}) BEGIN
    ${entries
      .map(([kind, id]) => `INSERT INTO queue_changes (kind, id) VALUES ('${kind}', ${id});`)
      .join('\n    ')}
  END;`;

/** `old.c IS NOT new.c OR …` for each column. */
const changed = (columns: string[]) => columns.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ');

/** A table's inserts, deletes and updates of `columns`, each logging the row's item (`id` of old or new). */
const follow = (table: string, columns: string[], kind: Entry[0], id: (row: string) => string) => `
  ${logs(`queue_changes_${table}_insert`, 'INSERT', table, '1', [[kind, id('new')]])}
  ${logs(`queue_changes_${table}_delete`, 'DELETE', table, '1', [[kind, id('old')]])}
  ${logs(
    `queue_changes_${table}_update`,
    `UPDATE OF ${columns.join(', ')}`,
    table,
    changed(columns),
    [
      [kind, id('old')],
      [kind, id('new')],
    ],
  )}`;

/**
 * What changed in the review queue since it was last read (issue 31). Reading the whole queue
 * takes 3.2 s of a core at 1M records, and it was read whole after every sync (every five
 * minutes) and every mark; a sync of a working day's minutes brings a few records. So while
 * main keeps a reading, the cache logs which items the writes touch, and main judges only those
 * anew into what it keeps (src/main/review/review.ts, src/shared/review/queue-index.ts).
 *
 * - `queue_tracking`, one row: `tracking` 1 from a whole reading on (main turns it on before
 *   it reads, so nothing written after the reading's snapshot is missed); `overflowed` when more
 *   than `cap` changes came before main took them (a first sync): logging stops and the next
 *   reading is whole.
 * - `queue_changes`: the items touched, in order (`seq`); main takes those up to a `seq` and
 *   deletes them. An item may be logged many times; a whole reading empties the log.
 * - Triggers on every table the queue's facts are read from (src/main/cache/review.ts): a
 *   record's label, notes (current versions), review marks and sign-off tasks; a conversation's
 *   row, created range and review mark. A renamed or deleted task board or device changes items
 *   it cannot name: it logs `everything`, and the queue is read whole.
 */
export const migration: Migration = {
  version: 12,
  name: 'review queue changes',
  up(db) {
    db.exec(`
      CREATE TABLE queue_tracking (
        only INTEGER PRIMARY KEY CHECK (only = 1),
        tracking INTEGER NOT NULL,
        overflowed INTEGER NOT NULL,
        cap INTEGER NOT NULL
      );
      INSERT INTO queue_tracking (only, tracking, overflowed, cap) VALUES (1, 0, 0, ${CHANGES_KEPT});
      CREATE TABLE queue_changes (
        seq INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        id TEXT NOT NULL
      );
      CREATE TRIGGER queue_changes_overflow AFTER INSERT ON queue_changes
      WHEN new.seq > (SELECT cap FROM queue_tracking) BEGIN
        UPDATE queue_tracking SET tracking = 0, overflowed = 1;
        DELETE FROM queue_changes;
      END;
      ${follow(
        'labels',
        [
          'id',
          'type',
          'from_ms',
          'to_ms',
          'patient_name',
          'friendly_name',
          'device_serial',
          'transcript_pending',
        ],
        'record',
        (row) => `${row}.id`,
      )}
      ${follow('notes', ['label_id', 'type', 'version_key', 'is_current'], 'record', (row) => `${row}.label_id`)}
      ${follow('review_records', ['label_id', 'reviewed_at'], 'record', (row) => `${row}.label_id`)}
      ${follow('review_versions', ['label_id', 'version_key'], 'record', (row) => `${row}.label_id`)}
      ${follow(
        'tasks',
        ['board_id', 'group_key', 'assignee', 'completed_at', 'completed_at_iso'],
        'record',
        (row) => `${row}.group_key`,
      )}
      ${follow(
        'conversations',
        ['id', 'device_id', 'status', 'not_importable_reason', 'start_ms', 'end_ms'],
        'conversation',
        (row) => `${row}.id`,
      )}
      ${follow(
        'created_ranges',
        ['conversation_id', 'start_ms', 'end_ms'],
        'conversation',
        (row) => `${row}.conversation_id`,
      )}
      ${follow(
        'review_conversations',
        ['conversation_id', 'status', 'reviewed_at'],
        'conversation',
        (row) => `${row}.conversation_id`,
      )}
      ${follow('task_boards', ['name'], 'everything', () => "''")}
      ${follow('devices', ['id', 'serial', 'display_name'], 'everything', () => "''")}
    `);
  },
};

import type { Migration } from '../migrate';

/**
 * The mirror of what the service holds for one account, and the sync's own state.
 *
 * - Tables with an FTS index (labels, notes, conversations; see 002) keep an INTEGER PRIMARY KEY
 *   `seq` as the index's rowid and the service's id as a UNIQUE column: writes are upserts
 *   (`ON CONFLICT DO UPDATE`), never `INSERT OR REPLACE`, whose implicit delete would skip the
 *   index's delete trigger.
 * - Times the UI filters or sorts by are epoch milliseconds; the service's ISO strings are kept
 *   as sent where they are only shown (note times).
 */
export const migration: Migration = {
  version: 1,
  name: 'core tables',
  up(db) {
    db.exec(`
      CREATE TABLE identity (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        user_id TEXT NOT NULL,
        email TEXT NOT NULL,
        organization_id TEXT NOT NULL,
        organization_name TEXT NOT NULL,
        body TEXT NOT NULL,
        fetched_at INTEGER NOT NULL
      );

      CREATE TABLE devices (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        serial TEXT NOT NULL,
        position INTEGER NOT NULL,
        fetched_at INTEGER NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE labels (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        from_ms INTEGER NOT NULL,
        to_ms INTEGER NOT NULL,
        patient_id TEXT,
        patient_name TEXT,
        friendly_name TEXT NOT NULL,
        device_serial TEXT NOT NULL,
        -- When a listing or a detail last showed the label (sweeps delete what a walk did not see).
        seen_at INTEGER NOT NULL,
        -- 1 while its notes must be fetched (labels.get): new, changed, or not settled yet.
        notes_stale INTEGER NOT NULL DEFAULT 1,
        notes_fetched_at INTEGER,
        -- 1 while the current transcript is missing or still being generated ("{}").
        transcript_pending INTEGER NOT NULL DEFAULT 1
      );
      CREATE INDEX labels_by_time ON labels (from_ms DESC, id DESC);
      CREATE INDEX labels_notes_stale ON labels (from_ms DESC) WHERE notes_stale = 1;

      CREATE TABLE notes (
        seq INTEGER PRIMARY KEY,
        label_id TEXT NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
        -- Notes have no id: a version is its type, times and content (hashed).
        version_key TEXT NOT NULL,
        type TEXT NOT NULL,
        content TEXT NOT NULL,
        created_at TEXT NOT NULL,
        time TEXT NOT NULL,
        -- Its place in the service's array, which the current-note rule uses for ties.
        position INTEGER NOT NULL,
        -- 1 for the current transcript (Transcript and NotesTranscript together) and the current
        -- note of every other type (shared/transcript.ts); 0 for the versions before them.
        is_current INTEGER NOT NULL DEFAULT 0,
        UNIQUE (label_id, version_key)
      );

      CREATE TABLE conversations (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        device_id TEXT NOT NULL,
        status TEXT NOT NULL,
        speech_minute_count INTEGER NOT NULL,
        transcript_state TEXT NOT NULL,
        is_importable INTEGER NOT NULL,
        not_importable_reason TEXT NOT NULL,
        transcript_text TEXT NOT NULL,
        -- The place in the service's listing (newest created first); the seed gives no times.
        list_position INTEGER NOT NULL,
        -- The walk (its start time) that last listed it.
        listed_in_walk INTEGER NOT NULL,
        seen_at INTEGER NOT NULL
      );
      CREATE INDEX conversations_by_position ON conversations (list_position);
      CREATE INDEX conversations_by_device ON conversations (device_id, list_position);

      CREATE TABLE timeline_minutes (
        device_id TEXT NOT NULL,
        minute_ms INTEGER NOT NULL,
        vad_is_silent INTEGER NOT NULL,
        vad_speech_ms INTEGER NOT NULL,
        transcript TEXT NOT NULL,
        diarized TEXT NOT NULL,
        PRIMARY KEY (device_id, minute_ms)
      ) WITHOUT ROWID;

      -- Which windows were fetched, and when: a minute absent inside one had no data; outside
      -- every one it is unknown. Rows of a device never overlap.
      CREATE TABLE timeline_coverage (
        device_id TEXT NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        fetched_at INTEGER NOT NULL,
        PRIMARY KEY (device_id, start_ms)
      ) WITHOUT ROWID;

      -- The ranges of the conversations this app created (the seed's conversation has no times).
      CREATE TABLE created_ranges (
        conversation_id TEXT PRIMARY KEY,
        device_id TEXT NOT NULL,
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        created_at TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX created_ranges_by_device ON created_ranges (device_id, start_ms);

      -- One JSON document per stream (labels window, history walk, conversations, status).
      CREATE TABLE sync_state (
        stream TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};

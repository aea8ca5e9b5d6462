/**
 * The reference service's schema, one entry per version. A database is migrated forward inside
 * one transaction per step; a database newer than this code is refused.
 * Times are integer epoch milliseconds; the HTTP layer turns them into ISO 8601.
 */
export const MIGRATIONS: readonly { version: number; name: string; sql: string }[] = [
  {
    version: 1,
    name: 'identity, devices, labels, hub, events',
    sql: `
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        entitlement_vet INTEGER NOT NULL,
        entitlement_call INTEGER NOT NULL,
        entitlement_hub INTEGER NOT NULL,
        vet_force_end_ms INTEGER,
        call_force_end_ms INTEGER
      );
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        email TEXT NOT NULL UNIQUE COLLATE NOCASE,
        display_name TEXT NOT NULL,
        password_hash TEXT NOT NULL
      );
      CREATE TABLE memberships (
        user_id TEXT NOT NULL REFERENCES users(id),
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
        PRIMARY KEY (user_id, organization_id)
      );
      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        key_prefix TEXT NOT NULL,
        allowed_features TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER,
        last_used_ms INTEGER,
        revoked_ms INTEGER
      );
      CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id),
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        expires_ms INTEGER NOT NULL
      );
      CREATE TABLE devices (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        display_name TEXT NOT NULL,
        serial TEXT NOT NULL
      );
      CREATE INDEX devices_by_org ON devices (organization_id, display_name);
      CREATE TABLE patients (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        species TEXT NOT NULL
      );
      CREATE TABLE labels (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        type TEXT NOT NULL,
        from_ms INTEGER NOT NULL,
        to_ms INTEGER NOT NULL,
        patient_id TEXT REFERENCES patients(id),
        user_id TEXT REFERENCES users(id),
        friendly_name TEXT NOT NULL,
        device_serial TEXT NOT NULL
      );
      CREATE INDEX labels_by_org_start ON labels (organization_id, from_ms, id);
      CREATE INDEX labels_by_org_type ON labels (organization_id, type, from_ms);
      CREATE INDEX labels_by_patient ON labels (patient_id);
      CREATE TABLE notes (
        id INTEGER PRIMARY KEY,
        label_id TEXT NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        content TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        time_ms INTEGER NOT NULL
      );
      CREATE INDEX notes_by_label ON notes (label_id);
      CREATE TABLE label_audio (
        label_id TEXT PRIMARY KEY REFERENCES labels(id) ON DELETE CASCADE,
        content_type TEXT NOT NULL,
        byte_length INTEGER NOT NULL,
        -- 'recipe': WAV rendered from demo speech clips (source is JSON); 'file': a file (source is a path)
        source_kind TEXT NOT NULL CHECK (source_kind IN ('recipe', 'file')),
        source TEXT NOT NULL
      );
      CREATE TABLE hub_minutes (
        device_id TEXT NOT NULL REFERENCES devices(id),
        minute_ms INTEGER NOT NULL,
        speech_ms INTEGER NOT NULL,
        transcript TEXT NOT NULL,
        diarized TEXT NOT NULL,
        -- JSON array of [clipId, offsetMs] placed in this minute
        clips TEXT NOT NULL,
        -- 0 where the device's upload of this minute was lost: processing a range with it fails
        audio_ok INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (device_id, minute_ms)
      ) WITHOUT ROWID;
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        device_id TEXT NOT NULL REFERENCES devices(id),
        start_ms INTEGER NOT NULL,
        end_ms INTEGER NOT NULL,
        status TEXT NOT NULL,
        speech_minute_count INTEGER NOT NULL,
        -- how the hub started it: 'api' (create), 'auto' (auto mode), 'button' (device button)
        origin TEXT NOT NULL,
        not_importable_reason TEXT NOT NULL DEFAULT '',
        transcript_text TEXT NOT NULL DEFAULT '',
        label_id TEXT REFERENCES labels(id),
        created_ms INTEGER NOT NULL,
        completed_ms INTEGER,
        -- when the processor next moves this conversation on (null: nothing scheduled)
        next_step_ms INTEGER
      );
      CREATE INDEX conversations_by_org ON conversations (organization_id, created_ms, id);
      CREATE INDEX conversations_by_device ON conversations (device_id, start_ms);
      CREATE INDEX conversations_due ON conversations (next_step_ms) WHERE next_step_ms IS NOT NULL;
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        organization_id TEXT NOT NULL,
        type TEXT NOT NULL,
        timestamp_ms INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    `,
  },
  {
    version: 2,
    name: 'task boards, webhooks and their delivery queue',
    sql: `
      CREATE TABLE task_boards (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        name TEXT NOT NULL,
        -- JSON arrays of the contract's TaskStatus and FieldDefinition, replaced whole by PATCH
        statuses TEXT NOT NULL,
        fields TEXT NOT NULL,
        created_ms INTEGER NOT NULL
      );
      CREATE INDEX task_boards_by_org ON task_boards (organization_id, created_ms);
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        board_id TEXT NOT NULL REFERENCES task_boards(id),
        title TEXT NOT NULL,
        group_key TEXT NOT NULL,
        -- JSON object: field key to value
        fields TEXT NOT NULL,
        link_url TEXT NOT NULL,
        description TEXT NOT NULL,
        assignee TEXT NOT NULL,
        due_date TEXT NOT NULL,
        completed_at TEXT NOT NULL,
        -- completedAtIso: stamped when the task enters a done-category status
        completed_ms INTEGER,
        status_id TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
      );
      CREATE INDEX tasks_by_board ON tasks (board_id, created_ms);
      CREATE INDEX tasks_by_status ON tasks (board_id, status_id);
      CREATE TABLE task_comments (
        id TEXT PRIMARY KEY,
        task_id TEXT NOT NULL REFERENCES tasks(id),
        author_email TEXT NOT NULL,
        body TEXT NOT NULL,
        created_ms INTEGER NOT NULL
      );
      CREATE INDEX task_comments_by_task ON task_comments (task_id, created_ms);
      CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        organization_id TEXT NOT NULL REFERENCES organizations(id),
        url TEXT NOT NULL,
        description TEXT NOT NULL,
        -- JSON array of event types; empty means every event
        event_types TEXT NOT NULL,
        -- kept as is: signing needs it
        secret TEXT NOT NULL,
        is_active INTEGER NOT NULL,
        consecutive_failures INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        -- the webhook receives the events logged after this sequence number (events.seq)
        after_seq INTEGER NOT NULL
      );
      CREATE INDEX webhooks_by_org ON webhooks (organization_id, created_ms);
      -- The durable delivery queue: one row per event still to be delivered to a webhook.
      CREATE TABLE webhook_queue (
        webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id TEXT NOT NULL,
        event_type TEXT NOT NULL,
        -- the exact bytes every attempt sends (and signs)
        body TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        next_attempt_ms INTEGER NOT NULL,
        PRIMARY KEY (webhook_id, event_id)
      ) WITHOUT ROWID;
      CREATE INDEX webhook_queue_due ON webhook_queue (next_attempt_ms);
      -- The delivery log: one row per attempt, the newest 50 per webhook kept.
      CREATE TABLE webhook_deliveries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        id TEXT NOT NULL UNIQUE,
        webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
        event_id TEXT NOT NULL,
        event_type TEXT NOT NULL,
        attempt_number INTEGER NOT NULL,
        http_status_code INTEGER NOT NULL,
        response_time_ms INTEGER NOT NULL,
        error_message TEXT,
        success INTEGER NOT NULL,
        created_ms INTEGER NOT NULL
      );
      CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);
      -- Events up to here have been fanned out into the queue (events logged before this
      -- version predate every webhook).
      INSERT INTO meta (key, value) SELECT 'webhook-fanout-seq', coalesce(max(seq), 0) FROM events;
    `,
  },
];

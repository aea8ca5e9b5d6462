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
];

import Database from 'better-sqlite3-multiple-ciphers';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openCacheDatabase } from '../../../src/main/cache/database';
import { migrate, schemaVersion, type Migration } from '../../../src/main/cache/migrate';
import { LATEST_SCHEMA_VERSION, MIGRATIONS } from '../../../src/main/cache/migrations';
import { migration as retention } from '../../../src/main/cache/migrations/008-retention';
import { migration as searchByTime } from '../../../src/main/cache/migrations/009-search-by-time';
import { migration as labelCount } from '../../../src/main/cache/migrations/010-label-count';
import { migration as recentNotesSearch } from '../../../src/main/cache/migrations/011-recent-notes-search';
import { migration as reviewQueueChanges } from '../../../src/main/cache/migrations/012-review-queue-changes';
import { migration as patientsTable } from '../../../src/main/cache/migrations/013-patients';
import { runQuery } from '../../../src/main/cache/queries';
import type { Db } from '../../../src/node-common/sql';
import type { ReviewFacts } from '../../../src/shared/ipc';
import { queuePage, type QueueIndex } from '../../../src/shared/review/queue-index';
import { checkIndexes, conversation, label, MINUTE, note, T0, useTempDir } from './helpers';

const tempDir = useTempDir('migrations');
const MIGRATIONS_DIR = fileURLToPath(
  new URL('../../../src/main/cache/migrations', import.meta.url),
);

/** A cache file brought to `version` exactly, as an older app would have left it. */
function cacheAt(version: number): { db: Db; file: string } {
  const file = join(tempDir(), 'cache.sqlite');
  const { db } = openCacheDatabase(file, { targetVersion: version });
  expect(schemaVersion(db)).toBe(version);
  return { db, file };
}

/**
 * The full-text indexes that hold a word, asked directly: today's search asks today's schema
 * (009's keys), so a database at an earlier version is checked index by index.
 */
const indexesHolding = (db: Db, word: string): string[] =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'").all() as {
      name: string;
    }[]
  )
    .map((row) => row.name)
    .filter((index) =>
      db.prepare(`SELECT 1 FROM ${index} WHERE ${index} MATCH ? LIMIT 1`).get(`"${word}"`),
    )
    .sort();

const tables = (db: Db) =>
  (
    db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')").all() as {
      name: string;
    }[]
  ).map((row) => row.name);

describe('the migration files', () => {
  it('are numbered NNN-name.ts from 001 with no gap, each holding its own version', () => {
    const files = readdirSync(MIGRATIONS_DIR)
      .filter((name) => name !== 'index.ts')
      .sort();
    expect(files.every((name) => /^\d{3}-[a-z0-9-]+\.ts$/.test(name))).toBe(true);
    expect(files.map((name) => Number(name.slice(0, 3)))).toEqual(
      MIGRATIONS.map((_, index) => index + 1),
    );
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, index) => index + 1));
    expect(LATEST_SCHEMA_VERSION).toBe(files.length);
  });

  it('run each version in its own transaction: a failing one leaves the version before it', () => {
    const file = join(tempDir(), 'cache.sqlite');
    const { db } = openCacheDatabase(file, { targetVersion: 1 });
    const broken: Migration = {
      version: 2,
      name: 'broken',
      up(target) {
        target.exec('CREATE TABLE half_done (x)');
        throw new Error('boom');
      },
    };
    expect(() => migrate(db, file, [MIGRATIONS[0]!, broken])).toThrow('boom');
    expect(schemaVersion(db)).toBe(1);
    expect(tables(db)).not.toContain('half_done');
    db.close();
  });
});

describe('001 core tables', () => {
  it('creates every table the cache mirrors, with its keys', () => {
    const { db } = cacheAt(1);
    expect(tables(db)).toEqual(
      expect.arrayContaining([
        'identity',
        'devices',
        'labels',
        'notes',
        'conversations',
        'timeline_minutes',
        'timeline_coverage',
        'created_ranges',
        'sync_state',
      ]),
    );
    db.prepare(
      "INSERT INTO labels (id, type, from_ms, to_ms, friendly_name, device_serial, seen_at) VALUES ('a', 'HubMic', 1, 2, '', '', 0)",
    ).run();
    expect(() =>
      db
        .prepare(
          "INSERT INTO labels (id, type, from_ms, to_ms, friendly_name, device_serial, seen_at) VALUES ('a', 'HubMic', 1, 2, '', '', 0)",
        )
        .run(),
    ).toThrow(/UNIQUE/);
    db.prepare(
      "INSERT INTO notes (label_id, version_key, type, content, created_at, time, position) VALUES ('a', 'k', 'Transcript', 'x', '', '', 0)",
    ).run();
    expect(() =>
      db
        .prepare(
          "INSERT INTO notes (label_id, version_key, type, content, created_at, time, position) VALUES ('nobody', 'k', 'Transcript', 'x', '', '', 0)",
        )
        .run(),
    ).toThrow(/FOREIGN KEY/);
    // A label's notes go with it.
    db.prepare("DELETE FROM labels WHERE id = 'a'").run();
    expect(db.prepare('SELECT count(*) AS n FROM notes').get()).toEqual({ n: 0 });
    db.close();
  });

  it('opens in WAL mode with foreign keys on and the Earmark application id', () => {
    const { db } = cacheAt(1);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('application_id', { simple: true })).toBe(0x45524d4b);
    db.close();
  });
});

describe('002 full-text search', () => {
  it('indexes the rows a version 1 cache already holds, and keeps the index right after', () => {
    const { db, file } = cacheAt(1);
    db.prepare(
      `INSERT INTO labels (id, type, from_ms, to_ms, patient_id, patient_name, friendly_name, device_serial, seen_at)
       VALUES ('a', 'HubMic', 1, 2, 'p', 'Biscuit Jones', '', '', 0)`,
    ).run();
    db.prepare(
      `INSERT INTO notes (label_id, version_key, type, content, created_at, time, position, is_current)
       VALUES ('a', 'k', 'Transcript', 'limping on the left hind leg', '', '', 0, 1)`,
    ).run();
    db.prepare(
      `INSERT INTO notes (label_id, version_key, type, content, created_at, time, position, is_current)
       VALUES ('a', 'k0', 'Transcript', 'first pass [inaudible]', '', '', 0, 0)`,
    ).run();
    db.prepare(
      `INSERT INTO conversations (id, device_id, status, speech_minute_count, transcript_state,
         is_importable, not_importable_reason, transcript_text, list_position, listed_in_walk, seen_at)
       VALUES ('c', 'd', 'UPLOADED', 2, 'READY', 1, '', 'Speaker 1: a cough since Monday', 0, 0, 0)`,
    ).run();
    migrate(db, file, MIGRATIONS, 2);
    expect(schemaVersion(db)).toBe(2);
    const search = (word: string) => indexesHolding(db, word);
    expect(search('limping')).toEqual(['notes_fts']);
    expect(search('inaudible')).toEqual(['history_fts']); // the replaced version
    expect(search('biscuit')).toEqual(['patients_fts']);
    expect(search('cough')).toEqual(['conversations_fts']);
    // Triggers from now on: an update replaces the old words, a delete removes them.
    db.prepare("UPDATE notes SET content = 'eating well again' WHERE version_key = 'k'").run();
    expect(search('limping')).toEqual([]);
    expect(search('eating')).toEqual(['notes_fts']);
    checkIndexes(db);
    // A version that stops being current moves to the history index.
    db.prepare("UPDATE notes SET is_current = 0 WHERE version_key = 'k'").run();
    db.prepare("UPDATE notes SET is_current = 1 WHERE version_key = 'k0'").run();
    expect(search('inaudible')).toEqual(['notes_fts']);
    expect(search('eating')).toEqual(['history_fts']);
    checkIndexes(db);
    db.prepare("DELETE FROM labels WHERE id = 'a'").run();
    expect(search('eating')).toEqual([]);
    expect(search('inaudible')).toEqual([]);
    expect(search('biscuit')).toEqual([]);
    checkIndexes(db);
    db.close();
  });
});

describe('003 task boards', () => {
  it('adds boards and tasks, keeps what version 2 held, and deletes a board with its tasks', () => {
    const { db, file } = cacheAt(2);
    runQuery(db, 'write', 'storeLabels', [[label(1, { notes: [note('kept words', T0)] })], T0]);
    migrate(db, file, MIGRATIONS, 3);
    expect(tables(db)).toEqual(expect.arrayContaining(['task_boards', 'tasks']));
    expect(indexesHolding(db, 'kept')).toEqual(['notes_fts']);
    const board = {
      id: 'b1',
      name: 'Follow-ups',
      statuses: [{ id: 'open', name: 'Open', category: 'open' as const }],
      fields: [],
      createdAt: new Date(T0).toISOString(),
    };
    runQuery(db, 'write', 'storeBoardList', [[board], T0]);
    db.prepare(
      `INSERT INTO tasks (id, board_id, title, group_key, status_id, fields, link_url, description,
         assignee, due_date, completed_at, completed_at_iso, created_at, updated_at, fetched_at)
       VALUES ('t1', 'b1', 'Call owner', '', 'open', '{}', '', '', '', '', '', NULL, '', '', 0)`,
    ).run();
    db.prepare("DELETE FROM task_boards WHERE id = 'b1'").run();
    expect(db.prepare('SELECT count(*) AS n FROM tasks').get()).toEqual({ n: 0 });
    db.close();
  });
});

describe('004 patients index', () => {
  it('answers the known patients from the index alone, with what version 3 held', () => {
    const { db, file } = cacheAt(3);
    runQuery(db, 'write', 'storeLabels', [
      [
        label(1, { patient: 'Maple' }),
        label(2, { patient: 'Biscuit' }),
        label(3, { patient: 'Maple' }),
        label(4, { patient: null }),
      ],
      T0,
    ]);
    migrate(db, file, MIGRATIONS, 4);
    const plan = (
      db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT patient_id, patient_name, count(*), max(from_ms)
             FROM labels WHERE patient_id IS NOT NULL GROUP BY patient_id`,
        )
        .all() as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('; ');
    expect(plan).toContain('COVERING INDEX labels_by_patient');
    // Today's read, on today's schema.
    migrate(db, file, MIGRATIONS, LATEST_SCHEMA_VERSION);
    expect(runQuery(db, 'read', 'patients', [''])).toEqual([
      { id: 'patient-Biscuit', name: 'Biscuit', recordings: 1 },
      { id: 'patient-Maple', name: 'Maple', recordings: 2 },
    ]);
    checkIndexes(db);
    db.close();
  });
});

describe('005 conversation ranges', () => {
  it('keeps the conversations version 4 held, without a range, and finds new ones by time', () => {
    const { db, file } = cacheAt(4);
    db.prepare(
      `INSERT INTO conversations (id, device_id, status, speech_minute_count, transcript_state,
         is_importable, not_importable_reason, transcript_text, list_position, listed_in_walk, seen_at)
       VALUES ('old', 'hub-1', 'UPLOADED', 3, 'COMPLETED', 1, '', 'Earlier words', 0, 1, 1)`,
    ).run();
    migrate(db, file, MIGRATIONS, 5);
    expect(runQuery(db, 'read', 'conversation', ['hub-1', 'old'])).toEqual({
      conversationId: 'old',
      deviceId: 'hub-1',
      status: 'UPLOADED',
      speechMinuteCount: 3,
      transcriptState: 'COMPLETED',
      isImportable: true,
      notImportableReason: '',
      transcriptText: 'Earlier words',
    });
    const ranged = {
      conversationId: 'new',
      deviceId: 'hub-1',
      status: 'UPLOADED',
      speechMinuteCount: 2,
      transcriptState: 'COMPLETED',
      isImportable: true,
      notImportableReason: '',
      transcriptText: 'Later words',
      startMs: T0,
      endMs: T0 + 120_000,
      labelId: 'label-9',
    };
    // As version 5 writes one (today's writes know later columns).
    db.prepare(
      `INSERT INTO conversations (id, device_id, status, speech_minute_count, transcript_state,
         is_importable, not_importable_reason, transcript_text, list_position, listed_in_walk,
         seen_at, start_ms, end_ms, label_id)
       VALUES ('new', 'hub-1', 'UPLOADED', 2, 'COMPLETED', 1, '', 'Later words', -1, 0, @t0,
         @t0, @t0 + 120000, 'label-9')`,
    ).run({ t0: T0 });
    // Only a conversation whose range is known and overlaps the asked range is found.
    expect(
      runQuery(db, 'read', 'conversationsWithin', ['hub-1', T0 + 60_000, T0 + 90_000]),
    ).toEqual([ranged]);
    expect(
      runQuery(db, 'read', 'conversationsWithin', ['hub-1', T0 + 120_000, T0 + 180_000]),
    ).toEqual([]);
    const plan = (
      db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT id FROM conversations
             WHERE device_id = 'hub-1' AND start_ms < 1 AND end_ms > 0 ORDER BY start_ms`,
        )
        .all() as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('; ');
    expect(plan).toContain('conversations_by_device_time');
    checkIndexes(db);
    db.close();
  });
});

describe('006 review state', () => {
  const signOffBoardName = 'Earmark sign-off';
  /** The queue's items in its order, read whole. */
  const queueFacts = (db: Db, showReviewed = false): ReviewFacts[] => {
    const index = runQuery(db, 'read', 'reviewQueue', [
      { showReviewed, signOffBoardName, nowMs: Date.now() },
    ]) as QueueIndex;
    const { entries } = queuePage(index, { offset: 0, limit: 100, filter: { showReviewed } });
    const ids = (kind: string) => entries.filter((e) => e.kind === kind).map((e) => e.id);
    const whole = runQuery(db, 'read', 'reviewFacts', [
      { signOffBoardName, records: ids('record'), conversations: ids('conversation') },
    ]) as ReviewFacts[];
    return entries.map((e) => whole.find((f) => f.kind === e.kind && f.id === e.id)!);
  };
  const facts = (db: Db, showReviewed = false) =>
    queueFacts(db, showReviewed).map((f) => [f.kind, f.id, f.reviewed.state]);

  it('keeps version 5 data, and a record reviewed comes back as updated when its transcript changes', () => {
    const { db, file } = cacheAt(5);
    // Written as version 5 wrote it: a record with its transcript, a failed conversation.
    const heard = label(1, {
      patient: null,
      notes: [note('Vet: Hello, Peper.', T0 + 20 * MINUTE)],
    });
    runQuery(db, 'write', 'storeLabels', [[heard], T0]);
    // (today's writes know later columns).
    db.prepare(
      `INSERT INTO conversations (id, device_id, status, speech_minute_count, transcript_state,
         is_importable, not_importable_reason, transcript_text, list_position, listed_in_walk,
         seen_at, start_ms, end_ms)
       VALUES ('failed-1', 'hub-1', 'FAILED', 3, 'FAILED', 0, 'Audio did not finish uploading.',
         '', 0, 1, @t0, @t0, @t0 + 600000)`,
    ).run({ t0: T0 });
    migrate(db, file, MIGRATIONS, 6);
    expect(schemaVersion(db)).toBe(6);
    expect(facts(db)).toEqual([
      ['record', heard.id, 'never'],
      ['conversation', 'failed-1', 'never'],
    ]);

    runQuery(db, 'write', 'markReviewed', [
      { records: [heard.id], conversations: ['failed-1'] },
      T0,
    ]);
    expect(facts(db)).toEqual([]);
    expect(facts(db, true)).toEqual([
      ['record', heard.id, 'current'],
      ['conversation', 'failed-1', 'current'],
    ]);

    // The service regenerates the transcript: a newer version is current, the reviewed one is history.
    const regenerated = {
      ...heard,
      ownedPatientNotes: [
        ...heard.ownedPatientNotes!,
        note('Vet: Hello, Pepper.', T0 + 60 * MINUTE),
      ],
    };
    runQuery(db, 'write', 'storeLabels', [[regenerated], T0 + 61 * MINUTE]);
    const [updated] = queueFacts(db);
    expect(updated).toMatchObject({
      id: heard.id,
      reviewed: { state: 'changed', transcript: true, note: false },
    });
    expect(runQuery(db, 'read', 'reviewPreviews', [[heard.id]])).toEqual({
      [heard.id]: 'Hello, Pepper.',
    });

    // Unreviewed: new again.
    runQuery(db, 'write', 'markUnreviewed', [{ records: [heard.id], conversations: [] }]);
    expect(facts(db)).toEqual([['record', heard.id, 'never']]);
    checkIndexes(db);
    db.close();
  });

  it('leaves a record signed off on the clinic board out, and finds its task by its group key', () => {
    const { db, file } = cacheAt(5);
    const record = label(2, { notes: [note('Vet: All well.', T0)] });
    runQuery(db, 'write', 'storeLabels', [[record], T0]);
    migrate(db, file, MIGRATIONS, 6);
    const board = {
      id: 'board-1',
      name: 'Earmark sign-off',
      statuses: [{ id: 'signed_off', name: 'Signed off', category: 'done' }],
      fields: [],
      createdAt: new Date(T0).toISOString(),
    };
    runQuery(db, 'write', 'storeBoards', [[board], T0]);
    const stamp = new Date(T0 + MINUTE).toISOString();
    runQuery(db, 'write', 'storeTasks', [
      [
        {
          id: 'task-1',
          boardId: 'board-1',
          title: 'Signed off',
          groupKey: record.id,
          statusId: 'signed_off',
          fields: {},
          linkUrl: `earmark://record/${record.id}`,
          description: '',
          assignee: 'Helen Marsh',
          dueDate: '',
          completedAt: stamp,
          completedAtIso: stamp,
          createdAt: stamp,
          updatedAt: stamp,
        },
      ],
      T0,
    ]);
    expect(facts(db)).toEqual([]);
    const [shown] = queueFacts(db, true);
    expect(shown!.signedOff).toEqual({ by: 'Helen Marsh', at: stamp });
    const plan = (
      db
        .prepare(`EXPLAIN QUERY PLAN SELECT id FROM tasks WHERE group_key = 'x' AND board_id = 'b'`)
        .all() as { detail: string }[]
    )
      .map((row) => row.detail)
      .join('; ');
    expect(plan).toContain('tasks_by_group');
    db.close();
  });

  it('keeps the review settings', () => {
    const { db, file } = cacheAt(5);
    migrate(db, file, MIGRATIONS, 6);
    expect(runQuery(db, 'read', 'reviewSettings', [])).toEqual({});
    runQuery(db, 'write', 'saveReviewSettings', [{ markOnOpen: 'by-hand', signOff: true }]);
    runQuery(db, 'write', 'saveReviewSettings', [{ signOff: false }]);
    expect(runQuery(db, 'read', 'reviewSettings', [])).toEqual({
      markOnOpen: 'by-hand',
      signOff: false,
    });
    db.close();
  });
});

describe('007 speaker names', () => {
  const before = 6;

  it('keeps what the version before held, indexes named lines, and forgets them with their record', () => {
    const { db, file } = cacheAt(before);
    runQuery(db, 'write', 'storeLabels', [
      [label(1, { notes: [note('Speaker 1: How is Bella?\nSpeaker 2: Much better.', T0)] })],
      T0,
    ]);
    migrate(db, file, MIGRATIONS, 7);
    expect(schemaVersion(db)).toBe(7);
    expect(tables(db)).toEqual(
      expect.arrayContaining(['speaker_overlays', 'speaker_lines', 'speaker_lines_fts']),
    );
    const search = (word: string) => indexesHolding(db, word);
    expect(search('bella')).toEqual(['notes_fts']);
    const labelId = label(1).id;
    runQuery(db, 'write', 'saveSpeakers', [
      {
        labelId,
        versionKey: 'v1',
        names: [{ label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' }],
        moves: [],
        notice: null,
        at: T0,
        currentLines: [{ line: 0, speaker: 'Dr Marsh', role: 'vet', text: 'How is Bella?' }],
      },
    ]);
    expect(search('marsh')).toEqual(['speaker_lines_fts']);
    checkIndexes(db);
    // The record gone from the service: its names and lines go with it.
    db.prepare('DELETE FROM labels WHERE id = ?').run(labelId);
    expect(db.prepare('SELECT count(*) AS n FROM speaker_overlays').get()).toEqual({ n: 0 });
    expect(search('marsh')).toEqual([]);
    checkIndexes(db);
    db.close();
  });
});

describe(`${String(retention.version).padStart(3, '0')} retention`, () => {
  it('dates the conversations the version before held by their last sighting, and keeps records with their record', () => {
    const { db, file } = cacheAt(retention.version - 1);
    db.prepare(
      `INSERT INTO conversations (id, device_id, status, speech_minute_count, transcript_state,
         is_importable, not_importable_reason, transcript_text, list_position, listed_in_walk,
         seen_at)
       VALUES ('seen', 'hub-1', 'UPLOADED', 3, 'COMPLETED', 1, '', 'Earlier words', 0, 1, @t0)`,
    ).run({ t0: T0 });
    runQuery(db, 'write', 'storeLabels', [[label(1, { notes: [note('words', T0)] })], T0]);
    migrate(db, file, MIGRATIONS, retention.version);
    expect(db.prepare("SELECT first_seen_at FROM conversations WHERE id = 'seen'").get()).toEqual({
      first_seen_at: T0,
    });
    // A conversation stored from now on is dated when first seen; a later sighting keeps it.
    const later = {
      conversationId: 'later',
      deviceId: 'hub-1',
      status: 'UPLOADED' as const,
      speechMinuteCount: 1,
      transcriptState: 'READY' as const,
      isImportable: true,
      notImportableReason: '',
      transcriptText: 'words',
    };
    runQuery(db, 'write', 'storeConversation', [later, T0 + 1]);
    runQuery(db, 'write', 'storeConversation', [later, T0 + 2]);
    expect(db.prepare("SELECT first_seen_at FROM conversations WHERE id = 'later'").get()).toEqual({
      first_seen_at: T0 + 1,
    });
    // Only a cached record can be kept, and the mark goes with its record.
    const id = label(1).id;
    expect(runQuery(db, 'write', 'keepRecord', [id, T0])).toBe(true);
    expect(runQuery(db, 'write', 'keepRecord', [label(2).id, T0])).toBe(false);
    expect(() =>
      db.prepare('INSERT INTO kept_records (label_id, kept_at) VALUES (?, 0)').run(label(3).id),
    ).toThrow(/FOREIGN KEY/);
    runQuery(db, 'write', 'deleteLabels', [[id]]);
    expect(db.prepare('SELECT count(*) AS n FROM kept_records').get()).toEqual({ n: 0 });
    checkIndexes(db);
    db.close();
  });
});

describe(`${String(searchByTime.version).padStart(3, '0')} search by time`, () => {
  const plan = (db: Db, sql: string, params: Record<string, unknown> = {}) =>
    (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
      .map((row) => row.detail)
      .join('; ');
  // Whole words (a space after them): a word being typed is asked of 011's index too.
  const found = (db: Db, query: string) =>
    (
      runQuery(db, 'read', 'search', [`${query} `]) as {
        hits: { kind: string; label: { id: string }; current: boolean }[];
      }
    ).hits.map((hit) => `${hit.label.id.slice(-1)}${hit.current === false ? ' (history)' : ''}`);

  it('keys the notes and patients the version before held by their record’s start, newest first, and keeps them right after', () => {
    const { db, file } = cacheAt(searchByTime.version - 1);
    // As a sync stores them: the newest records first, an older one the history walk finds
    // later; one with a replaced version.
    runQuery(db, 'write', 'storeLabels', [
      [
        label(3, { notes: [note('a fever', T0)] }),
        label(2, { notes: [note('fever [inaudible]', T0), note('a fever', T0 + MINUTE)] }),
      ],
      T0,
    ]);
    runQuery(db, 'write', 'storeLabels', [
      [label(1, { notes: [note('fever fever fever', T0)] })],
      T0,
    ]);
    migrate(db, file, MIGRATIONS, searchByTime.version);
    expect(found(db, 'fever')).toEqual(['3', '2', '1']);
    expect(found(db, 'inaudible')).toEqual(['2 (history)']);
    expect(found(db, 'patient')).toEqual(['3', '2', '1']); // their names: "Patient 3"…
    expect(db.prepare('SELECT count(DISTINCT search_key) AS n FROM notes').get()).toEqual({ n: 4 });
    expect(db.prepare('SELECT count(DISTINCT search_key) AS n FROM labels').get()).toEqual({
      n: 3,
    });
    checkIndexes(db);
    // Notes stored from now on are keyed as they come: a newer record first, an older one last,
    // two records of the same minute both.
    runQuery(db, 'write', 'storeLabels', [
      [
        label(4, { notes: [note('fever again', T0)] }),
        label(5, { fromMs: T0 + 4 * 15 * MINUTE, notes: [note('a fever too', T0)] }),
        label(0, { notes: [note('the first fever', T0)] }),
      ],
      T0,
    ]);
    expect(found(db, 'fever')).toEqual(['4', '5', '3', '2', '1', '0']);
    expect(found(db, 'patient')).toEqual(['4', '5', '3', '2', '1', '0']);
    // Replaced, rewritten and deleted notes leave the indexes right.
    runQuery(db, 'write', 'storeLabels', [
      [label(3, { notes: [note('a fever', T0), note('no temperature now', T0 + MINUTE)] })],
      T0,
    ]);
    expect(found(db, 'temperature')).toEqual(['3']);
    expect(found(db, 'fever')).toContain('3 (history)');
    db.prepare("UPDATE notes SET content = 'calm' WHERE content = 'fever fever fever'").run();
    runQuery(db, 'write', 'deleteLabels', [[label(4).id]]);
    expect(found(db, 'fever')).toEqual(['5', '2', '0', '3 (history)']);
    runQuery(db, 'write', 'storeLabelPage', [
      { rows: [{ ...label(2), patient: { id: 'p', name: 'Renamed' } }], seenAt: T0 },
    ]);
    expect(found(db, 'patient')).toEqual(['5', '3', '1', '0']);
    expect(found(db, 'renamed')).toEqual(['2']);
    checkIndexes(db);
    db.close();
  });

  it('gives the Recordings list’s first page, sorted by duration or filtered by type and dates, from an index', () => {
    const { db, file } = cacheAt(searchByTime.version - 1);
    runQuery(db, 'write', 'storeLabels', [
      [
        label(1, { minutes: 5, type: 'HubMic', patient: 'Maple' }),
        label(2, { minutes: 30, type: 'PhoneCallAudio', patient: 'Maple' }),
        label(3, { minutes: 12, type: 'HubMic', patient: 'Biscuit' }),
      ],
      T0,
    ]);
    migrate(db, file, MIGRATIONS, searchByTime.version);
    const columns = 'id, type, from_ms, to_ms, patient_name';
    for (const direction of ['ASC', 'DESC'])
      expect(
        plan(
          db,
          `SELECT ${columns} FROM labels
            ORDER BY to_ms - from_ms ${direction}, from_ms ${direction}, id ${direction} LIMIT 50`,
        ),
      ).toBe('SCAN labels USING INDEX labels_by_duration');
    const filter = `WHERE type IN (SELECT value FROM json_each(@types)) AND from_ms >= @fromMs
      AND patient_name LIKE @patient ESCAPE '\\'`;
    const params = { types: '["HubMic"]', fromMs: T0, patient: '%Maple%' };
    expect(plan(db, `SELECT count(*) FROM labels ${filter}`, params)).toContain(
      'COVERING INDEX labels_by_type (type=? AND from_ms>?)',
    );
    expect(
      plan(
        db,
        `SELECT ${columns} FROM labels ${filter} ORDER BY from_ms DESC, id DESC LIMIT 50`,
        params,
      ),
    ).toContain('USING INDEX labels_by_type (type=? AND from_ms>?)');
    // Today's reads, on today's schema.
    migrate(db, file, MIGRATIONS, LATEST_SCHEMA_VERSION);
    const ids = (query: object) =>
      (runQuery(db, 'read', 'labels', [query]) as { items: { id: string }[] }).items.map((item) =>
        item.id.slice(-1),
      );
    expect(ids({ sortingProperty: 'Duration' })).toEqual(['2', '3', '1']);
    expect(ids({ sortingProperty: 'Duration', isSortingDescending: false })).toEqual([
      '1',
      '3',
      '2',
    ]);
    expect(
      ids({ types: ['HubMic'], patientSearch: 'map', fromTime: new Date(T0).toISOString() }),
    ).toEqual(['1']);
    db.close();
  });
});

describe(`${String(labelCount.version).padStart(3, '0')} label count`, () => {
  it('counts the labels the version before held, then follows every insert and delete', () => {
    const { db, file } = cacheAt(labelCount.version - 1);
    runQuery(db, 'write', 'storeLabels', [[label(1), label(2), label(3)], T0]);
    migrate(db, file, MIGRATIONS, labelCount.version);
    const kept = () =>
      (db.prepare('SELECT labels FROM label_count').get() as { labels: number }).labels;
    expect(kept()).toBe(3);
    // Stored again (an update), listed again, and two new ones: two more.
    runQuery(db, 'write', 'storeLabels', [[label(1), label(4)], T0 + 1]);
    runQuery(db, 'write', 'storeLabelPage', [{ rows: [label(2), label(5)], seenAt: T0 + 2 }]);
    expect(kept()).toBe(5);
    runQuery(db, 'write', 'deleteLabels', [[label(1).id, label(9).id]]);
    expect(kept()).toBe(4);
    // The list's unfiltered length is the kept count; a filtered one still counts its matches.
    db.prepare('UPDATE label_count SET labels = 40').run();
    expect(runQuery(db, 'read', 'labels', [{ limit: 1 }])).toMatchObject({ total: 40 });
    expect(
      runQuery(db, 'read', 'labels', [{ limit: 1, fromTime: new Date(0).toISOString() }]),
    ).toMatchObject({ total: 4 });
    db.close();
  });
});

describe(`${String(recentNotesSearch.version).padStart(3, '0')} recent notes search`, () => {
  /** The records (last digit of the id) whose notes the newest notes' index finds `word` in, newest first. */
  const recentHolding = (db: Db, word: string): string[] =>
    (
      db
        .prepare(
          `SELECT substr(n.label_id, -1) AS record FROM recent_notes_fts r
             JOIN notes n ON n.search_key = r.rowid
            WHERE recent_notes_fts MATCH ? ORDER BY r.rowid`,
        )
        .all(`"${word}"`) as { record: string }[]
    ).map((row) => row.record);
  const store = (db: Db, ...labels: ReturnType<typeof label>[]) =>
    runQuery(db, 'write', 'storeLabels', [labels, T0]);
  const fever = (index: number) => label(index, { notes: [note(`fever ${index}`, T0)] });

  it('indexes the newest current notes again, follows each one stored, replaced and deleted, and trims back to the newest', () => {
    const { db, file } = cacheAt(recentNotesSearch.version - 1);
    store(db, fever(1), fever(2), fever(3));
    migrate(db, file, MIGRATIONS, recentNotesSearch.version);
    // Fewer notes than it keeps: all of them.
    expect(recentHolding(db, 'fever')).toEqual(['3', '2', '1']);
    checkIndexes(db);
    db.prepare('UPDATE recent_notes_held SET keep = 2, trim_at = 4').run();
    store(db, fever(4));
    expect(recentHolding(db, 'fever')).toEqual(['4', '3', '2', '1']);
    // Past four: the newest two.
    store(db, fever(5));
    expect(recentHolding(db, 'fever')).toEqual(['5', '4']);
    checkIndexes(db);
    // An older record's note stays out (the bound never rises); a newer one's comes in.
    store(db, fever(0), fever(6));
    expect(recentHolding(db, 'fever')).toEqual(['6', '5', '4']);
    // A held note replaced: the new version in, the old one out (it is history now).
    store(db, label(5, { notes: [note('fever 5', T0), note('calm now', T0 + MINUTE)] }));
    expect(recentHolding(db, 'fever')).toEqual(['6', '4']);
    expect(recentHolding(db, 'calm')).toEqual(['5']);
    runQuery(db, 'write', 'deleteLabels', [[label(6).id]]);
    expect(recentHolding(db, 'fever')).toEqual(['4']);
    checkIndexes(db);
    db.close();
  });

  it('answers a word being typed from the newest notes when they hold enough, else from every note', () => {
    const { db } = cacheAt(recentNotesSearch.version);
    db.prepare('UPDATE recent_notes_held SET keep = 2, trim_at = 2').run();
    store(db, fever(1), fever(2), fever(3), fever(4), fever(5));
    expect(recentHolding(db, 'fever')).toEqual(['5', '4']);
    const found = (query: string, limit: number) =>
      (
        runQuery(db, 'read', 'search', [query, { limit, kinds: ['note'] }]) as {
          hits: { label: { id: string } }[];
        }
      ).hits.map((hit) => hit.label.id.slice(-1));
    // "fev" is a word being typed: a prefix, the newest two from the newest notes.
    expect(found('fev', 2)).toEqual(['5', '4']);
    // Three are asked for and the newest notes hold two: every note is asked.
    expect(found('fev', 3)).toEqual(['5', '4', '3']);
    expect(found('fev', 10)).toEqual(['5', '4', '3', '2', '1']);
    db.close();
  });
});

describe(`${String(reviewQueueChanges.version).padStart(3, '0')} review queue changes`, () => {
  it('logs the items each write touches while tracked, nothing while not, and stops past its cap', () => {
    const { db, file } = cacheAt(reviewQueueChanges.version - 1);
    const write = (name: string, ...args: unknown[]) => runQuery(db, 'write', name, args);
    write('storeLabels', [label(1, { notes: [note('a fever', T0)] })], T0);
    migrate(db, file, MIGRATIONS, reviewQueueChanges.version);
    const changes = () => runQuery(db, 'read', 'queueChanges', []);
    const logged = () =>
      (
        db.prepare('SELECT DISTINCT kind, id FROM queue_changes ORDER BY seq').all() as {
          kind: string;
          id: string;
        }[]
      ).map((row) => `${row.kind} ${row.id.slice(-1)}`);
    // Nothing is logged until main reads the queue whole.
    write('storeLabels', [label(2)], T0);
    expect(logged()).toEqual([]);
    expect(changes()).toEqual({ whole: true });
    write('trackQueueChanges');
    expect(changes()).toEqual({ whole: false, upTo: 0, records: [], conversations: [] });
    // Listed again as it was: nothing. A new record, a new note version, a mark, a deletion.
    write('storeLabelPage', { rows: [label(2)], seenAt: T0 + 1 });
    expect(logged()).toEqual([]);
    write(
      'storeLabels',
      [label(3), label(1, { notes: [note('a fever', T0), note('calm', T0 + MINUTE)] })],
      T0,
    );
    write('markReviewed', { records: [label(2).id], conversations: [] }, T0);
    write('deleteLabels', [label(3).id]);
    expect(logged()).toEqual(['record 3', 'record 1', 'record 2']);
    const active = conversation('conv-1', 'ACTIVE', 'hub-1', { startMs: T0, endMs: T0 + MINUTE });
    write('storeConversation', active, T0);
    write('storeConversation', active, T0 + 1);
    write('storeConversation', { ...active, status: 'FAILED' }, T0 + 2);
    expect(changes()).toMatchObject({
      whole: false,
      records: [label(3).id, label(1).id, label(2).id],
      conversations: ['conv-1'],
    });
    // Taken into main's queue: forgotten.
    write('forgetQueueChanges', (changes() as { upTo: number }).upTo);
    expect(logged()).toEqual([]);
    // A device it cannot trace to items: the queue is read whole.
    write('storeDevices', [{ value: 'hub-1', displayName: 'Consult Room 1', serial: 'HUB-1' }], T0);
    expect(changes()).toEqual({ whole: true });
    // Past its cap it stops, and says so until the next whole reading.
    write('trackQueueChanges');
    db.prepare('UPDATE queue_tracking SET cap = 2').run();
    write('storeLabels', [label(4), label(5), label(6)], T0);
    expect(logged()).toEqual([]);
    expect(changes()).toEqual({ whole: true });
    write('trackQueueChanges');
    write('storeLabels', [label(7)], T0);
    expect(logged()).toEqual(['record 7']);
    db.close();
  });
});

describe(`${String(patientsTable.version).padStart(3, '0')} patients`, () => {
  it('counts the patients the version before held, follows each label stored, changed and deleted', () => {
    const { db, file } = cacheAt(patientsTable.version - 1);
    const write = (name: string, ...args: unknown[]) => runQuery(db, 'write', name, args);
    write('storeLabels', [label(1, { patient: 'Maple' }), label(2, { patient: null })], T0);
    migrate(db, file, MIGRATIONS, patientsTable.version);
    const kept = () =>
      db
        .prepare('SELECT patient_id, patient_name, labels, newest_ms FROM patients ORDER BY 1, 2')
        .all();
    const startOf = (index: number) => Date.parse(label(index).fromTime);
    expect(kept()).toEqual([
      { patient_id: 'patient-Maple', patient_name: 'Maple', labels: 1, newest_ms: startOf(1) },
    ]);
    // A new label of hers, one assigned to her, one of another patient: counted, her newest moved.
    write('storeLabels', [label(3, { patient: 'Maple' }), label(4, { patient: 'Biscuit' })], T0);
    write('storeLabelPage', { rows: [label(2, { patient: 'Maple' })], seenAt: T0 + 1 });
    expect(kept()).toEqual([
      { patient_id: 'patient-Biscuit', patient_name: 'Biscuit', labels: 1, newest_ms: startOf(4) },
      { patient_id: 'patient-Maple', patient_name: 'Maple', labels: 3, newest_ms: startOf(3) },
    ]);
    checkIndexes(db);
    // Her newest deleted: the next newest read again; Biscuit's last: gone.
    write('deleteLabels', [label(3).id, label(4).id]);
    expect(kept()).toEqual([
      { patient_id: 'patient-Maple', patient_name: 'Maple', labels: 2, newest_ms: startOf(2) },
    ]);
    checkIndexes(db);
    db.close();
  });
});

describe('a database from an older app', () => {
  it('is brought to the newest version at open', () => {
    const { db, file } = cacheAt(1);
    db.close();
    const reopened = openCacheDatabase(file);
    expect(schemaVersion(reopened.db)).toBe(LATEST_SCHEMA_VERSION);
    expect(reopened.recovery).toBeNull();
    reopened.db.close();
    // A plain SQLite reading of the same file agrees.
    const plain = new Database(file, { readonly: true });
    expect(plain.pragma('user_version', { simple: true })).toBe(LATEST_SCHEMA_VERSION);
    plain.close();
  });
});

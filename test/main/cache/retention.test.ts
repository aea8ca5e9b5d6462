import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, TEXT_INDEXES, type Cache } from '../../../src/main/cache';
import { openCacheDatabase } from '../../../src/main/cache/database';
import { runQuery } from '../../../src/main/cache/queries';
import { RECORD_TABLES } from '../../../src/main/cache/record-tables';
import type { Conversation, TimelineMinute } from '../../../src/shared/api';
import type { Db } from '../../../src/node-common/sql';
import { filesHolding } from '../../support/files';
import { readWithKey } from '../../support/sealed-files';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { checkIndexes, label, MINUTE, note, T0, useTempDir } from './helpers';

const tempDir = useTempDir('cache-retention');
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Labels starting `days` days before T0, each with a transcript naming it. */
const aged = (index: number, days: number, words = `visit ${index} cough`) =>
  label(index, { fromMs: T0 - days * DAY, notes: [note(words, T0 - days * DAY)] });

const conversation = (id: string, extra: Partial<Conversation> = {}): Conversation => ({
  conversationId: id,
  deviceId: 'room-1',
  status: 'UPLOADED',
  speechMinuteCount: 2,
  transcriptState: 'READY',
  isImportable: true,
  notImportableReason: '',
  transcriptText: `words of ${id}`,
  ...extra,
});

async function removeAll(cache: Cache, before: number, spare: string[] = []): Promise<number> {
  let removed = 0;
  for (let step = { more: true }; step.more;) {
    const done = await cache.write.removeRecords({ before, spare, limit: 2, at: T0 });
    removed += done.removed;
    step = done;
  }
  return removed;
}

async function mergeAll(cache: Cache): Promise<void> {
  for (const index of TEXT_INDEXES) {
    for (let first = true; await cache.write.mergeIndexStep({ index, pages: 4, first });) {
      first = false;
    }
  }
  await cache.write.indexesMerged(T0);
}

describe('the record-keyed tables (record-tables.ts)', () => {
  it('are exactly the tables holding a record id, the listed ones cascading, and none outlives its record', () => {
    const { db } = openCacheDatabase(join(tempDir(), 'schema.sqlite'));
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    ).map((row) => row.name);
    const referencing = tables.flatMap((table) =>
      (
        db.pragma(`foreign_key_list(${table})`) as {
          table: string;
          from: string;
          to: string;
          on_delete: string;
        }[]
      )
        .filter((key) => key.table === 'labels')
        .map((key) => ({ table, column: key.from, to: key.to, onDelete: key.on_delete })),
    );
    expect(referencing).toEqual(
      RECORD_TABLES.filter((t) => t.cascades).map((t) => ({
        table: t.table,
        column: t.labelColumn,
        to: 'id',
        onDelete: 'CASCADE',
      })),
    );
    // A table with a record's id in it is one of them (conversations are keyed by their own id:
    // their label_id is the record each became).
    const withLabelId = tables.filter(
      (table) =>
        table !== 'conversations' &&
        (db.pragma(`table_info(${table})`) as { name: string }[]).some(
          (column) => column.name === 'label_id',
        ),
    );
    expect(withLabelId.sort()).toEqual(RECORD_TABLES.map((t) => t.table).sort());

    // A row in each, for one record: deleting the record leaves none of them.
    const record = label(1);
    runQuery(db, 'write', 'storeLabels', [[record], T0]);
    for (const { table, labelColumn } of RECORD_TABLES) {
      const required = (
        db.pragma(`table_info(${table})`) as {
          name: string;
          type: string;
          notnull: number;
          dflt_value: unknown;
        }[]
      ).filter((c) => c.name === labelColumn || (c.notnull === 1 && c.dflt_value === null));
      const values = required.map((c) =>
        c.name === labelColumn ? record.id : c.type === 'INTEGER' ? 1 : 'x',
      );
      db.prepare(
        `INSERT OR IGNORE INTO ${table} (${required.map((c) => c.name).join(', ')})
         VALUES (${required.map(() => '?').join(', ')})`,
      ).run(...values);
    }
    const left = () =>
      RECORD_TABLES.map(({ table }) => ({
        table,
        rows: (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n,
      }));
    expect(left().every((t) => t.rows === 1)).toBe(true);
    runQuery(db, 'write', 'deleteLabels', [[record.id]]);
    expect(left()).toEqual(RECORD_TABLES.map(({ table }) => ({ table, rows: 0 })));
    db.close();
  });
});

describe('removing old records', () => {
  let cache: Cache;
  beforeAll(async () => {
    cache = await openCache({ file: join(tempDir(), 'c.sqlite'), thread: 'main' });
  });
  afterAll(() => cache.close());

  it('removes records older than the cutoff, oldest first, but the kept and the spared', async () => {
    const labels = [aged(1, 1), aged(2, 10), aged(3, 20), aged(4, 30), aged(5, 40), aged(6, 50)];
    await cache.write.storeLabels(labels, T0);
    expect(await cache.write.keepRecord(labels[4]!.id, T0)).toBe(true);
    const cutoff = { before: T0 - 5 * DAY, spare: [labels[3]!.id] };
    const preview = await cache.read.textPreview(cutoff);
    expect(preview.kept.records).toBe(6);
    expect(preview.next).toMatchObject({ records: 3, spared: 2 });
    expect(preview.next.bytes).toBeGreaterThan(0);
    expect(preview.next.bytes).toBeLessThan(preview.kept.bytes);

    expect(await cache.read.indexesToMerge()).toBe(false);
    const first = await cache.write.removeRecords({ ...cutoff, limit: 2, at: T0 });
    expect(first).toEqual({ removed: 2, more: true });
    // Oldest first, past the kept (40 days) and the spared (30 days): 50 and 20 days old.
    expect(await cache.read.label(labels[5]!.id)).toBeNull();
    expect(await cache.read.label(labels[2]!.id)).toBeNull();
    expect(await cache.read.label(labels[1]!.id)).not.toBeNull();
    expect(await cache.read.indexesToMerge()).toBe(true);
    expect(await removeAll(cache, cutoff.before, cutoff.spare)).toBe(1);

    const left = (await cache.read.labels({})).items.map((l) => l.id).sort();
    expect(left).toEqual([labels[0]!.id, labels[3]!.id, labels[4]!.id].sort());
    // Their notes went with them, from the search too; the kept record is listed as kept.
    expect((await cache.read.stats()).notes).toBe(3);
    expect((await cache.read.search('visit 3')).hits).toEqual([]);
    expect((await cache.read.keptRecords()).map((r) => r.labelId)).toEqual([labels[4]!.id]);
    expect(await cache.read.textPreview(cutoff)).toMatchObject({
      next: { records: 0, spared: 2, bytes: 0 },
    });
  });
});

describe('conversations and timelines', () => {
  let cache: Cache;
  beforeAll(async () => {
    cache = await openCache({ file: join(tempDir(), 'c.sqlite'), thread: 'main' });
  });
  afterAll(() => cache.close());

  it('empty the transcripts of old conversations, however their age is known', async () => {
    const oldRecord = aged(20, 30);
    await cache.write.storeLabels([oldRecord], T0);
    await cache.write.addCreatedRange({
      conversationId: 'made-here',
      deviceId: 'room-1',
      startMs: T0 - 30 * DAY,
      endMs: T0 - 30 * DAY + HOUR,
      createdAt: new Date(T0).toISOString(),
    });
    const stored = [
      conversation('ranged-old', { startMs: T0 - 30 * DAY, endMs: T0 - 29 * DAY, labelId: null }),
      conversation('ranged-new', { startMs: T0 - DAY, endMs: T0 - DAY + HOUR, labelId: null }),
      conversation('made-here'),
    ];
    // Seen for the first time long ago (the seed's conversations have no time): by then.
    await cache.write.storeConversationPage({
      items: [...stored, conversation('first-seen-old')],
      walk: T0 - 30 * DAY,
      startPosition: 0,
      seenAt: T0 - 30 * DAY,
    });
    await cache.write.storeConversation(conversation('first-seen-new'), T0);
    // A later sighting does not make the first one younger.
    await cache.write.storeConversation(conversation('first-seen-old'), T0);

    const before = T0 - 5 * DAY;
    for (let step = { more: true }; step.more;) {
      step = await cache.write.removeConversationText({ before, limit: 1, at: T0 });
    }
    const text = async (id: string) =>
      (await cache.read.conversation('room-1', id))?.transcriptText;
    expect(await text('ranged-old')).toBe('');
    expect(await text('made-here')).toBe('');
    expect(await text('first-seen-old')).toBe('');
    expect(await text('ranged-new')).toBe('words of ranged-new');
    expect(await text('first-seen-new')).toBe('words of first-seen-new');
    expect(
      (await cache.read.search('words')).hits.map((h) =>
        h.kind === 'conversation' ? h.conversationId : h.kind,
      ),
    ).toEqual(['first-seen-new', 'ranged-new']); // in the list's order, newest first

    // The sync's walk lists them again: the old ones come without their words, unchanged.
    const listed = await cache.write.storeConversationPage({
      items: [...stored, conversation('first-seen-old'), conversation('first-seen-new')],
      walk: T0,
      startPosition: 0,
      seenAt: T0,
      textFromMs: before,
    });
    expect(listed).toEqual({ added: 0, changed: 0 });
    expect(await text('ranged-old')).toBe('');
    expect(await text('first-seen-old')).toBe('');
    expect(await text('ranged-new')).toBe('words of ranged-new');
  });

  it('remove old timeline minutes and cut the fetched windows to what is left', async () => {
    const minutes = (fromMs: number, count: number): TimelineMinute[] =>
      Array.from({ length: count }, (_, i) => ({
        minuteStartMs: fromMs + i * MINUTE,
        vadIsSilent: false,
        vadSpeechDurationMs: 20_000,
        transcriptText: `minute ${i}`,
        diarizedTranscriptText: `Speaker 1: minute ${i}`,
      }));
    const start = T0 - 2 * DAY;
    for (const deviceId of ['room-1', 'room-2']) {
      await cache.write.storeTimeline({
        deviceId,
        startMs: start,
        endMs: start + 6 * HOUR,
        minutes: minutes(start, 360),
        fetchedAt: T0,
      });
    }
    const before = start + 2 * HOUR + 30_000; // mid-minute: that minute started before it
    let removed = 0;
    for (let step = { more: true }; step.more;) {
      const done = await cache.write.removeTimelines({ before, limit: 100 });
      removed += done.removed;
      step = done;
    }
    expect(removed).toBe(2 * 121);
    for (const deviceId of ['room-1', 'room-2']) {
      const old = await cache.read.timeline(deviceId, start, start + 2 * HOUR);
      expect(old).toMatchObject({ minutes: [], coveredMs: 0, complete: false });
      const kept = await cache.read.timeline(deviceId, start + 2 * HOUR + MINUTE, start + 6 * HOUR);
      expect(kept.complete).toBe(true);
      expect(kept.minutes).toHaveLength(239);
    }
  });
});

describe('what a removal leaves in the file', () => {
  /**
   * Sealed, as the app keeps it (issue 30): the words are looked for in its plain pages, as
   * whoever holds its key reads them, free pages too.
   */
  const key = AccountKey.random().key;
  const holding = (dir: string, words: string[]) => filesHolding(dir, words, readWithKey(key));

  /** A cache with records whose words are found nowhere else, the oldest removed. */
  async function removedWithout(merge: boolean): Promise<{ dir: string; db: Db }> {
    const dir = tempDir();
    const file = join(dir, 'c.sqlite');
    const cache = await openCache({ file, thread: 'main', key: key.databaseKey() });
    const filler = Array.from({ length: 300 }, (_, i) => aged(100 + i, 1, `routine visit ${i}`));
    await cache.write.storeLabels(filler, T0);
    await cache.write.storeLabels(
      [
        aged(1, 30, 'Speaker 1: the quorbantine dosage'),
        label(2, {
          fromMs: T0 - 30 * DAY,
          patient: 'Flimwaddle',
          notes: [note('S: vomiting. A: zentrophagia', T0 - 30 * DAY, 'SOAP')],
        }),
      ],
      T0,
    );
    await cache.write.checkpoint();
    expect(holding(dir, ['quorbantine', 'Flimwaddle', 'zentrophagia'])).not.toEqual([]);
    await removeAll(cache, T0 - 10 * DAY);
    if (merge) await mergeAll(cache);
    await cache.write.checkpoint();
    await cache.close();
    const { db } = openCacheDatabase(file, { key: key.databaseKey() });
    return { dir, db };
  }

  it('keeps no removed word once the indexes are merged and the WAL checkpointed', async () => {
    const { dir, db } = await removedWithout(true);
    checkIndexes(db);
    db.close();
    // Lower case too: the indexes hold their words folded.
    expect(holding(dir, ['quorbantine', 'Flimwaddle', 'flimwaddle', 'zentrophagia'])).toEqual([]);
  });

  it('(without the merge the index would still hold them)', async () => {
    const { dir, db } = await removedWithout(false);
    db.close();
    expect(holding(dir, ['quorbantine', 'flimwaddle', 'zentrophagia'])).not.toEqual([]);
  });
});

import Database from 'better-sqlite3-multiple-ciphers';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cacheFileOf,
  CacheTooNewError,
  LATEST_SCHEMA_VERSION,
  openCache,
  type Cache,
} from '../../../src/main/cache';
import {
  openCacheDatabase,
  openCacheReader,
  PAGE_CACHE_KIB,
  type CacheUpgrade,
} from '../../../src/main/cache/database';
import { damageNoteOf } from '../../../src/main/cache/check';
import { damageMiddlePages, label, note, overwrite, PAGE, T0, useTempDir } from './helpers';

const tempDir = useTempDir('cache-open');

/** A cache holding labels with notes and a created range, closed (checkpointed into the file). */
async function filledCache(thread: 'worker' | 'main' = 'main'): Promise<string> {
  const file = join(tempDir(), 'account.sqlite');
  const cache = await openCache({ file, thread });
  await cache.write.storeLabels(
    Array.from({ length: 200 }, (_, i) =>
      label(i, { notes: [note(`${'routine check words '.repeat(40)} ${i}`, T0)] }),
    ),
    T0,
  );
  await cache.write.addCreatedRange({
    conversationId: 'conv-1',
    deviceId: 'consult-room-1',
    startMs: T0,
    endMs: T0 + 600_000,
    createdAt: new Date(T0).toISOString(),
  });
  await cache.write.markReviewed({ records: [label(3).id], conversations: [] }, T0);
  await cache.write.saveReviewSettings({ markOnOpen: 'by-hand' });
  await cache.write.saveSpeakers({
    labelId: label(1).id,
    versionKey: 'v1',
    names: [{ label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' }],
    moves: [],
    notice: null,
    at: T0,
    currentLines: [{ line: 0, speaker: 'Dr Marsh', role: 'vet', text: 'routine check' }],
  });
  await cache.close();
  return file;
}

async function check(cache: Cache): Promise<void> {
  const stats = await cache.read.stats();
  expect(stats.schemaVersion).toBe(LATEST_SCHEMA_VERSION);
}

describe('opening a cache', () => {
  it('puts one file per account under <dataDir>/cache, whatever the account id holds', () => {
    expect(cacheFileOf('/data', 'aB3_-x')).toBe(join('/data', 'cache', 'aB3_-x.sqlite'));
    expect(cacheFileOf('/data', '../evil/x')).toBe(join('/data', 'cache', '___evil_x.sqlite'));
  });

  it('creates the file and answers the same from a worker thread as on the main thread', async () => {
    const file = await filledCache('worker');
    const inWorker = await openCache({ file });
    const inline = await openCache({ file, thread: 'main' });
    expect(inWorker.thread).toBe('worker');
    expect(inWorker.recovery).toBeNull();
    const query = { limit: 5, sortingProperty: 'Patient' as const };
    expect(await inWorker.read.labels(query)).toEqual(await inline.read.labels(query));
    expect(await inWorker.read.search('routine')).toEqual(await inline.read.search('routine'));
    await inline.close();
    await inWorker.close();
  });

  it('answers a screen’s reads while a long read (the review queue of every record) goes on', async () => {
    const cache = await openCache({ file: join(tempDir(), 'long.sqlite') });
    await cache.write.storeLabels(
      Array.from({ length: 20_000 }, (_, i) => label(i)),
      T0,
    );
    const answered: string[] = [];
    await Promise.all([
      cache.read
        .reviewQueue({ showReviewed: false, signOffBoardName: 'Earmark sign-off', nowMs: T0 })
        .then((queue) => answered.push(`queue of ${queue.ids.length}`)),
      cache.read.labels({ limit: 5 }).then((page) => answered.push(`page of ${page.items.length}`)),
    ]);
    // Asked second, answered first: the queue is read on a thread of its own.
    expect(answered).toEqual(['page of 5', 'queue of 20000']);
    await cache.close();
  });

  it('keeps a page cache on every connection that holds a million labels’ smallest index', () => {
    const file = join(tempDir(), 'c.sqlite');
    const key = `x'${'5a'.repeat(32)}'`;
    const { db: writer } = openCacheDatabase(file, { key });
    const reader = openCacheReader(file, { key });
    // 4,199 pages of 4 KiB at 1M (labels_by_search_key, which a count reads).
    expect(PAGE_CACHE_KIB).toBeGreaterThanOrEqual((4199 * 4096) / 1024);
    for (const db of [writer, reader])
      expect(db.pragma('cache_size', { simple: true })).toBe(-PAGE_CACHE_KIB);
    reader.close();
    writer.close();
  });

  it('rejects queries after close, and a second close is harmless', async () => {
    const cache = await openCache({ file: join(tempDir(), 'c.sqlite') });
    await cache.close();
    await cache.close();
    await expect(cache.read.stats()).rejects.toThrow(/closed/);
  });

  it('reports a failing query as an error of that query, and goes on answering', async () => {
    const cache = await openCache({ file: join(tempDir(), 'c.sqlite') });
    await expect(
      cache.write.addCreatedRange(
        null as unknown as Parameters<typeof cache.write.addCreatedRange>[0],
      ),
    ).rejects.toThrow();
    expect((await cache.read.stats()).labels).toBe(0);
    await cache.close();
  });
});

describe('a cache an earlier version left', () => {
  it.each(['worker', 'main'] as const)(
    'is announced before it is migrated (%s thread); a new file is not',
    async (thread) => {
      const file = join(tempDir(), 'c.sqlite');
      openCacheDatabase(file, { targetVersion: LATEST_SCHEMA_VERSION - 1 }).db.close();
      const upgrades: CacheUpgrade[] = [];
      const cache = await openCache({ file, thread, onUpgrade: (u) => upgrades.push(u) });
      await check(cache);
      await cache.close();
      expect(upgrades).toEqual([
        { fromVersion: LATEST_SCHEMA_VERSION - 1, toVersion: LATEST_SCHEMA_VERSION },
      ]);
      const fresh = await openCache({
        file: join(tempDir(), 'new.sqlite'),
        thread,
        onUpgrade: (u) => upgrades.push(u),
      });
      await check(fresh);
      await fresh.close();
      expect(upgrades).toHaveLength(1);
    },
  );
});

describe('a cache written by a newer Earmark', () => {
  it('is refused with a message saying so, and left exactly as it was', async () => {
    const file = await filledCache();
    const db = new Database(file);
    db.pragma(`user_version = ${LATEST_SCHEMA_VERSION + 4}`);
    db.close();
    const before = readFileSync(file);
    for (const thread of ['worker', 'main'] as const) {
      const error = await openCache({ file, thread }).then(
        () => expect.fail('a newer cache must be refused'),
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(CacheTooNewError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `newer version of Earmark.*schema ${LATEST_SCHEMA_VERSION + 4}.*up to ${LATEST_SCHEMA_VERSION}`,
        ),
      );
    }
    expect(readFileSync(file).equals(before)).toBe(true);
  });
});

describe('a damaged cache', () => {
  it('with damaged pages: found by the whole check, moved aside at the next open, the cache starts empty, created ranges, review marks and speaker names are saved', async () => {
    const file = await filledCache();
    damageMiddlePages(file);
    // An open reads only the header and the schema: the damage is the whole check's to find.
    const damaged = await openCache({ file });
    expect(damaged.recovery).toBeNull();
    const found = await damaged.checkWhole();
    expect(found).toEqual({
      state: 'damaged',
      reason: expect.stringMatching(/quick_check|malformed/),
    });
    await damaged.close();
    expect(readFileSync(damageNoteOf(file), 'utf8')).toBe((found as { reason: string }).reason);
    const cache = await openCache({ file });
    expect(cache.recovery).toMatchObject({
      reason: (found as { reason: string }).reason,
      movedTo: expect.stringContaining(`${file}.corrupt-`),
      salvagedCreatedRanges: 1,
      salvagedReviewMarks: 1,
      salvagedSpeakerNames: 1,
    });
    expect(existsSync(cache.recovery!.movedTo!)).toBe(true);
    expect(existsSync(damageNoteOf(file))).toBe(false);
    await check(cache);
    expect(await cache.read.stats()).toMatchObject({ labels: 0, notes: 0, createdRanges: 1 });
    expect(await cache.read.createdRange('conv-1')).toMatchObject({ deviceId: 'consult-room-1' });
    // The sync brings the reviewed record back as it was: still reviewed; the settings stayed.
    const reviewed = label(3, { notes: [note(`${'routine check words '.repeat(40)} 3`, T0)] });
    await cache.write.storeLabels([reviewed], T0);
    const query = {
      records: [reviewed.id],
      conversations: [],
      signOffBoardName: 'Earmark sign-off',
    };
    expect((await cache.read.reviewFacts(query)).map((f) => [f.id, f.reviewed.state])).toEqual([
      [reviewed.id, 'current'],
    ]);
    expect(await cache.read.reviewSettings()).toEqual({ markOnOpen: 'by-hand' });
    // The names the user gave are back, as no version's current: the record's next read places
    // them (its lines are not in the new file yet).
    expect(await cache.read.speakers(label(1).id)).toEqual([
      {
        versionKey: 'v1',
        names: [{ label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' }],
        moves: [],
        notice: null,
        current: false,
        updatedAt: T0,
      },
    ]);
    expect((await cache.read.search('marsh')).hits).toEqual([]);
    await cache.write.storeLabels([label(1, { notes: [note('fresh start', T0)] })], T0);
    expect((await cache.read.search('fresh')).hits).toHaveLength(1);
    await cache.close();
    // The rebuilt file opens clean next time.
    const again = await openCache({ file });
    expect(again.recovery).toBeNull();
    await again.close();
  });

  it('with a damaged schema: is moved aside at open, before any query meets it', async () => {
    const file = await filledCache();
    // Page 1 past the file's header: the root of the schema's b-tree.
    overwrite(file, 100, Buffer.alloc(PAGE - 100, 0x5a));
    const cache = await openCache({ file });
    expect(cache.recovery).toMatchObject({
      reason: expect.stringMatching(/malformed|quick_check|unreadable/),
      salvagedCreatedRanges: 0,
    });
    await check(cache);
    expect((await cache.read.stats()).labels).toBe(0);
    await cache.close();
  });

  it('with a destroyed header: is moved aside and rebuilt empty', async () => {
    const file = await filledCache();
    overwrite(file, 0, Buffer.alloc(100, 0x5a));
    const cache = await openCache({ file });
    expect(cache.recovery).toMatchObject({
      reason: expect.stringMatching(/not a database/),
      salvagedCreatedRanges: 0,
      salvagedReviewMarks: 0,
      salvagedSpeakerNames: 0,
    });
    await check(cache);
    expect((await cache.read.stats()).labels).toBe(0);
    await cache.close();
  });

  it('that is not a SQLite file, or another program’s database: is moved aside', async () => {
    const dir = tempDir();
    const garbage = join(dir, 'garbage.sqlite');
    writeFileSync(garbage, 'this is not a database, just some text that got here');
    const foreign = join(dir, 'foreign.sqlite');
    const other = new Database(foreign);
    other.pragma('application_id = 1234');
    other.exec('CREATE TABLE theirs (x)');
    other.close();
    for (const [file, reason] of [
      [garbage, /not a database/],
      [foreign, /application_id 1234/],
    ] as const) {
      const cache = await openCache({ file, thread: 'main' });
      expect(cache.recovery?.reason).toMatch(reason);
      await check(cache);
      await cache.close();
    }
  });

  it('keeps only the newest damaged copy beside the cache', async () => {
    const file = await filledCache();
    overwrite(file, 0, Buffer.alloc(100, 1));
    const first = await openCache({ file, thread: 'main' });
    await first.close();
    overwrite(file, 0, Buffer.alloc(100, 2));
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await openCache({ file, thread: 'main' });
    await second.close();
    expect(existsSync(first.recovery!.movedTo!)).toBe(false);
    expect(existsSync(second.recovery!.movedTo!)).toBe(true);
  });
});

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AudioCache } from '../../../src/main/audio/audio-cache';
import { openCache, type Cache } from '../../../src/main/cache';
import { runCleanup, type CleanupInput } from '../../../src/main/retention/cleanup';
import { until } from '../../service/poll';
import { CACHE_MODES, type CacheMode } from '../audio/cache-modes';
import { label, MINUTE, note, T0, useTempDir } from '../cache/helpers';

const tempDir = useTempDir('cleanup');
const DAY = 24 * 60 * MINUTE;

/** A record `days` days old at T0, with a transcript. */
const aged = (index: number, days: number) =>
  label(index, { fromMs: T0 - days * DAY, notes: [note(`visit ${index}`, T0 - days * DAY)] });

interface Setup {
  dir: string;
  cache: Cache;
  audio: AudioCache;
  /** Whether the record's audio, and its peaks, are in the audio cache's folder. */
  has(labelId: string): boolean;
  hasPeaks(labelId: string): boolean;
}

const opened: Setup[] = [];
afterEach(async () => {
  for (const { cache, audio } of opened.splice(0)) {
    await audio.close();
    await cache.close();
  }
});

/**
 * A cache with these records and an audio cache holding a whole WAV (with peaks) of each id:
 * kept in the clear by an earlier version, and (the cache sealed) sealed into its store.
 */
async function setUp(
  mode: CacheMode,
  records: ReturnType<typeof aged>[],
  audioIds: string[],
): Promise<Setup> {
  const dir = tempDir();
  const cache = await openCache({
    file: join(dir, 'account.sqlite'),
    thread: 'main',
    key: mode.key?.databaseKey(),
  });
  await cache.write.storeLabels(records, T0);
  const clear = join(dir, 'audio', 'files');
  mkdirSync(clear, { recursive: true });
  for (const id of audioIds) {
    writeFileSync(join(clear, `${id}.wav`), Buffer.alloc(1000, 1));
    writeFileSync(join(clear, `${id}.wav.peaks`), Buffer.alloc(100, 2));
  }
  const folder = join(dir, 'audio');
  const audio = await AudioCache.open({ folder, key: mode.key });
  // Sealed in the background: every one in the store, known by its record.
  await until(
    async () => audio.held().filter((held) => held.labelId !== null).length,
    (count) => count === audioIds.length,
    10_000,
  );
  const at = (labelId: string, which: 0 | 1) =>
    existsSync(join(mode.filesDir(folder), mode.namesOf(labelId)[which]));
  const setup = {
    dir,
    cache,
    audio,
    has: (id: string) => at(id, 0),
    hasPeaks: (id: string) => at(id, 1),
  };
  opened.push(setup);
  return setup;
}

/** The bytes on disk of the records' audio and peaks. */
const diskBytesOf = (setup: Setup, ids: string[]) =>
  setup.audio
    .held()
    .filter((held) => held.labelId !== null && ids.includes(held.labelId))
    .reduce((sum, held) => sum + held.bytes, 0);

const cleanup = (setup: Setup, input: Partial<CleanupInput>) =>
  runCleanup({
    cache: setup.cache,
    audio: setup.audio,
    textBefore: null,
    audioBefore: null,
    spare: [],
    now: () => T0,
    ...input,
  });

describe.each(CACHE_MODES)('a cleanup (audio $mode)', (mode) => {
  it('removes audio by its record’s age, with its peaks, but the kept, the spared and the unknown-aged', async () => {
    const records = [aged(1, 40), aged(2, 10), aged(3, 40), aged(4, 40)];
    const unknown = label(5).id; // audio of a record this computer does not hold
    const setup = await setUp(mode, records, [...records.map((r) => r.id), unknown]);
    await setup.cache.write.keepRecord(records[2]!.id, T0);
    const going = diskBytesOf(setup, [records[0]!.id, unknown]);
    expect(going).toBeGreaterThanOrEqual(2 * 1100);
    const summary = await cleanup(setup, {
      audioBefore: T0 - 30 * DAY,
      spare: [records[3]!.id],
    });
    expect(summary).toMatchObject({ records: 0, audioFiles: 2, audioBytes: going });
    const { has, hasPeaks } = setup;
    expect([records[0]!.id, unknown].map(has)).toEqual([false, false]);
    expect([records[0]!.id, unknown].map(hasPeaks)).toEqual([false, false]);
    expect(records.slice(1).map((r) => has(r.id))).toEqual([true, true, true]);
    // Text is kept for ever here: every record is still there.
    expect((await setup.cache.read.stats()).labels).toBe(4);
  });

  it('keeps audio longer than text when the clinic says so, aged by its record after the text went', async () => {
    const records = [aged(1, 40), aged(2, 100)];
    const setup = await setUp(
      mode,
      records,
      records.map((r) => r.id),
    );
    const first = await cleanup(setup, { textBefore: T0 - 5 * DAY, audioBefore: T0 - 365 * DAY });
    expect(first).toMatchObject({ records: 2, audioFiles: 0 });
    expect((await setup.cache.read.stats()).labels).toBe(0);
    // The records' starts were noted in the audio cache (by their names there) before their
    // text went…
    const indexFile = mode.indexFile(join(setup.dir, 'audio'));
    const indexBytes = mode.key
      ? mode.key.unseal('audio index', readFileSync(indexFile))
      : readFileSync(indexFile);
    const index = JSON.parse(indexBytes.toString('utf8')) as {
      recordStarts: Record<string, number>;
    };
    const nameOf = (id: string) => (mode.key ? mode.key.fileName(id) : id);
    expect(index.recordStarts).toEqual({
      [nameOf(records[0]!.id)]: T0 - 40 * DAY,
      [nameOf(records[1]!.id)]: T0 - 100 * DAY,
    });
    // …so a later cleanup ages the audio without them, after a restart too.
    await setup.audio.close();
    const reopened = await AudioCache.open({ folder: join(setup.dir, 'audio'), key: mode.key });
    setup.audio = reopened;
    const going = diskBytesOf(setup, [records[1]!.id]);
    const second = await cleanup(setup, { audioBefore: T0 - 60 * DAY });
    expect(second).toMatchObject({ records: 0, audioFiles: 1, audioBytes: going });
    expect(reopened.held().map((a) => a.labelId)).toEqual([records[0]!.id]);
  });

  it('works in small steps, reports its progress to the end, and a stopped one is finished by the next', async () => {
    const records = Array.from({ length: 23 }, (_, i) => aged(i + 1, 10 + i));
    const setup = await setUp(mode, records, []);
    const removals: number[] = [];
    const write = new Proxy(setup.cache.write, {
      get(target, name: keyof Cache['write']) {
        if (name !== 'removeRecords') return target[name];
        return async (...args: Parameters<Cache['write']['removeRecords']>) => {
          const step = await target.removeRecords(...args);
          removals.push(step.removed);
          return step;
        };
      },
    });
    const progress: { done: number; total: number }[] = [];
    const stop = new AbortController();
    const stopped = cleanup(
      { ...setup, cache: { ...setup.cache, write } },
      {
        textBefore: T0,
        tuning: { recordsPerStep: 5 },
        signal: stop.signal,
        onProgress: (p) => {
          progress.push(p);
          if (p.done >= 10) stop.abort();
        },
      },
    );
    await expect(stopped).rejects.toThrow(/stopped/);
    expect(removals).toEqual([5, 5]);
    expect((await setup.cache.read.stats()).labels).toBe(13);
    expect(await setup.cache.read.indexesToMerge()).toBe(true);

    progress.length = 0;
    const summary = await cleanup(
      { ...setup, cache: { ...setup.cache, write } },
      { textBefore: T0, tuning: { recordsPerStep: 5 }, onProgress: (p) => progress.push(p) },
    );
    expect(summary.records).toBe(13);
    expect(removals).toEqual([5, 5, 5, 5, 3]);
    expect(await setup.cache.read.indexesToMerge()).toBe(false);
    expect(progress.map((p) => p.done)).toEqual(
      [...progress.map((p) => p.done)].sort((a, b) => a - b),
    );
    expect(progress.at(-1)!.done).toBe(progress.at(-1)!.total);
    expect(summary.textBytes).toBeGreaterThanOrEqual(0);
  });

  it('deletes the damaged copies of the cache, which hold text of any age', async () => {
    const setup = await setUp(mode, [aged(1, 1)], []);
    const copy = `${setup.cache.file}.corrupt-2026-01-01T00-00-00-000Z`;
    writeFileSync(copy, 'an old damaged cache');
    writeFileSync(`${copy}-wal`, 'its WAL');
    const summary = await cleanup(setup, { textBefore: T0 - 30 * DAY });
    expect(existsSync(copy)).toBe(false);
    expect(existsSync(`${copy}-wal`)).toBe(false);
    expect(summary.textBytes).toBeGreaterThanOrEqual('an old damaged cache'.length);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchReach, type SearchReach } from '../../../src/main/sync';
import { startService, type RunningService } from '../../service/harness';
import { useTempDir } from '../cache/helpers';
import {
  DAY_MS,
  expectReachKept,
  seedLabels,
  setUpSync,
  type SeededLabels,
  type SyncSetup,
} from './helpers';

const tempDir = useTempDir('sync-newest-first');
const COUNT = 300;
/** Small pages, one fetch at a time: the order the notes are asked for is the queue's. */
const TUNING = { labelPageSize: 20, concurrency: 1, writeBatch: 10 };

/** Records the ids whose details (notes) the sync asks for, in the order it asks. */
function recordFetches(setup: SyncSetup): string[] {
  const asked: string[] = [];
  const get = setup.api.labels.get.bind(setup.api.labels);
  setup.api.labels.get = (id, options) => {
    asked.push(id);
    return get(id, options);
  };
  return asked;
}

describe.each(['seed', 'field'] as const)('the %s dialect', (dialect) => {
  let svc: RunningService;
  let seeded: SeededLabels;

  beforeAll(async () => {
    svc = await startService({ dialect, rateLimit: { requests: 1_000_000, perSeconds: 1 } });
    seeded = seedLabels(svc, COUNT, { spanMs: 10 * DAY_MS });
  });
  afterAll(() => svc?.dispose());

  it('fetches the notes newest first, and search reaches further back as the sync goes on', async () => {
    const setup = await setUpSync(svc, tempDir());
    const asked = recordFetches(setup);
    const readings: Promise<SearchReach>[] = [];
    const result = await setup.sync(TUNING, {
      onProgress: () => readings.push(searchReach(setup.cache.read)),
    });
    expect(result).toMatchObject({ outcome: 'complete', labels: { notesFetched: COUNT } });

    // Seeded index 0 is the newest: asked in seeded order is newest first.
    const order = asked.map((id) => seeded.ids.indexOf(id));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order).toHaveLength(COUNT);

    const reaches = await Promise.all(readings);
    const bounds = reaches.flatMap((r) => (r.fromMs === null || r.complete ? [] : [r.fromMs]));
    expect(bounds).toEqual([...bounds].sort((a, b) => b - a));
    // It moved back page by page, not all at once at the end.
    expect(new Set(bounds).size).toBeGreaterThan(5);
    expect(await searchReach(setup.cache.read)).toEqual({ complete: true, fromMs: null });
    await setup.close();
  });

  it('stopped part-way, says how far back search reaches, and the next run goes on from there', async () => {
    const setup = await setUpSync(svc, tempDir());
    const stop = new AbortController();
    const stopped = await setup.sync(TUNING, {
      signal: stop.signal,
      onProgress: (progress) => {
        if (progress.labels.notesFetched >= COUNT / 2) stop.abort();
      },
    });
    expect(stopped.outcome).toBe('cancelled');
    const reach = await searchReach(setup.cache.read);
    expect(reach.complete).toBe(false);
    const reached = await expectReachKept(setup, seeded, reach);
    expect(reached).toBeGreaterThanOrEqual(COUNT / 2 - TUNING.writeBatch);
    expect(reached).toBeLessThan(COUNT);

    // A clinic keeping text 3 days: search reaches no further back than the window, whatever
    // the cache holds.
    const textFromMs = Date.now() - 3 * DAY_MS;
    expect((await searchReach(setup.cache.read, textFromMs)).fromMs).toBeGreaterThanOrEqual(
      textFromMs,
    );

    const asked = recordFetches(setup);
    const resumed = await setup.sync(TUNING);
    expect(resumed.outcome).toBe('complete');
    // Only what the stopped run had not fetched, newest first.
    const order = asked.map((id) => seeded.ids.indexOf(id));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.length).toBe(COUNT - reached);
    expect(await searchReach(setup.cache.read)).toEqual({ complete: true, fromMs: null });
    await setup.close();
  });

  it('asks no record twice: one opened before its turn (before the sync, or during it) is not fetched again', async () => {
    const setup = await setUpSync(svc, tempDir());
    /** What opening a record does (Recordings.get): its details fetched and kept in the cache. */
    const open = async (id: string) =>
      setup.cache.write.storeLabels([await setup.api.labels.get(id)], Date.now());
    const recent = seeded.ids[2]!;
    const oldest = seeded.ids[COUNT - 1]!;
    await open(recent);
    await open(oldest);
    const asked = recordFetches(setup);
    const openedDuring = seeded.ids[COUNT - 10]!;
    let opening: Promise<void> | undefined;
    const result = await setup.sync(TUNING, {
      onProgress: (progress) => {
        if (!opening && progress.labels.notesFetched >= 20) opening = open(openedDuring);
      },
    });
    expect(opening).toBeDefined();
    await opening;
    expect(result.outcome).toBe('complete');
    expect(asked).not.toContain(recent);
    expect(asked).not.toContain(oldest);
    // The one opened during the sync was fetched by the open (counted here too), and only then.
    expect(asked.filter((id) => id === openedDuring)).toHaveLength(1);
    expect(asked).toHaveLength(COUNT - 2);
    expect(new Set(asked).size).toBe(asked.length);
    expect(await setup.cache.read.stats()).toMatchObject({ notes: COUNT, labelsNeedingNotes: 0 });
    await setup.close();
  });
});

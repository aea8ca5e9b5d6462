import Database from 'better-sqlite3-multiple-ciphers';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HISTORY_STREAM,
  searchReach,
  type HistoryState,
  type SyncProgress,
} from '../../../src/main/sync';
import { launch } from '../../service/child-process';
import { startService, type RunningService } from '../../service/harness';
import { checkIndexes, useTempDir } from '../cache/helpers';
import {
  cachedLabelIds,
  expectReachKept,
  seedLabels,
  serviceLabelIds,
  setUpSync,
  type SeededLabels,
} from './helpers';

const tempDir = useTempDir('sync-kill');
const CHILD = fileURLToPath(new URL('./sync-child.ts', import.meta.url));
const COUNT = 3000;
/** Small pages and batches: the walk takes about 150 pages, so a kill lands in the middle of it. */
const TUNING = { labelPageSize: 20, concurrency: 4, writeBatch: 20 };
/** The window holds about 30% of the labels (10 days seeded, 72 hours re-scanned). */
const KILL_AFTER_LISTED = 1500;

let svc: RunningService;
let seeded: SeededLabels;

beforeAll(async () => {
  svc = await startService({ rateLimit: { requests: 1_000_000, perSeconds: 1 } });
  seeded = seedLabels(svc, COUNT);
});
afterAll(() => svc?.dispose());

describe('a sync killed with SIGKILL', () => {
  it('leaves a cache that opens clean, and the next sync resumes the history walk and completes it', async () => {
    const file = join(tempDir(), 'account.sqlite');
    const { primary } = svc.credentials;
    const child = launch(CHILD, [
      file,
      svc.baseUrl,
      primary.apiKey,
      primary.organizationId,
      JSON.stringify(TUNING),
    ]);
    // Kill it as soon as it reports a history page well into the walk.
    let seen: SyncProgress | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`never got far: ${child.output.stderr}`)),
        60_000,
      );
      child.child.stdout!.on('data', () => {
        const lines = child.output.stdout.trim().split('\n');
        for (const line of lines) {
          const { progress } = JSON.parse(line) as { progress?: SyncProgress };
          if (progress && progress.labels.listed >= KILL_AFTER_LISTED) {
            seen = progress;
            clearTimeout(timer);
            resolve();
            return;
          }
        }
      });
    });
    const exit = await child.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    expect(child.output.stdout).not.toContain('"result"');
    expect(seen!.labels.notesFetched).toBeLessThan(COUNT);

    // The file as the killed process left it (WAL and all): SQLite's own check passes.
    const raw = new Database(file);
    expect(raw.pragma('quick_check', { simple: true })).toBe('ok');
    checkIndexes(raw);
    raw.close();

    const setup = await setUpSync(svc, join(file, '..'));
    expect(setup.cache.recovery).toBeNull();
    const saved = (await setup.cache.read.syncState(HISTORY_STREAM)) as HistoryState;
    expect(saved.completedAt).toBeNull();
    expect(saved.listed).toBeGreaterThan(0);
    const before = await setup.cache.read.stats();
    expect(before.labels).toBeGreaterThanOrEqual(KILL_AFTER_LISTED);
    // Newest first: what it fetched before the kill is the newest records, every one of them
    // searchable back to the reach the status shows.
    const reach = await searchReach(setup.cache.read);
    expect(reach.complete).toBe(false);
    const reached = await expectReachKept(setup, seeded, reach);
    // All but the few fetched out of order at the end (a few answers at once, written together).
    const fetched = before.labels - before.labelsNeedingNotes;
    expect(reached).toBeLessThanOrEqual(fetched);
    expect(reached).toBeGreaterThan(fetched - TUNING.concurrency - TUNING.writeBatch);

    const result = await setup.sync(TUNING);
    expect(result).toMatchObject({
      outcome: 'complete',
      labels: { resumedHistory: true, historyComplete: true, added: COUNT - before.labels },
    });
    // Resumed, not restarted: this run listed its window and the rest of the walk, nothing more.
    const windowStart = new Date(result.startedAt - 72 * 60 * 60 * 1000).toISOString();
    const inWindow = (await setup.cache.read.labels({ fromTime: windowStart })).total;
    expect(result.labels.listed).toBe(inWindow + saved.total! - saved.listed);
    expect(result.labels.notesFetched).toBeLessThan(COUNT);
    expect(result.labels.notesFetched).toBe(before.labelsNeedingNotes + result.labels.added);

    const ids = await cachedLabelIds(setup.cache);
    expect(ids).toHaveLength(COUNT);
    expect(new Set(ids).size).toBe(COUNT);
    expect(ids.sort()).toEqual((await serviceLabelIds(svc)).sort());
    expect(await setup.cache.read.stats()).toMatchObject({ notes: COUNT, labelsNeedingNotes: 0 });
    expect(await searchReach(setup.cache.read)).toEqual({ complete: true, fromMs: null });
    await setup.close();
    // A child process's start and a 3,000-label walk: seconds alone, far more on a loaded machine.
  }, 120_000);
});

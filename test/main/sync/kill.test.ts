import Database from 'better-sqlite3-multiple-ciphers';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HISTORY_STREAM,
  searchReach,
  type HistoryState,
  type SyncProgress,
  type SyncTuning,
} from '../../../src/main/sync';
import { launch, type Launched } from '../../service/child-process';
import { startService, type RunningService } from '../../service/harness';
import { checkIndexes, useTempDir } from '../cache/helpers';
import {
  cachedLabelIds,
  DAY_MS,
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

/** The sync child's first progress report that `enough` accepts (its lines parsed as they come). */
function progressUntil(
  child: Launched,
  enough: (progress: SyncProgress) => boolean,
  ms = 60_000,
): Promise<SyncProgress> {
  return new Promise<SyncProgress>((resolve, reject) => {
    const stdout = child.child.stdout!;
    const timer = setTimeout(() => {
      stdout.off('data', onData);
      reject(new Error(`never got far: ${child.output.stderr}`));
    }, ms);
    let parsed = 0;
    const onData = () => {
      const end = child.output.stdout.lastIndexOf('\n');
      if (end < parsed) return;
      const lines = child.output.stdout.slice(parsed, end).split('\n');
      parsed = end + 1;
      for (const line of lines) {
        const { progress } = JSON.parse(line || '{}') as { progress?: SyncProgress };
        if (progress && enough(progress)) {
          clearTimeout(timer);
          stdout.off('data', onData);
          resolve(progress);
          return;
        }
      }
    };
    stdout.on('data', onData);
  });
}

/**
 * The cache a killed sync left: the file as the process left it (WAL and all) passes SQLite's
 * own checks, opens without a recovery, and holds a history walk under way.
 */
async function reopenKilled(svc: RunningService, file: string) {
  const raw = new Database(file);
  expect(raw.pragma('quick_check', { simple: true })).toBe('ok');
  checkIndexes(raw);
  raw.close();
  const setup = await setUpSync(svc, join(file, '..'));
  expect(setup.cache.recovery).toBeNull();
  const saved = (await setup.cache.read.syncState(HISTORY_STREAM)) as HistoryState;
  expect(saved.completedAt).toBeNull();
  return { setup, saved };
}

/** The sync in a process of its own, into `file`, for the primary organization of `svc`. */
const syncChild = (svc: RunningService, file: string, tuning: SyncTuning = {}) =>
  launch(CHILD, [
    file,
    svc.baseUrl,
    svc.credentials.primary.apiKey,
    svc.credentials.primary.organizationId,
    JSON.stringify(tuning),
  ]);

describe('a sync killed with SIGKILL', () => {
  let svc: RunningService;
  let seeded: SeededLabels;

  beforeAll(async () => {
    svc = await startService({ rateLimit: { requests: 1_000_000, perSeconds: 1 } });
    seeded = seedLabels(svc, COUNT);
  });
  afterAll(() => svc?.dispose());

  it('leaves a cache that opens clean, and the next sync resumes the history walk and completes it', async () => {
    const file = join(tempDir(), 'account.sqlite');
    const child = syncChild(svc, file, TUNING);
    // Kill it as soon as it reports a history page well into the walk.
    const seen = await progressUntil(child, (p) => p.labels.listed >= KILL_AFTER_LISTED);
    const exit = await child.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    expect(child.output.stdout).not.toContain('"result"');
    expect(seen.labels.notesFetched).toBeLessThan(COUNT);

    const { setup, saved } = await reopenKilled(svc, file);
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

/**
 * At a hospital's scale (issue 31): a million records over three years, the sync killed well
 * into its newest-first walk. The cache opens clean; what it says is listed and searchable holds;
 * the next sync goes on from where the walk stopped, not from the top.
 */
describe('a sync of a million records killed mid-way', () => {
  const MILLION = 1_000_000;
  const SPAN_MS = 3 * 365 * DAY_MS;
  const KILL_AFTER = 60_000;
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startService({ rateLimit: { requests: 1_000_000, perSeconds: 1 } });
    seedLabels(svc, MILLION, { spanMs: SPAN_MS });
  }, 120_000);
  afterAll(() => svc?.dispose());

  /** The service's records starting after `ms` (the primary organization's). */
  const serviceCountAfter = (ms: number): number =>
    (
      svc.service.db
        .prepare('SELECT count(*) AS n FROM labels WHERE organization_id = ? AND from_ms > ?')
        .get(svc.credentials.primary.organizationId, ms) as { n: number }
    ).n;

  it('opens clean, keeps what it says is listed and searchable, and resumes the walk where it stopped', async () => {
    const file = join(tempDir(), 'account.sqlite');
    const child = syncChild(svc, file);
    const seen = await progressUntil(child, (p) => p.labels.listed >= KILL_AFTER, 300_000);
    expect((await child.kill('SIGKILL')).signal).toBe('SIGKILL');
    expect(seen.labels.listed).toBeLessThan(MILLION / 2);

    const { setup, saved } = await reopenKilled(svc, file);
    // The walk covers every record older than the window it began under.
    expect(saved.total).toBe(MILLION - serviceCountAfter(saved.topMs - 1));
    // The walk's cursor never runs ahead of what is stored: every record newer than it is here.
    const cachedAfter = async (ms: number) =>
      (await setup.cache.read.labels({ fromTime: new Date(ms + 1).toISOString(), limit: 1 })).total;
    const listedBefore = await cachedAfter(saved.boundMs);
    expect(listedBefore).toBe(serviceCountAfter(saved.boundMs));
    expect(listedBefore).toBeGreaterThanOrEqual(KILL_AFTER / 2);
    // Search reaches back to where every record has its notes: the service's records from there
    // on are here, each with its notes.
    const reach = await searchReach(setup.cache.read);
    expect(reach.complete).toBe(false);
    expect(reach.fromMs).not.toBeNull();
    const reader = new Database(file, { readonly: true });
    const withNotes = reader
      .prepare(
        'SELECT count(*) AS n FROM labels WHERE from_ms >= ? AND notes_fetched_at IS NOT NULL',
      )
      .get(reach.fromMs) as { n: number };
    reader.close();
    expect(withNotes.n).toBe(serviceCountAfter(reach.fromMs! - 1));
    expect(withNotes.n).toBeGreaterThan(0);

    // The next sync goes on with the walk (stopped again once it has listed a few more pages).
    const stop = new AbortController();
    const resumed = await setup.sync(
      {},
      {
        signal: stop.signal,
        onProgress: (p) => {
          if (p.labels.listed >= 20_000) stop.abort();
        },
      },
    );
    expect(resumed.outcome).toBe('cancelled');
    const walked = (await setup.cache.read.syncState(HISTORY_STREAM)) as HistoryState;
    expect(walked.boundMs).toBeLessThan(saved.boundMs);
    expect(walked.listed).toBeGreaterThan(saved.listed);
    // From where it stopped: this run listed the window and the walk's next pages, not the top.
    const windowStart = resumed.startedAt - 72 * 60 * 60 * 1000;
    expect(resumed.labels.listed).toBeLessThanOrEqual(
      serviceCountAfter(windowStart) + walked.listed - saved.listed + 1000,
    );
    expect(await cachedAfter(walked.boundMs)).toBe(serviceCountAfter(walked.boundMs));
    await setup.close();
  }, 600_000);
});

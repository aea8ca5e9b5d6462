// Retention's cleanup (issue 29, "Benchmark"): the oldest 30 days of a year of a ten-device
// clinic removed while the background sync runs, and how responsive the main process stays.
//
//   npx tsx bench/retention.bench.ts            (or: npm run bench -- retention)
//   RETENTION_BENCH_DAYS=90 npx tsx bench/retention.bench.ts   (a smaller clinic history)
//
// The clinic: the reference service's scale seed (`--seed scale:N`, in a child process, rate
// limit lifted), N = 200 records a day (about 20 a day for each of ten devices) × DAYS days (365
// by default). The cache is filled directly, as bench/list.bench.ts does (a first sync would
// fetch every record's details one by one): every record of the service's listing, each with a
// transcript of 8–16 lines of the demo dialogue bank, written through the cache's writer (so
// the full-text indexes are built by their triggers), plus a 20 KB audio file with peaks in the
// audio cache for one record in ten. That cache is copied for every run, so each starts alike.
//
// A run: a sync whose history walk is due (it lists every record of the year again and fetches
// the notes of its 72-hour window) with, in the same process and at the same time, a cleanup
// removing the records older than DAYS − 30 days (30 days of records with their audio), as
// "Remove now" or the daily cleanup would. The same sync alone is the baseline, alternated with
// it, RUNS of each.
//
// Figures (median of the runs; event-loop figures the worst run):
// - the cleanup's time, from its start to its summary (the indexes merged and the WAL truncated):
//   information (no target in the issue); baseline: the same removal as one DELETE in one
//   transaction on the main thread with plain better-sqlite3 and no merge (what blocking costs);
// - the main thread's event-loop delay p99 while both run (monitorEventLoopDelay, 1 ms
//   resolution): the sync's loop and the UI's (the shells answer the renderer's calls there);
//   target 20 ms; baseline: the same sync with no cleanup;
// - a screen's read while both run: a page of the Recordings list (`labels`, 100 rows) asked
//   every 50 ms through the cache's reader thread, p99 from the call to its answer: information
//   (the target is the loop's); baseline: the same reads beside the sync alone;
// - the sync's time beside the cleanup ÷ its time alone: information.
import Database from 'better-sqlite3-multiple-ciphers';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { AudioCache } from '../src/main/audio/audio-cache';
import { openCache, type Cache } from '../src/main/cache';
import { runCleanup } from '../src/main/retention/cleanup';
import { createApiClient } from '../src/main/service-client/client';
import { createSyncEngine, type SyncResult } from '../src/main/sync';
import { DIALOGUE_SCRIPTS } from '../src/service/demo/dialogue';
import { seededRandom } from '../src/service/random';
import type { Label } from '../src/shared/api';
import type { CleanupSummary } from '../src/shared/ipc';
import { DAY_MS } from '../src/shared/retention';
import { machine, median, quantile, report, type Figure } from './lib/report';
import { startScaleService, type ScaleService } from './lib/service';

const RECORDS_PER_DAY = 200; // the scale seed's
const DAYS = Number(process.env.RETENTION_BENCH_DAYS ?? 365);
const REMOVED_DAYS = 30;
const RUNS = 3;
const AUDIO_EVERY = 10;
const AUDIO_BYTES = 20_000;
const READ_EVERY_MS = 50;
const TARGET_LOOP_P99_MS = 20;

const lines = DIALOGUE_SCRIPTS.flatMap((script) =>
  script.lines.map((line) => `${line.speaker}: ${line.text}`),
);

/** Every record of the service's listing with a transcript, into a new cache; audio for some. */
async function fillCache(service: ScaleService, dir: string): Promise<number> {
  const api = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  const cache = await openCache({ file: join(dir, 'account.sqlite') });
  const random = seededRandom('earmark-retention-bench');
  const files = join(dir, 'audio', 'files');
  mkdirSync(files, { recursive: true });
  const starts: Record<string, number> = {};
  let count = 0;
  let batch: Label[] = [];
  const flush = async () => {
    await cache.write.storeLabels(batch, Date.now());
    batch = [];
  };
  for await (const page of api.labels.pages(service.organizationId, { limit: 1000 })) {
    for (const label of page.items) {
      const transcript = Array.from({ length: random.int(8, 16) }, () => random.pick(lines));
      batch.push({
        ...label,
        ownedPatientNotes: [
          {
            type: 'Transcript',
            content: transcript.join('\n'),
            createdAt: label.toTime,
            time: label.toTime,
          },
        ],
      });
      if (count % AUDIO_EVERY === 0) {
        writeFileSync(join(files, `${label.id}.wav`), Buffer.alloc(AUDIO_BYTES, count % 251));
        writeFileSync(join(files, `${label.id}.wav.peaks`), Buffer.alloc(AUDIO_BYTES / 50, 7));
        starts[label.id] = Date.parse(label.fromTime);
      }
      count++;
    }
    if (batch.length >= 5000) await flush();
  }
  await flush();
  await cache.write.checkpoint();
  await cache.close();
  const audio = await AudioCache.open({ folder: join(dir, 'audio') });
  await audio.noteRecordStarts(starts);
  await audio.close();
  await api.close();
  return count;
}

/** A copy of the filled cache and audio cache for one run. */
const copyOf = (source: string, dir: string) => cpSync(source, dir, { recursive: true });

interface Run {
  withCleanup: boolean;
  syncMs: number;
  cleanupMs: number | null;
  cleanup: CleanupSummary | null;
  loopP99Ms: number;
  loopMaxMs: number;
  readP99Ms: number | null;
  reads: number;
  sync: SyncResult['labels'];
}

async function runOnce(
  service: ScaleService,
  filled: string,
  dir: string,
  withCleanup: boolean,
): Promise<Run> {
  copyOf(filled, dir);
  const cache = await openCache({ file: join(dir, 'account.sqlite') });
  const audio = await AudioCache.open({ folder: join(dir, 'audio') });
  const api = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  const engine = createSyncEngine(
    { cache, api, organizationId: service.organizationId },
    { fullRescanMs: 0 },
  );
  const reads: number[] = [];
  let reading = true;
  const reader = (async () => {
    while (reading) {
      const asked = performance.now();
      await cache.read.labels({ limit: 100, offset: 0 });
      reads.push(performance.now() - asked);
      await new Promise((resolve) => setTimeout(resolve, READ_EVERY_MS));
    }
  })();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const started = performance.now();
  const synced = engine.run().then((result) => ({ result, ms: performance.now() - started }));
  const cleaned = withCleanup
    ? cleanup(cache, audio).then((summary) => ({ summary, ms: performance.now() - started }))
    : Promise.resolve(null);
  const [sync, clean] = await Promise.all([synced, cleaned]);
  loop.disable();
  reading = false;
  await reader;
  await audio.close();
  await cache.close();
  await api.close();
  rmSync(dir, { recursive: true, force: true });
  if (sync.result.outcome !== 'complete') throw new Error(`the sync ended ${sync.result.outcome}`);
  return {
    withCleanup,
    syncMs: sync.ms,
    cleanupMs: clean?.ms ?? null,
    cleanup: clean?.summary ?? null,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    readP99Ms: quantile(reads, 0.99),
    reads: reads.length,
    sync: sync.result.labels,
  };
}

const cutoff = () => Date.now() - (DAYS - REMOVED_DAYS) * DAY_MS;

function cleanup(cache: Cache, audio: AudioCache): Promise<CleanupSummary> {
  const before = cutoff();
  return runCleanup({
    cache,
    audio,
    textBefore: before,
    audioBefore: before,
    spare: [],
    now: Date.now,
  });
}

/** The same records removed as one DELETE in one transaction, on this thread, no merge. */
function blockingDelete(filled: string, dir: string): number {
  copyOf(filled, dir);
  const db = new Database(join(dir, 'account.sqlite'));
  db.pragma('foreign_keys = ON');
  const started = performance.now();
  db.prepare('DELETE FROM labels WHERE from_ms < ?').run(cutoff());
  const ms = performance.now() - started;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return ms;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const info = machine({ days: DAYS, records: DAYS * RECORDS_PER_DAY });
  const root = mkdtempSync(join(tmpdir(), 'earmark-retention-bench-'));
  const service = await startScaleService(join(root, 'service'), DAYS * RECORDS_PER_DAY);
  try {
    const filled = join(root, 'filled');
    mkdirSync(filled);
    const fillStarted = performance.now();
    const records = await fillCache(service, filled);
    const fillMs = performance.now() - fillStarted;
    console.log(`cache filled: ${records} records in ${Math.round(fillMs)} ms`);
    const runs: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      for (const withCleanup of i % 2 === 0 ? [true, false] : [false, true]) {
        const run = await runOnce(
          service,
          filled,
          join(root, `run-${i}-${withCleanup}`),
          withCleanup,
        );
        console.log(
          `${withCleanup ? 'sync + cleanup' : 'sync alone    '}: sync ${Math.round(run.syncMs)} ms` +
            (run.cleanupMs === null ? '' : `, cleanup ${Math.round(run.cleanupMs)} ms`) +
            `, loop p99 ${run.loopP99Ms.toFixed(1)} ms, read p99 ${run.readP99Ms?.toFixed(1)} ms`,
        );
        runs.push(run);
      }
    }
    const blocking = Array.from({ length: RUNS }, (_, i) =>
      blockingDelete(filled, join(root, `blocking-${i}`)),
    );
    const withCleanup = runs.filter((r) => r.withCleanup);
    const alone = runs.filter((r) => !r.withCleanup);
    const worst = (values: number[]) => Math.max(...values);
    const figures: Figure[] = [
      {
        figure: `cleanup of ${REMOVED_DAYS} of ${DAYS} days, median`,
        unit: 'ms',
        measured: median(withCleanup.map((r) => r.cleanupMs!)),
        target: null,
        baseline: median(blocking),
        baselineIs: 'the same rows in one DELETE on the main thread, no merge (blocking)',
        samples: withCleanup.length,
      },
      {
        figure: 'event-loop p99 during sync + cleanup, worst run',
        unit: 'ms',
        measured: worst(withCleanup.map((r) => r.loopP99Ms)),
        target: TARGET_LOOP_P99_MS,
        baseline: worst(alone.map((r) => r.loopP99Ms)),
        baselineIs: 'the same sync with no cleanup, worst run',
        samples: withCleanup.length,
      },
      {
        figure: 'a Recordings page read during sync + cleanup, p99, worst run',
        unit: 'ms',
        measured: worst(withCleanup.map((r) => r.readP99Ms ?? Number.NaN)),
        // The target is the loop's; a screen's read is information beside its baseline.
        target: null,
        baseline: worst(alone.map((r) => r.readP99Ms ?? Number.NaN)),
        baselineIs: 'the same reads beside the sync alone',
        samples: withCleanup.reduce((sum, r) => sum + r.reads, 0),
      },
      {
        figure: 'sync time beside the cleanup ÷ alone, medians',
        unit: '×',
        measured: median(withCleanup.map((r) => r.syncMs))! / median(alone.map((r) => r.syncMs))!,
        target: null,
        baseline: 1,
        baselineIs: 'the sync alone',
        samples: runs.length,
      },
    ];
    report('retention', startedAt, info, figures, { records, fillMs, runs, blocking });
  } finally {
    service.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();

// Sync of 10,000 labels with their notes (issue 5, "Benchmarks"): how fast a first sync fills an
// empty cache, and how responsive the main process stays meanwhile.
//
//   npx tsx bench/sync.bench.ts        (or: npm run bench -- sync)
//
// The reference service runs in a child process (`src/service/cli.ts --seed scale:10000`, started
// by bench/lib/service.ts), so its CPU is not the syncing process's; its rate limit is lifted (`--rate-limit 1000000/1`):
// the default, 3000 requests a minute, would make the limit the figure (a first sync of 10,000
// labels makes 10,000 detail requests). The service is warmed up first (listing everything and
// fetching 2,000 details): the figure is the sync's, not the JIT's of a service just started.
//
// Figures (median of RUNS syncs, each into a new empty cache, the database in its worker threads
// as the app runs it):
// - time for 10,000 labels with notes, from run() to its result; target 5,000 ms (≥ 2,000
//   labels/s); baseline: the same rows (read back from the synced cache) inserted with plain
//   better-sqlite3 statements, one per row, in one transaction, into the same schema.
// Also printed: the same requests with nothing stored (the service's ceiling in this run).
// - event-loop delay p99 during the sync (monitorEventLoopDelay, 1 ms resolution, so the value
//   includes that millisecond), worst of the runs; target 20 ms; baseline: the same sync with the
//   database on the main thread (`thread: 'main'`).
// Also recorded for each sync: the CPU this process and the service used meanwhile (the service's
// from /proc, Linux only): on two cores they share the machine, and the split says which side a
// sync waits for.
import Database from 'better-sqlite3-multiple-ciphers';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApiClient, type ApiClient } from '../src/main/service-client/client';
import { openCache } from '../src/main/cache';
import { openCacheDatabase } from '../src/main/cache/database';
import { createSyncEngine, SYNC_DEFAULTS, type SyncResult } from '../src/main/sync';
import { machine, median, report, type Figure } from './lib/report';
import { fetchEverything, startScaleService, type ScaleService } from './lib/service';

const LABELS = 10_000;
const RUNS = 3;
const TARGET_LABELS_PER_S = 2000;
const TARGET_LOOP_P99_MS = 20;
const WARM_UP_DETAILS = 2000;
const LOOP_RESOLUTION_MS = 1;

/** Lists every label and fetches some details, so the service's code is compiled and hot. */
async function warmUp(api: ApiClient, organizationId: string): Promise<void> {
  const ids: string[] = [];
  for await (const page of api.labels.pages(organizationId, { limit: 1000 }))
    ids.push(...page.items.map((l) => l.id));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < WARM_UP_DETAILS) await api.labels.get(ids[next++]!);
    }),
  );
}

interface Run {
  thread: 'worker' | 'main';
  ms: number;
  labelsPerS: number;
  loopP99Ms: number;
  loopMaxMs: number;
  /** CPU used meanwhile by this process (all its threads) and by the service. */
  cpuMs: number;
  serviceCpuMs: number | null;
  result: SyncResult;
}

async function syncOnce(service: ScaleService, dir: string, thread: Run['thread']): Promise<Run> {
  const file = join(dir, `${thread}-${Date.now()}.sqlite`);
  const cache = await openCache({ file, thread });
  const api = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  const engine = createSyncEngine({ cache, api, organizationId: service.organizationId });
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  loop.enable();
  const serviceBefore = service.cpuMs();
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await engine.run();
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const serviceAfter = service.cpuMs();
  loop.disable();
  const stats = await cache.read.stats();
  await api.close();
  await cache.close();
  if (result.outcome !== 'complete' || stats.labels !== LABELS || stats.notes < LABELS)
    throw new Error(`the sync did not complete: ${JSON.stringify({ result, stats })}`);
  return {
    thread,
    ms,
    labelsPerS: LABELS / (ms / 1000),
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    cpuMs: (cpu.user + cpu.system) / 1000,
    serviceCpuMs:
      serviceBefore === null || serviceAfter === null ? null : serviceAfter - serviceBefore,
    result,
  };
}

/** The baseline: the synced rows inserted row by row, in one transaction, into the same schema. */
function rawInserts(syncedFile: string, dir: string): { ms: number } {
  const source = new Database(syncedFile, { readonly: true });
  const rows = source
    .prepare(
      'SELECT id, type, from_ms, to_ms, patient_id, patient_name, friendly_name, device_serial FROM labels',
    )
    .all() as Record<string, unknown>[];
  const notes = source
    .prepare(
      'SELECT label_id, version_key, type, content, created_at, time, position, is_current FROM notes',
    )
    .all() as Record<string, unknown>[];
  source.close();
  const { db } = openCacheDatabase(join(dir, 'raw.sqlite'));
  const insertLabel = db.prepare(
    `INSERT INTO labels (id, type, from_ms, to_ms, patient_id, patient_name, friendly_name,
       device_serial, seen_at, notes_stale, notes_fetched_at, transcript_pending)
     VALUES (@id, @type, @from_ms, @to_ms, @patient_id, @patient_name, @friendly_name,
       @device_serial, 0, 0, 0, 0)`,
  );
  const insertNote = db.prepare(
    `INSERT INTO notes (label_id, version_key, type, content, created_at, time, position, is_current)
     VALUES (@label_id, @version_key, @type, @content, @created_at, @time, @position, @is_current)`,
  );
  const started = performance.now();
  db.transaction(() => {
    for (const row of rows) insertLabel.run(row);
    for (const note of notes) insertNote.run(note);
  })();
  const ms = performance.now() - started;
  db.close();
  return { ms };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine();
  const dir = mkdtempSync(join(tmpdir(), 'earmark-sync-bench-'));
  const service = await startScaleService(join(dir, 'service'), LABELS);
  try {
    const api = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    await warmUp(api, service.organizationId);
    await api.close();

    const worker: Run[] = [];
    const inline: Run[] = [];
    const ceiling: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      ceiling.push(await fetchEverything(service));
      worker.push(await syncOnce(service, dir, 'worker'));
      inline.push(await syncOnce(service, dir, 'main'));
    }
    const synced = join(dir, 'synced.sqlite');
    {
      // One more sync kept for the baseline's rows.
      const cache = await openCache({ file: synced, thread: 'main' });
      const client = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
      await createSyncEngine({ cache, api: client, organizationId: service.organizationId }).run();
      await client.close();
      await cache.close();
    }
    const raw = [0, 1, 2].map(() => rawInserts(synced, mkdtempSync(join(dir, 'raw-'))));

    const show = (runs: Run[]) =>
      runs.map((r) => `${r.labelsPerS.toFixed(0)}/s (p99 ${r.loopP99Ms.toFixed(1)} ms)`).join(', ');
    const cpu = (runs: Run[]) =>
      runs
        .map(
          (r) =>
            `${(r.cpuMs / 1000).toFixed(1)} s + ${((r.serviceCpuMs ?? NaN) / 1000).toFixed(1)} s`,
        )
        .join(', ');
    const rawMs = median(raw.map((r) => r.ms))!;
    process.stdout.write(
      `\nsync of ${LABELS} labels with notes (target ≥ ${TARGET_LABELS_PER_S} labels/s, ` +
        `event-loop p99 ≤ ${TARGET_LOOP_P99_MS} ms)\n` +
        `  database in worker threads: ${show(worker)}\n` +
        `  database on the main thread: ${show(inline)}\n` +
        `  CPU during each sync in worker threads, this process + the service: ${cpu(worker)}\n` +
        `  the same requests, nothing stored: ${ceiling.map((ms) => `${(LABELS / (ms / 1000)).toFixed(0)}/s`).join(', ')}\n` +
        `  raw inserts, one transaction: ${(LABELS / (rawMs / 1000)).toFixed(0)} labels/s ` +
        `(${rawMs.toFixed(0)} ms the event loop is blocked)\n`,
    );
    const figures: Figure[] = [
      {
        figure: `sync ${LABELS} labels with notes, median time`,
        unit: 'ms',
        measured: median(worker.map((r) => r.ms)),
        target: (LABELS / TARGET_LABELS_PER_S) * 1000,
        baseline: rawMs,
        baselineIs: `the same rows inserted row by row in one transaction (plain better-sqlite3, same schema), median of ${raw.length}; target = ${TARGET_LABELS_PER_S} labels/s`,
        samples: worker.length,
      },
      {
        figure: 'event-loop delay p99 during the sync, worst run',
        unit: 'ms',
        measured: Math.max(...worker.map((r) => r.loopP99Ms)),
        target: TARGET_LOOP_P99_MS,
        baseline: Math.max(...inline.map((r) => r.loopP99Ms)),
        baselineIs: 'the same sync with the database on the main thread, worst run',
        samples: worker.length,
      },
    ];
    report('sync', startedAt, machineInfo, figures, {
      labels: LABELS,
      workerRuns: worker.map(({ result: _r, ...run }) => run),
      mainThreadRuns: inline.map(({ result: _r, ...run }) => run),
      rawInsertMs: raw.map((r) => r.ms),
      fetchOnlyMs: ceiling,
      tuning: `defaults (concurrency ${SYNC_DEFAULTS.concurrency}, pages of ${SYNC_DEFAULTS.labelPageSize}, writes of ${SYNC_DEFAULTS.writeBatch}), the app’s client defaults`,
      note:
        'The service runs in a child process on the same machine (rate limit lifted, warmed ' +
        'up); each run syncs into a new empty cache. Event-loop values include the 1 ms ' +
        'sampling resolution.',
    });
  } finally {
    service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

// A first sync of 10,000 labels against a service that enforces its rate limit (issue 18,
// "Benchmark"): how much of what the limit allows the sync uses, how few requests the service
// refuses, and how responsive the main process stays; against the field dialect (lists carry no
// notes, so every label's detail is fetched), beside the same sync against the seed dialect.
//
//   npx tsx bench/sync-rate-limit.bench.ts        (or: npm run bench -- rate-limit)
//
// Each dialect runs in its own service process (`src/service/cli.ts --seed scale:10000
// --rate-limit 1000/5 [--dialect field]`, bench/lib/service.ts), untouched before the sync, so the
// key's bucket is full: a burst of 1,000 requests, then 200 a second. That limit is the bench's
// choice (the service's default, 3,000 a minute, would make one sync last over three minutes);
// the figures are shares of it, so they say the same at any rate.
//
// Figures (one sync each, into a new empty cache, the database in its worker threads):
// - requests answered ÷ what the limit allows over the sync's time (the burst plus the rate times
//   the seconds): target ≥ 0.8.
// - 429 answers ÷ all requests: target ≤ 1%.
// - event-loop delay p99 during the sync (1 ms resolution): target 20 ms.
// Each beside the same figure against the seed dialect. Requests are counted by wrapping the API
// client's endpoint functions (every request of a sync goes through one of them).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createApiClient } from '../src/main/service-client/client';
import { openCache } from '../src/main/cache';
import { createSyncEngine, type SyncResult } from '../src/main/sync';
import { countingClient, countsSummary } from './lib/counting-client';
import { machine, report, type Figure } from './lib/report';
import { startScaleService } from './lib/service';

const LABELS = 10_000;
const BURST = 1000;
const PER_SECONDS = 5;
const RATE_PER_S = BURST / PER_SECONDS;
const TARGET_SHARE = 0.8;
const TARGET_REFUSED_PERCENT = 1;
const TARGET_LOOP_P99_MS = 20;

type Dialect = 'seed' | 'field';

interface Run {
  dialect: Dialect;
  ms: number;
  counts: ReturnType<typeof countsSummary>;
  share: number;
  refusedPercent: number;
  loopP99Ms: number;
  pacePerSecond: number | null;
  result: SyncResult;
}

async function syncAgainst(dialect: Dialect, dir: string): Promise<Run> {
  const service = await startScaleService(join(dir, `service-${dialect}`), LABELS, {
    rateLimit: `${BURST}/${PER_SECONDS}`,
    dialect,
  });
  try {
    const cache = await openCache({ file: join(dir, `${dialect}.sqlite`), thread: 'worker' });
    const client = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
    const { api, counts } = countingClient(client);
    const engine = createSyncEngine({ cache, api, organizationId: service.organizationId });
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const started = performance.now();
    const result = await engine.run();
    const ms = performance.now() - started;
    loop.disable();
    const stats = await cache.read.stats();
    await client.close();
    await cache.close();
    if (result.outcome !== 'complete' || stats.labels !== LABELS || stats.notes < LABELS)
      throw new Error(`the ${dialect} sync did not complete: ${JSON.stringify({ result, stats })}`);
    const allowed = BURST + (ms / 1000) * RATE_PER_S;
    return {
      dialect,
      ms,
      counts: countsSummary(counts),
      share: counts.answered / allowed,
      refusedPercent: (100 * counts.refused) / (counts.answered + counts.refused),
      loopP99Ms: loop.percentile(99) / 1e6,
      pacePerSecond: result.ratePacePerSecond,
      result,
    };
  } finally {
    service.stop();
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine({ rateLimit: `${BURST} requests per ${PER_SECONDS} s` });
  const dir = mkdtempSync(join(tmpdir(), 'earmark-sync-rate-bench-'));
  try {
    const field = await syncAgainst('field', dir);
    const seed = await syncAgainst('seed', dir);
    for (const run of [field, seed])
      process.stdout.write(
        `${run.dialect}: ${(run.ms / 1000).toFixed(1)} s, ${run.counts.answered} answered, ` +
          `${run.counts.refused} refused (429), paced at ${run.pacePerSecond?.toFixed(0) ?? '—'}/s\n`,
      );
    const figures: Figure[] = [
      {
        figure: 'requests answered, share of what the limit allows (field dialect)',
        unit: '× allowed',
        measured: field.share,
        target: TARGET_SHARE,
        baseline: seed.share,
        baselineIs: 'the same sync against the seed dialect',
        samples: field.counts.answered,
      },
      {
        figure: '429 answers, share of requests (field dialect)',
        unit: '%',
        measured: field.refusedPercent,
        target: TARGET_REFUSED_PERCENT,
        baseline: seed.refusedPercent,
        baselineIs: 'the same sync against the seed dialect',
        samples: field.counts.answered + field.counts.refused,
      },
      {
        figure: 'event-loop delay p99 during the sync (field dialect)',
        unit: 'ms',
        measured: field.loopP99Ms,
        target: TARGET_LOOP_P99_MS,
        baseline: seed.loopP99Ms,
        baselineIs: 'the same sync against the seed dialect',
        samples: 1,
      },
      {
        figure: 'time of the sync (field dialect)',
        unit: 'ms',
        measured: field.ms,
        target: null,
        baseline: seed.ms,
        baselineIs: 'the same sync against the seed dialect',
        samples: 1,
      },
    ];
    report('sync-rate-limit', startedAt, machineInfo, figures, {
      field: { ...field, result: undefined, syncResult: field.result },
      seed: { ...seed, result: undefined, syncResult: seed.result },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

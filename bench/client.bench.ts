// The API client's overhead (issue 9, "Benchmarks": raw undici for the client): the same GET
// requests to the same reference service, in the same run, through Earmark's client
// (src/main/service-client: retries, time-outs, cancellation, typed errors, tolerant reading of every field)
// and through undici.request directly (the body parsed as JSON, nothing else). Target: the client
// takes at most 1.2× raw undici's time.
//
//   npx tsx bench/client.bench.ts      (or `npm run bench -- client`)
//
// Two workloads, one request at a time (as a screen asks): every page of the label listing, 100
// labels a page (large bodies: reading dominates), and single labels by id (small bodies: the
// per-request cost dominates). Each round times raw undici twice around the client, in an order
// that rotates, so the gap between the two raw passes shows what noise alone gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool, request } from 'undici';
import { createApiClient, type ApiClient } from '../src/main/service-client/client';
import { TOTAL_COUNT_HEADER } from '../src/shared/api';
import { machine, median, report, type Figure } from './lib/report';
import { startScaleService, type ScaleService } from './lib/service';

const LABELS = 10_000;
const PAGE = 100;
const DETAILS = 1000;
const ROUNDS = 5;
const TARGET_RATIO = 1.2;
/** The client's default pool size: raw undici gets the same. */
const CONNECTIONS = 6;

type Pass = 'raw' | 'client' | 'raw again';
/** Each round's order; the client is never always first or always last. */
const ORDERS: Pass[][] = [
  ['raw', 'client', 'raw again'],
  ['client', 'raw again', 'raw'],
  ['raw again', 'raw', 'client'],
];

interface Workload {
  name: string;
  /** Runs the workload once through `client`, or raw when `client` is null; returns its items. */
  run(client: ApiClient | null): Promise<number>;
  /** How many items one run must give (a short run is a broken run, not a fast one). */
  expected: number;
}

function workloads(service: ScaleService, ids: string[], pool: Pool): Workload[] {
  const headers = { authorization: `Bearer ${service.apiKey}`, accept: 'application/json' };
  const raw = async (path: string) => {
    const response = await request(`${service.baseUrl}${path}`, { dispatcher: pool, headers });
    if (response.statusCode !== 200) throw new Error(`GET ${path}: HTTP ${response.statusCode}`);
    return { headers: response.headers, body: JSON.parse(await response.body.text()) as unknown };
  };
  const org = encodeURIComponent(service.organizationId);
  return [
    {
      name: `GET /labels, every page of ${PAGE} (${LABELS.toLocaleString('en')} labels)`,
      expected: LABELS,
      async run(client) {
        let count = 0;
        if (client) {
          for await (const page of client.labels.pages(service.organizationId, { limit: PAGE }))
            count += page.items.length;
          return count;
        }
        for (let total = Infinity; count < total;) {
          const page = await raw(`/organizations/${org}/labels?limit=${PAGE}&offset=${count}`);
          const items = page.body as unknown[];
          total = Number(page.headers[TOTAL_COUNT_HEADER.toLowerCase()]);
          if (items.length === 0) break;
          count += items.length;
        }
        return count;
      },
    },
    {
      name: `GET /labels/:id, ${DETAILS.toLocaleString('en')} labels one by one`,
      expected: DETAILS,
      async run(client) {
        for (const id of ids) {
          if (client) await client.labels.get(id);
          else await raw(`/labels/${encodeURIComponent(id)}`);
        }
        return ids.length;
      },
    },
  ];
}

async function timed(workload: Workload, client: ApiClient | null): Promise<number> {
  const started = performance.now();
  const items = await workload.run(client);
  const ms = performance.now() - started;
  if (items !== workload.expected)
    throw new Error(`${workload.name} gave ${items} items, not ${workload.expected}`);
  return ms;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine();
  const dir = mkdtempSync(join(tmpdir(), 'earmark-client-bench-'));
  const service = await startScaleService(join(dir, 'service'), LABELS);
  const client = createApiClient({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey,
    connections: CONNECTIONS,
  });
  const pool = new Pool(new URL(service.baseUrl).origin, { connections: CONNECTIONS });
  try {
    const { items } = await client.labels.list(service.organizationId, { limit: DETAILS });
    const ids = items.map((label) => label.id);
    const measured: Record<string, Record<Pass, number[]>> = {};
    for (const workload of workloads(service, ids, pool)) {
      const times: Record<Pass, number[]> = { raw: [], client: [], 'raw again': [] };
      // A round not counted: the service's and both clients' code compiled and hot.
      for (const pass of ORDERS[0]!) await timed(workload, pass === 'client' ? client : null);
      for (let round = 0; round < ROUNDS; round++) {
        for (const pass of ORDERS[round % ORDERS.length]!) {
          times[pass].push(await timed(workload, pass === 'client' ? client : null));
        }
      }
      measured[workload.name] = times;
    }

    const lines = Object.entries(measured).map(([name, t]) => {
      const show = (pass: Pass) => `${pass} ${median(t[pass])!.toFixed(0)} ms`;
      return `  ${name}: ${show('client')}; ${show('raw')}, ${show('raw again')} (medians)`;
    });
    process.stdout.write(
      `\nthe API client against undici.request, one request at a time, ${ROUNDS} rounds\n` +
        `${lines.join('\n')}\n`,
    );
    const figures: Figure[] = Object.entries(measured).map(([name, t]) => ({
      figure: `${name}: client ÷ raw undici, medians`,
      unit: '×',
      measured: median(t.client)! / median(t.raw)!,
      target: TARGET_RATIO,
      baseline: median(t['raw again'])! / median(t.raw)!,
      baselineIs:
        'a second raw undici pass in the same rounds ÷ the first: what noise alone gives ' +
        `(raw median ${median(t.raw)!.toFixed(0)} ms)`,
      samples: t.client.length,
    }));
    report('client', startedAt, machineInfo, figures, {
      labels: LABELS,
      pageSize: PAGE,
      details: DETAILS,
      connections: CONNECTIONS,
      timesMs: measured,
      note:
        'Sequential requests on keep-alive connections to the reference service in a child ' +
        'process (rate limit lifted). Raw undici: undici.request on a Pool of the same size, the ' +
        'body read as text and JSON.parse’d; the client also checks the status, reads every ' +
        'field tolerantly into typed objects, and arms a time-out and an AbortSignal per attempt.',
    });
  } finally {
    await client.close();
    await pool.close();
    service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

// Scale as a first-class figure (issue 31): the same measurements over a hospital's three years
// at 100,000 and at 1,000,000 records (`--seed scale:N`, src/service/demo/scale-seed.ts), in one
// run, each figure at both sizes and the ratio between them. Reads should grow at most
// logarithmically: the 1M figure within 1.5× of the 100k one. See bench/README.md for the method.
//
//   npx tsx bench/scale.bench.ts        (or: npm run bench -- scale)
//   EARMARK_SCALE_SIZES=2000,20000 npx tsx bench/scale.bench.ts     (other sizes, to try it out)
//   EARMARK_SCALE_KEEP=1 …      (each size's folder kept: the service, the caches, the shell's data)
//
// Heavy: about half an hour and some 10 GB of disk at the default sizes. Exit code 0 whether or
// not the targets are met (the table says); 1 only if the run failed.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';
import type { Browser, Page } from 'playwright-core';
import { createApiClient } from '../src/main/service-client/client';
import { cacheFileOf, openCache } from '../src/main/cache';
import { createSyncEngine, type SyncResult } from '../src/main/sync';
import { DEFAULT_RATE_LIMIT } from '../src/service/http/rate-limit';
import { DATABASE_FILE } from '../src/service/db/database';
import type { AccountSummary } from '../src/shared/ipc';
import {
  invokeOverShell,
  launchChromium,
  showDay,
  startShellProcess,
  type ShellProcess,
} from '../test/e2e/support';
import { addDays, localDate } from '../src/shared/timeline';
import { countingClient, countsSummary, type RequestCounts } from './lib/counting-client';
import { benchDir, ensureRendererBuilt, repoRoot } from './lib/paths';
import { firstPageAfter, measureScrolling, openList, type ListOpen } from './lib/recordings-list';
import { machine, median, quantile, report, type Figure, type Unit } from './lib/report';
import { keepEverything, waitForSync } from './lib/scale-cache';
import { timeMarks } from './lib/review-marks';
import { allTimes, timeLikes, timeSearches } from './lib/search';
import {
  appendWithheldDay,
  fetchEverything,
  processTree,
  seedScaleFolder,
  startScaleService,
  type ScaleService,
} from './lib/service';
import { measureDaySwitch, settle } from './lib/timeline-day';

const SIZES = (process.env.EARMARK_SCALE_SIZES ?? '100000,1000000').split(',').map(Number);
const DAY_MS = 24 * 60 * 60 * 1000;
const VIEWPORT = { width: 1280, height: 800 };
const TARGETS = {
  recordsPerS: 2000,
  loopP99Ms: 20,
  weekUsableS: 5,
  weekSearchableS: 60,
  incrementalS: 2,
  searchP95Ms: 30,
  /** A Review mark answers at once. */
  markMs: 100,
  firstPageMs: 200,
  frameMs: 16.7,
  cachedDayMs: 100,
  /** A read at 1M within this many times its figure at 100k. */
  growth: 1.5,
  /** The pace a sync should keep under the rate limit, as a share of it. */
  paceShare: 0.95,
};
/** The rate-limited sync runs until the newest week is searchable and this long past the burst… */
const STEADY_MS = 60_000;
/** …or this long at most. */
const LIMITED_BUDGET_MS = 6 * 60_000;
const SEARCH_ROUNDS = 10;
const LIKE_ROUNDS = 3;
const LIST_OPENS = 5;
/** Times Review's newest item is marked reviewed and back (two samples each). */
const MARK_ROUNDS = 5;
const DAY_SWITCHES = 5;
/** Times each filter and order is applied and timed. */
const FILTER_ROUNDS = 3;
/** Searches over the hospital's words: common and rare words, names, prefixes short and long, a phrase. */
const QUERIES = [
  'vomiting',
  'heart',
  'blood',
  'temperature',
  'squirrel',
  'decorators',
  'cruciate',
  'Maple',
  'Okafor',
  'vacc',
  'diarr',
  // Words being typed, two and three letters in: the prefixes of the most words.
  'bl',
  'vom',
  'blood results',
  'eating drinking running',
  '"heart and chest"',
  'limping swelling',
  'zyzzyva',
];

// The page's global object, only ever used inside functions Playwright runs in the page.
declare const window: unknown;

// The main process's memory needs a full collection first: --expose-gc, set from here.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

type Memory = { rssMB: number; heapMB: number };

function memory(): Memory {
  collectGarbage();
  const usage = process.memoryUsage();
  return { rssMB: usage.rss / 1e6, heapMB: usage.heapUsed / 1e6 };
}

/** Epoch milliseconds with sub-millisecond precision, the same clock in every thread. */
const clock = () => performance.timeOrigin + performance.now();

const labelsUrl = (service: ScaleService, query: string) =>
  `${service.baseUrl}/organizations/${service.organizationId}/labels?${query}`;

/** How many of the service's labels start at or after `sinceMs` (X-Total-Count). */
async function labelsSince(service: ScaleService, sinceMs: number): Promise<number> {
  const response = await fetch(
    labelsUrl(service, `limit=1&fromTime=${new Date(sinceMs).toISOString()}`),
    { headers: { authorization: `Bearer ${service.apiKey}` } },
  );
  if (!response.ok) throw new Error(`counting labels: HTTP ${response.status}`);
  return Number(response.headers.get('x-total-count'));
}

interface SyncRun {
  ms: number;
  result: SyncResult;
  counts: RequestCounts;
  loopP99Ms: number;
  loopMaxMs: number;
  /** From run() to the newest week's rows all stored, and all with their notes; null: not seen. */
  weekUsableMs: number | null;
  weekSearchableMs: number | null;
  weekRecords: number;
  cpuMs: number;
  serviceCpuMs: number | null;
  /** This process once the sync is done, its cache still open (as the app's main process). */
  memoryAfter: Memory;
}

/**
 * One sync of the app's engine (its defaults, the cache in its worker threads, as the main
 * process runs it) into `file`, requests counted, the event loop's delay sampled, and a watcher
 * thread noting when the newest week is usable and searchable. `stopWhen` may end it early.
 */
async function syncOnce(
  service: ScaleService,
  file: string,
  stopWhen?: (run: { elapsedMs: number; counts: RequestCounts; searchable: boolean }) => boolean,
): Promise<SyncRun> {
  const sinceMs = Date.now() - 7 * DAY_MS;
  const weekRecords = await labelsSince(service, sinceMs);
  const cache = await openCache({ file });
  const client = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  const { api, counts } = countingClient(client);
  const engine = createSyncEngine({ cache, api, organizationId: service.organizationId });
  const watcher = new Worker(new URL('./lib/cache-watch.js', import.meta.url), {
    workerData: { file, sinceMs, expected: weekRecords, intervalMs: 100 },
  });
  const stop = new AbortController();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  let usableAt: number | null = null;
  let searchableAt: number | null = null;
  watcher.on('message', (message: { usableAt?: number; searchableAt?: number }) => {
    usableAt ??= message.usableAt ?? null;
    searchableAt ??= message.searchableAt ?? null;
  });
  const serviceBefore = service.cpuMs();
  const cpuBefore = process.cpuUsage();
  const started = clock();
  const check = stopWhen
    ? setInterval(() => {
        const elapsedMs = clock() - started;
        if (stopWhen({ elapsedMs, counts, searchable: searchableAt !== null })) stop.abort();
      }, 250)
    : undefined;
  loop.enable();
  const result = await engine.run({ signal: stop.signal });
  const ms = clock() - started;
  loop.disable();
  clearInterval(check);
  const cpu = process.cpuUsage(cpuBefore);
  const serviceAfter = service.cpuMs();
  const memoryAfter = memory();
  // The watcher's last look, had the sync ended between two of its reads.
  await sleep(300);
  watcher.postMessage('stop');
  await watcher.terminate();
  await client.close();
  await cache.close();
  if (result.outcome !== 'complete' && !(stopWhen && result.outcome === 'cancelled'))
    throw new Error(`the sync did not complete: ${JSON.stringify(result)}`);
  const since = (at: number | null) => (at === null ? null : Math.max(0, at - started));
  return {
    ms,
    result,
    counts,
    loopP99Ms: loop.percentile(99) / 1e6,
    loopMaxMs: loop.max / 1e6,
    weekUsableMs: since(usableAt),
    weekSearchableMs: since(searchableAt),
    weekRecords,
    cpuMs: (cpu.user + cpu.system) / 1000,
    serviceCpuMs:
      serviceBefore === null || serviceAfter === null ? null : serviceAfter - serviceBefore,
    memoryAfter,
  };
}

const fileSize = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
/** A SQLite database's bytes on disk: the file, its WAL and shared memory. */
const databaseBytes = (file: string) =>
  fileSize(file) + fileSize(`${file}-wal`) + fileSize(`${file}-shm`);

/** Resident memory of Chromium's renderer processes and the page's JS heap after a full GC. */
async function rendererMemory(browser: Browser, page: Page) {
  const session = await page.context().newCDPSession(page);
  await session.send('HeapProfiler.collectGarbage');
  const heap = (await session.send('Runtime.getHeapUsage')) as { usedSize: number };
  await session.detach();
  const browserSession = await browser.newBrowserCDPSession();
  const info = (await browserSession.send('SystemInfo.getProcessInfo')) as {
    processInfo: { type: string; id: number }[];
  };
  await browserSession.detach();
  const rss = info.processInfo
    .filter((p) => p.type === 'renderer')
    .map((p) => processTree(p.id)?.rssMB ?? 0)
    .reduce((sum, mb) => sum + mb, 0);
  return { rssMB: rss, heapMB: heap.usedSize / 1e6 };
}

/** The Recordings list's figures on the synced cache: open, scroll, filter, sort. */
async function measureList(page: Page, origin: string, patient: string) {
  const opens: ListOpen[] = [];
  for (let i = 0; i < 1 + LIST_OPENS; i++) {
    const open = await openList(page, origin);
    if (i > 0) opens.push(open);
  }
  const scrolling = await measureScrolling(page);

  // Type and patient first (not timed), then the From date: the first page of all three.
  await page.locator('summary[aria-label^="Type"]').click();
  await page.getByTitle("The service's record type: HubMic").click();
  await page.locator('summary[aria-label^="Type"]').click();
  await page.getByPlaceholder('Any patient').fill(patient);
  await sleep(2000); // the typing pause, the pages of the patient's filter
  const from = localDate(Date.now() - 365 * DAY_MS);
  const fromValue = `${from.year}-${String(from.month).padStart(2, '0')}-${String(from.day).padStart(2, '0')}`;
  const setFromDate = (value: string) =>
    firstPageAfter(
      page,
      (v) =>
        (
          window as unknown as { __earmarkScaleBench: { setFromDate(v: string): number } }
        ).__earmarkScaleBench.setFromDate(v),
      value,
    );
  const filtered: number[] = [];
  let filteredRows = 0;
  for (let i = 0; i < FILTER_ROUNDS; i++) {
    filtered.push(await setFromDate(fromValue));
    filteredRows = await page.locator('[role="grid"] [role="row"][aria-rowindex]').count();
    await setFromDate(''); // back to type and patient only (not counted)
    await sleep(500);
  }
  await page.getByRole('button', { name: 'Clear filters' }).first().click();
  // The list again (an empty filtered list shows no column headers).
  await page.locator('[role="columnheader"] button.sort').first().waitFor();
  await sleep(1000);

  const sortBy = (name: string) =>
    firstPageAfter(
      page,
      (header) =>
        (
          window as unknown as { __earmarkScaleBench: { clickSort(h: string): number } }
        ).__earmarkScaleBench.clickSort(header),
      name,
    );
  const byDuration: number[] = [];
  const byStart: number[] = [];
  for (let i = 0; i < FILTER_ROUNDS; i++) {
    byDuration.push(await sortBy('Duration'));
    await sleep(500);
    byStart.push(await sortBy('Start'));
    await sleep(500);
  }
  return { opens, scrolling, filtered, filteredRows, byDuration, byStart };
}

/**
 * A screen opened by its sidebar link, clicked from Settings on a new document, 1 + LIST_OPENS
 * times (the first a warm-up): Conversations to its first row painted, Review to its own mark
 * of its queue painted (bench/lib/scale-page.js). In ms.
 */
async function measureSidebarOpen(
  page: Page,
  origin: string,
  route: 'conversations' | 'review',
  open: 'openConversations' | 'openReview',
) {
  const times: number[] = [];
  for (let i = 0; i < 1 + LIST_OPENS; i++) {
    await page.goto('about:blank');
    await page.goto(`${origin}/#settings`);
    await page.locator(`nav a[href="#${route}"]`).waitFor();
    await sleep(500);
    const ms = await page.evaluate(
      ([name, limitMs]) =>
        (
          window as unknown as {
            __earmarkScaleBench: Record<string, (l: number) => Promise<number>>;
          }
        ).__earmarkScaleBench[name]!(limitMs),
      [open, 120_000] as const,
    );
    if (i > 0) times.push(ms);
  }
  return times;
}

/** The hub timeline on a consult room a month back: day switches, uncached and cached. */
async function measureTimeline(page: Page, origin: string) {
  await page.goto('about:blank');
  await page.goto(`${origin}/#timeline`);
  // The devices come from the service: pick one once the list holds it.
  const devices = page.getByLabel('Device', { exact: true });
  await devices.locator('option', { hasText: 'Consult Room 1' }).waitFor({ state: 'attached' });
  await devices.selectOption({ label: 'Consult Room 1' });
  await showDay(page, addDays(localDate(Date.now()), -30));
  await settle(page);
  return measureDaySwitch(page, DAY_SWITCHES);
}

const loadNowText = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Everything measured at one size. */
async function measureSize(size: number, dir: string, withLike: boolean) {
  const load = { before: loadNowText(), after: '' };
  const serviceDir = join(dir, 'service');
  const shellDir = join(dir, 'shell');
  process.stdout.write(`\n— ${size.toLocaleString('en')} records: seeding…\n`);
  const seedS = await seedScaleFolder(serviceDir, size, 1);
  const serviceBytes = databaseBytes(join(serviceDir, DATABASE_FILE));

  // Under the service's default rate limit, in a throw-away cache: the newest week, and the pace.
  process.stdout.write(`  seeded in ${seedS.toFixed(0)} s; a first sync under the rate limit…\n`);
  const burst = DEFAULT_RATE_LIMIT.requests;
  const ratePerS = DEFAULT_RATE_LIMIT.requests / DEFAULT_RATE_LIMIT.perSeconds;
  const limitedService = await startScaleService(serviceDir, size, {
    rateLimit: `${DEFAULT_RATE_LIMIT.requests}/${DEFAULT_RATE_LIMIT.perSeconds}`,
  });
  let limited: SyncRun;
  try {
    limited = await syncOnce(limitedService, join(dir, 'limited.sqlite'), (run) => {
      if (run.elapsedMs > LIMITED_BUDGET_MS) return true;
      const afterBurst = run.counts.answeredAt[burst - 1];
      return (
        run.searchable && afterBurst !== undefined && performance.now() - afterBurst > STEADY_MS
      );
    });
  } finally {
    limitedService.stop();
  }

  let shell: ShellProcess | undefined;
  let browser: Browser | undefined;
  const service = await startScaleService(serviceDir, size);
  try {
    // The synced cache becomes an account's of the browser shell for the screens, once the syncs
    // and searches are done: a shell holding the account meanwhile would sync it too, every
    // five minutes, into the same file.
    const cacheFile = join(dir, 'synced.sqlite');
    process.stdout.write('  the first sync, rate limit lifted…\n');
    const idle = monitorEventLoopDelay({ resolution: 1 });
    idle.enable();
    await sleep(2000);
    idle.disable();
    const mainBefore = memory();
    const first = await syncOnce(service, cacheFile);
    const fetchOnlyMs = withLike ? await fetchEverything(service) : null;

    process.stdout.write('  a day’s new records…\n');
    const appended = await appendWithheldDay(serviceDir);
    const incremental = { ...(await syncOnce(service, cacheFile)), added: appended.records };
    const nothingNew = await syncOnce(service, cacheFile);
    const cacheBytes = databaseBytes(cacheFile);

    process.stdout.write('  search…\n');
    // Opened as at each launch (the header and the schema checked), beside the whole check
    // every open made before it moved to a thread of its own, weekly (src/main/cache/check.ts).
    const opening = performance.now();
    const cache = await openCache({ file: cacheFile });
    const cacheOpenMs = performance.now() - opening;
    const checking = performance.now();
    const wholeCheck = await cache.checkWhole();
    if (wholeCheck.state !== 'sound')
      throw new Error(`the synced cache: ${JSON.stringify(wholeCheck)}`);
    const wholeCheckMs = performance.now() - checking;
    const searched = await timeSearches(cache, QUERIES, SEARCH_ROUNDS);
    await cache.close();
    const like = withLike ? allTimes(timeLikes(cacheFile, QUERIES, LIKE_ROUNDS)) : null;

    process.stdout.write('  the screens…\n');
    shell = await startShellProcess(['--data', shellDir]);
    const shellBefore = processTree(shell.child.pid!)?.rssMB ?? null;
    const account = await invokeOverShell<AccountSummary>(shell.url, 'accounts.add', {
      baseUrl: service.baseUrl,
      apiKey: service.apiKey,
      sessionOnly: true,
    });
    // Nothing has opened the account's cache yet (its first screen would): put the synced one
    // there (closed, so its WAL is checkpointed into it).
    const accountCache = cacheFileOf(shellDir, account.id);
    mkdirSync(dirname(accountCache), { recursive: true });
    for (const suffix of ['', '-wal', '-shm'])
      if (existsSync(`${cacheFile}${suffix}`))
        renameSync(`${cacheFile}${suffix}`, `${accountCache}${suffix}`);
    await keepEverything(shell);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT });
    const page = await context.newPage();
    for (const script of ['timeline-page.js', 'list-page.js', 'scale-page.js'])
      await page.addInitScript({ path: join(benchDir, 'lib', script) });
    await page.goto(shell.url); // the page keeps the address's token
    const origin = new URL(shell.url).origin;
    await page.goto(`${origin}/#settings`);
    await page.getByRole('link', { name: 'Recordings' }).waitFor();
    const rendererBefore = await rendererMemory(browser, page);
    // The account's first screen: the cache opens (checked), the shell's own sync runs.
    const firstVisit = await openList(page, origin, 30 * 60_000);
    await waitForSync(shell, 30 * 60_000);
    // A surname of a patient the clinic sees (the newest consult's).
    const newest = (await (
      await fetch(labelsUrl(service, 'limit=1&types=ClinicConversation'), {
        headers: { authorization: `Bearer ${service.apiKey}` },
      })
    ).json()) as { patient: { name: string } | null }[];
    const patient = newest[0]?.patient?.name.split(' ').at(-1);
    const list = await measureList(page, origin, patient ?? 'Patel');
    const conversations = await measureSidebarOpen(
      page,
      origin,
      'conversations',
      'openConversations',
    );
    const review = await measureSidebarOpen(page, origin, 'review', 'openReview');
    const marking = await timeMarks(shell.url, MARK_ROUNDS);
    const timeline = await measureTimeline(page, origin);
    const rendererAfter = await rendererMemory(browser, page);
    const shellAfter = processTree(shell.child.pid!)?.rssMB ?? null;

    // Time until the whole history is searchable under the limit, from the rates measured: the
    // rate-limited run's elapsed time, then the requests today's sync still had to make (as many
    // as the unlimited first sync made) at the pace it kept after the burst.
    const answeredAt = limited.counts.answeredAt;
    const afterBurst = answeredAt.length - burst;
    const steadyPerS =
      afterBurst > 100
        ? (afterBurst - 1) / ((answeredAt.at(-1)! - answeredAt[burst]!) / 1000)
        : null;
    const remaining = Math.max(0, first.counts.answered - limited.counts.answered);
    const wholeHistoryS = limited.ms / 1000 + remaining / (steadyPerS ?? ratePerS);
    // What the sync truly needs: the account, a listing page per 1,000 records, one detail per
    // record (no list row carries notes), the conversation pages.
    const needed =
      2 + Math.ceil(size / 1000) + size + Math.ceil((first.result.conversations.listed || 1) / 100);
    const floor = { requests: needed, seconds: Math.max(0, needed - burst) / ratePerS };

    load.after = loadNowText();
    return {
      size,
      seedS,
      serviceBytes,
      limited,
      first,
      fetchOnlyMs,
      idleLoopP99Ms: idle.percentile(99) / 1e6,
      incremental,
      nothingNew,
      cacheBytes,
      cacheOpenMs,
      wholeCheckMs,
      mainBefore,
      search: allTimes(searched),
      searchFound: searched.found,
      like,
      firstVisitMs: firstVisit.first,
      list,
      conversations,
      review,
      marking,
      timeline,
      renderer: { before: rendererBefore, after: rendererAfter },
      shell: { before: shellBefore, after: shellAfter },
      floor,
      wholeHistoryS,
      steadyPerS,
      load,
    };
  } finally {
    await browser?.close();
    await shell?.stop();
    service.stop();
  }
}

type SizeResult = Awaited<ReturnType<typeof measureSize>>;

interface Spec {
  figure: string;
  unit: Unit;
  /** The target at this size (null: information). */
  target: number | null | ((r: SizeResult) => number | null);
  /** A read: its 1M figure should stay within TARGETS.growth × its 100k one. */
  read: boolean;
  value: (r: SizeResult) => number | null;
  /** The baseline at the first size (at the others, the figure at the first size). */
  baseline: (r: SizeResult) => number | null;
  baselineIs: string;
  samples: (r: SizeResult) => number;
  limit?: (r: SizeResult) => { measured: number; is: string } | undefined;
}

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);
const hours = (s: number) => s / 3600;
const sizeName = (size: number) =>
  size >= 1_000_000 && size % 1_000_000 === 0
    ? `${size / 1_000_000}M`
    : size >= 1000 && size % 1000 === 0
      ? `${size / 1000}k`
      : String(size);

const SPECS: Spec[] = [
  {
    figure: 'scale seed built',
    unit: 's',
    target: null,
    read: false,
    value: (r) => r.seedS,
    baseline: () => null,
    baselineIs: 'none (nothing else builds it)',
    samples: () => 1,
  },
  {
    figure: 'first sync of the whole history, rate limit lifted',
    unit: 'labels/s',
    target: TARGETS.recordsPerS,
    read: false,
    value: (r) => r.size / (r.first.ms / 1000),
    baseline: (r) => (r.fetchOnlyMs === null ? null : r.size / (r.fetchOnlyMs / 1000)),
    baselineIs: 'the same requests with nothing stored (the service’s ceiling in this run)',
    samples: () => 1,
  },
  {
    figure: 'event-loop delay p99 during the first sync',
    unit: 'ms',
    target: TARGETS.loopP99Ms,
    read: false,
    value: (r) => r.first.loopP99Ms,
    baseline: (r) => r.idleLoopP99Ms,
    baselineIs: 'the same process idle for 2 s just before',
    samples: () => 1,
  },
  {
    figure: 'newest week usable (every row listed), default rate limit',
    unit: 's',
    target: TARGETS.weekUsableS,
    read: false,
    value: (r) => seconds(r.limited.weekUsableMs),
    baseline: (r) => seconds(r.first.weekUsableMs),
    baselineIs: 'the same in the first sync with the rate limit lifted',
    samples: () => 1,
  },
  {
    figure: 'newest week searchable (every record’s notes), default rate limit',
    unit: 's',
    target: TARGETS.weekSearchableS,
    read: false,
    value: (r) => seconds(r.limited.weekSearchableMs),
    baseline: (r) => seconds(r.first.weekSearchableMs),
    baselineIs: 'the same in the first sync with the rate limit lifted',
    samples: () => 1,
  },
  {
    figure: 'whole history searchable, default rate limit (estimated from measured rates)',
    unit: 'h',
    // Requests that fit in the burst leave no floor to pace against.
    target: (r) =>
      r.floor.seconds > 0
        ? Number(hours(r.floor.seconds / TARGETS.paceShare).toPrecision(3))
        : null,
    read: false,
    value: (r) => hours(r.wholeHistoryS),
    baseline: (r) => hours(r.floor.seconds),
    baselineIs:
      'the floor the limit allows for the requests the sync needs (a listing page per 1,000 records, a detail per record, the conversation pages; less the burst); target: that floor at 0.95 of the limit',
    samples: () => 1,
    limit: (r) => ({
      measured: hours(r.floor.seconds),
      is: `${r.floor.requests.toLocaleString('en')} requests at the limit’s pace`,
    }),
  },
  {
    figure: 'a day’s new records synced incrementally',
    unit: 's',
    target: TARGETS.incrementalS,
    read: false,
    value: (r) => r.incremental.ms / 1000,
    baseline: (r) => r.nothingNew.ms / 1000,
    baselineIs: 'the same sync right after, with nothing new',
    samples: () => 1,
  },
  {
    figure: 'cache on disk per record',
    unit: 'B',
    target: null,
    read: false,
    value: (r) => r.cacheBytes / (r.size + r.incremental.added * 0),
    baseline: (r) => r.serviceBytes / r.size,
    baselineIs: 'the reference service’s database per record (notes, audio recipes, conversations)',
    samples: () => 1,
  },
  {
    figure: 'cache on disk',
    unit: 'MB',
    target: null,
    read: false,
    value: (r) => r.cacheBytes / 1e6,
    baseline: (r) => r.serviceBytes / 1e6,
    baselineIs: 'the reference service’s database',
    samples: () => 1,
  },
  {
    figure: 'the synced cache opened as at launch, once',
    unit: 'ms',
    target: null,
    read: true,
    value: (r) => r.cacheOpenMs,
    baseline: (r) => r.wholeCheckMs + r.cacheOpenMs,
    baselineIs:
      'the same open with the whole check it made before (Cache.checkWhole, now weekly on a thread of its own), this run',
    samples: () => 1,
  },
  {
    figure: 'the whole check of the synced cache, on its own thread, once',
    unit: 'ms',
    target: null,
    read: false,
    value: (r) => r.wholeCheckMs,
    baseline: () => null,
    baselineIs: 'none (information: weekly, in the background)',
    samples: () => 1,
  },
  {
    figure: `search over every transcript and note, p95 (${QUERIES.length} queries × ${SEARCH_ROUNDS})`,
    unit: 'ms',
    target: TARGETS.searchP95Ms,
    read: true,
    value: (r) => quantile(r.search, 0.95),
    baseline: (r) => (r.like ? quantile(r.like, 0.95) : null),
    baselineIs: `LIKE '%word%' per word on the same notes table, every match, p95 of ${LIKE_ROUNDS} rounds`,
    samples: (r) => r.search.length,
  },
  {
    figure: 'Recordings: first page shown, median',
    unit: 'ms',
    target: TARGETS.firstPageMs,
    read: true,
    value: (r) => median(r.list.opens.map((o) => o.first)),
    baseline: (r) => median(r.list.opens.map((o) => o.service)),
    baselineIs: 'the same opens painted from the service’s answer (the service-only first page)',
    samples: (r) => r.list.opens.length,
  },
  {
    figure: 'Recordings: first page shown, p95',
    unit: 'ms',
    target: TARGETS.firstPageMs,
    read: true,
    value: (r) =>
      quantile(
        r.list.opens.map((o) => o.first),
        0.95,
      ),
    baseline: (r) =>
      quantile(
        r.list.opens.map((o) => o.service),
        0.95,
      ),
    baselineIs: 'the service-only first page, p95',
    samples: (r) => r.list.opens.length,
  },
  {
    figure: 'Recordings: scroll 2 s, p95 frame time',
    unit: 'ms',
    target: TARGETS.frameMs,
    read: true,
    value: (r) => quantile(r.list.scrolling.app.frameTimes, 0.95),
    baseline: (r) => quantile(r.list.scrolling.idle.frameTimes, 0.95),
    baselineIs: '2 s of frames with no input just before (the machine’s floor), p95',
    samples: (r) => r.list.scrolling.app.frameTimes.length,
  },
  {
    figure: 'Recordings: filtered by type, patient and dates, first page shown, median',
    unit: 'ms',
    target: TARGETS.firstPageMs,
    read: true,
    value: (r) => median(r.list.filtered),
    baseline: (r) => median(r.list.opens.map((o) => o.first)),
    baselineIs: 'the list’s unfiltered first page, median',
    samples: (r) => r.list.filtered.length,
  },
  {
    figure: 'Recordings: sorted by duration, first page shown, median',
    unit: 'ms',
    target: TARGETS.firstPageMs,
    read: true,
    value: (r) => median(r.list.byDuration),
    baseline: (r) => median(r.list.byStart),
    baselineIs: 'sorted back by start time, first page shown, median',
    samples: (r) => r.list.byDuration.length,
  },
  {
    figure: 'Conversations: first page shown, median',
    unit: 'ms',
    target: null,
    read: true,
    value: (r) => median(r.conversations),
    baseline: (r) => median(r.list.opens.map((o) => o.first)),
    baselineIs: 'the Recordings list’s first page, median',
    samples: (r) => r.conversations.length,
  },
  {
    figure: 'Review: first items painted, median',
    unit: 'ms',
    target: TARGETS.firstPageMs,
    read: true,
    value: (r) => median(r.review),
    baseline: (r) => median(r.list.opens.map((o) => o.first)),
    baselineIs: 'the Recordings list’s first page, median',
    samples: (r) => r.review.length,
  },
  {
    figure: 'Review: an item marked reviewed or back, median',
    unit: 'ms',
    target: TARGETS.markMs,
    // A write: the queue's index is passed over once, as each of its pages is.
    read: false,
    value: (r) => median(r.marking.marks),
    baseline: (r) => median(r.marking.wholeReadings),
    baselineIs: 'the queue read whole (review.list with the reviewed ones), median',
    samples: (r) => r.marking.marks.length,
  },
  {
    figure: 'hub timeline: a day opened from the service, median',
    unit: 'ms',
    target: null,
    read: true,
    value: (r) => median(r.timeline.uncached.map((s) => s.toPainted)),
    baseline: (r) => median(r.timeline.cached.map((s) => s.toPainted)),
    baselineIs: 'a day already fetched, reopened (the cache’s), median',
    samples: (r) => r.timeline.uncached.length,
  },
  {
    figure: 'hub timeline: a fetched day reopened, median',
    unit: 'ms',
    target: TARGETS.cachedDayMs,
    read: true,
    value: (r) => median(r.timeline.cached.map((s) => s.toPainted)),
    baseline: (r) => median(r.timeline.uncached.map((s) => s.toPainted)),
    baselineIs: 'a day opened from the service, median',
    samples: (r) => r.timeline.cached.length,
  },
  {
    figure: 'main process after the sync: resident memory',
    unit: 'MB',
    target: null,
    read: false,
    value: (r) => r.first.memoryAfter.rssMB,
    baseline: (r) => r.mainBefore.rssMB,
    baselineIs: 'the same process before the sync',
    samples: () => 1,
  },
  {
    figure: 'main process after the sync: JS heap (after a full GC)',
    unit: 'MB',
    target: null,
    read: false,
    value: (r) => r.first.memoryAfter.heapMB,
    baseline: (r) => r.mainBefore.heapMB,
    baselineIs: 'the same process before the sync',
    samples: () => 1,
  },
  {
    figure: 'the shell’s main process after the screens: resident memory',
    unit: 'MB',
    target: null,
    read: false,
    value: (r) => r.shell.after,
    baseline: (r) => r.shell.before,
    baselineIs: 'the same process before its account’s cache was opened',
    samples: () => 1,
  },
  {
    figure: 'renderer after the screens: resident memory',
    unit: 'MB',
    target: null,
    read: false,
    value: (r) => r.renderer.after.rssMB,
    baseline: (r) => r.renderer.before.rssMB,
    baselineIs: 'the same renderer on Settings before any list was opened',
    samples: () => 1,
  },
  {
    figure: 'renderer after the screens: JS heap (after a full GC)',
    unit: 'MB',
    target: null,
    read: false,
    value: (r) => r.renderer.after.heapMB,
    baseline: (r) => r.renderer.before.heapMB,
    baselineIs: 'the same renderer on Settings before any list was opened',
    samples: () => 1,
  },
];

/** Each spec at every size (at the first, its own baseline; at the others, the first size's figure), then the ratio. */
function figuresOf(results: SizeResult[]): Figure[] {
  const [base, ...others] = results;
  if (!base) return [];
  return SPECS.flatMap((spec) => {
    const targetAt = (r: SizeResult) =>
      typeof spec.target === 'function' ? spec.target(r) : spec.target;
    const rows: Figure[] = [
      {
        figure: `${spec.figure} — ${sizeName(base.size)}`,
        unit: spec.unit,
        measured: spec.value(base),
        target: targetAt(base),
        baseline: spec.baseline(base),
        baselineIs: spec.baselineIs,
        samples: spec.samples(base),
        ...(spec.limit?.(base) ? { limit: spec.limit(base) } : {}),
      },
    ];
    for (const r of others) {
      const measured = spec.value(r);
      const first = spec.value(base);
      rows.push({
        figure: `${spec.figure} — ${sizeName(r.size)}`,
        unit: spec.unit,
        measured,
        target: targetAt(r),
        baseline: first,
        baselineIs: `the same at ${sizeName(base.size)} records, this run`,
        samples: spec.samples(r),
        ...(spec.limit?.(r) ? { limit: spec.limit(r) } : {}),
      });
      rows.push({
        figure: `${spec.figure} — ${sizeName(r.size)} ÷ ${sizeName(base.size)}`,
        unit: '×',
        measured: measured === null || first === null || first === 0 ? null : measured / first,
        target: spec.read ? TARGETS.growth : null,
        baseline: r.size / base.size,
        baselineIs: `the records’ own growth (a cost linear in them reads ${r.size / base.size}×)`,
        samples: 1,
      });
    }
    return rows;
  });
}

/** What the JSON keeps of a size's results (request times and sync results summarized). */
function detailsOf(r: SizeResult) {
  const run = ({ counts, result, ...rest }: SyncRun) => ({
    ...rest,
    requests: countsSummary(counts),
    labels: result.labels,
    conversations: result.conversations,
    outcome: result.outcome,
    rateLimitRefusals: result.rateLimitRefusals,
    ratePacePerSecond: result.ratePacePerSecond,
  });
  return {
    size: r.size,
    seedS: r.seedS,
    load: r.load,
    serviceBytes: r.serviceBytes,
    cacheBytes: r.cacheBytes,
    rateLimited: run(r.limited),
    steadyRequestsPerS: r.steadyPerS,
    wholeHistory: {
      estimatedS: r.wholeHistoryS,
      floor: r.floor,
      method:
        'the rate-limited run’s elapsed time, plus the requests today’s sync still had to make (as many as the unlimited first sync made, less those answered) at the pace it kept after the burst',
    },
    first: run(r.first),
    fetchOnlyMs: r.fetchOnlyMs,
    incremental: { ...run(r.incremental), added: r.incremental.added },
    nothingNew: run(r.nothingNew),
    search: { queries: QUERIES, found: r.searchFound, ms: r.search, likeMs: r.like },
    list: {
      firstVisitMs: r.firstVisitMs,
      opens: r.list.opens,
      filtered: r.list.filtered,
      filteredRows: r.list.filteredRows,
      byDuration: r.list.byDuration,
      byStart: r.list.byStart,
      scroll: {
        frameTimes: r.list.scrolling.app.frameTimes,
        idleFrameTimes: r.list.scrolling.idle.frameTimes,
        pageAnswers: r.list.scrolling.answers,
        scrolledTo: r.list.scrolling.scrolledTo,
      },
    },
    conversationsMs: r.conversations,
    reviewMs: r.review,
    reviewMarks: r.marking,
    timeline: r.timeline,
    memory: { mainBefore: r.mainBefore, renderer: r.renderer, shellRssMB: r.shell },
  };
}

async function main(): Promise<void> {
  process.chdir(repoRoot);
  ensureRendererBuilt();
  const startedAt = new Date();
  const machineInfo = machine({ sizes: SIZES.join(', '), uptimeAtStart: loadNowText() });
  const results: SizeResult[] = [];
  for (const [i, size] of SIZES.entries()) {
    const dir = mkdtempSync(join(tmpdir(), `earmark-bench-scale-${size}-`));
    try {
      results.push(await measureSize(size, dir, i === 0));
    } finally {
      // EARMARK_SCALE_KEEP=1 keeps each size's service, caches and shell data for a closer look.
      if (process.env.EARMARK_SCALE_KEEP === '1') process.stdout.write(`  kept: ${dir}\n`);
      else rmSync(dir, { recursive: true, force: true });
    }
  }
  report('scale', startedAt, machineInfo, figuresOf(results), {
    sizes: SIZES,
    targets: TARGETS,
    perSize: results.map(detailsOf),
    note: 'The main process is this benchmark’s: it runs the app’s sync engine and cache (worker threads) as the app’s main process does; the screens are the browser shell’s on the synced cache. The whole history under the rate limit is estimated, not waited for (hours at 1M): see wholeHistory.method.',
  });
}

main().catch((error: unknown) => {
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`scale bench failed: ${text}\n`);
  process.exit(1);
});

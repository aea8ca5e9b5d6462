// Plays at once on a clinic's link (issue 17, "Benchmark"; issue 31, "The first open of the day"):
// an uncached 90-minute recording opened in the app through the browser shell in Chromium, with
// the service behind a link shaped to a clinic's (50 Mbit/s, 40 ms round trip) and a slow one
// (10 Mbit/s, 80 ms). Each figure is beside curl fetching 512 KiB at the same offset over the same
// link in the same run (what a streaming player needs to start), target ≤ 2× that.
//
// The first open of the day, on the clinic's link: the app launched afresh (its shell and a new
// Chromium, an account added and synced by an earlier launch, its audio cache empty), nothing
// warmed up, Recordings shown and its first recording clicked at once:
// - cold: from that click to the audio playing (Play pressed as soon as it is there);
// - warm: the same for a second uncached recording, clicked next in the same app;
// - settled (information): in a launch of its own, the first recording clicked once the launch's
//   work is over (SETTLE_MS after it is listed): what the first open costs by itself, without
//   the launch's work beside it on the machine's cores.
//
// Then, in one app, per link:
// - from opening the recording to the audio playing, its time advancing (Play pressed as soon as
//   it is there);
// - from pressing Play to the audio playing;
// - from seeking to 60:00 (not downloaded yet) to playing again.
//
//   bash scripts/with-secret-service.sh npx tsx bench/streaming.bench.ts
//   (or `npm run bench -- streaming`: the launches keep the account's key in the keychain)
//   STREAMING_BENCH_LAUNCHES=n     the first opens measured over n launches (3)
//   STREAMING_BENCH_FIRST_OPENS=1  only the first opens (a small run, to compare a change)
//
// Exit code 0 whether or not the targets are met (the table says); 1 only if the run failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  firstSync,
  invokeOverShell,
  launchChromium,
  startShellProcess,
  type ShellProcess,
} from '../test/e2e/support';
import { curl } from './lib/curl';
import { CLINIC_LINK, SLOW_LINK, startLink, type LinkShape } from '../test/support/shaped-link';
import {
  byteAtSecond,
  startNinetyMinuteService,
  type NinetyMinuteService,
} from './lib/ninety-minutes';
import { benchDir, ensureRendererBuilt, repoRoot } from './lib/paths';
import { machine, median, report, type Figure } from './lib/report';

const VIEWPORT = { width: 1280, height: 800 };
const RUNS = 3;
const LINKS = process.env.STREAMING_BENCH_FIRST_OPENS === '1' ? [] : [CLINIC_LINK, SLOW_LINK];
const START_BYTES = 512 * 1024;
const SEEK_SECONDS = 60 * 60;
const TIMEOUT_MS = 60_000;
/** Launches of the app measured cold (each: one cold open, then one warm; then one settled). */
const LAUNCHES = Number(process.env.STREAMING_BENCH_LAUNCHES ?? 3);
/** Recordings each launch opens: cold, warm, settled. */
const OPENS_PER_LAUNCH = 3;
/**
 * How long after Recordings lists its first recording the settled open waits: the launch's work
 * (the browser's and the app's) was over within about a second of it on 2 cores.
 */
const SETTLE_MS = 3000;

interface PageBench {
  open(hash: string): number;
  clickRowWhenListed(index: number): Promise<{ clickedAt: number; listedAt: number; hash: string }>;
  whenListed(index: number): Promise<number>;
  pressPlayWhenShown(): Promise<number>;
  playingPast(seconds: number): Promise<number>;
  seek(seconds: number): number;
  pause(): void;
  state(): unknown;
}
// The page's global: only ever referred to inside functions that Playwright runs in the page.
declare const __earmarkStreamBench: PageBench;

interface Measured {
  openMs: number[];
  playMs: number[];
  seekMs: number[];
  curlStartMs: number[];
  curlSeekMs: number[];
}

/** A step run in the page; one that does not finish fails with what the player was doing. */
async function step<T>(
  page: Page,
  name: string,
  run: (arg: number) => T | Promise<T>,
  arg = 0,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      page.evaluate(run, arg),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    const state = await page.evaluate(() => __earmarkStreamBench.state()).catch(() => null);
    throw new Error(
      `${name} did not finish within ${TIMEOUT_MS / 1000} s (${error instanceof Error ? error.message : String(error)}); ` +
        `the player: ${JSON.stringify(state)}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Recordings' row `index` clicked as soon as it is listed, its recording played as soon as it
 * can be; answers the time from the click to playing, and when the row was listed (epoch ms).
 * `labelId` is the recording the row must open (uncached).
 */
async function clickAndPlay(
  page: Page,
  index: number,
  labelId: string,
): Promise<{ playMs: number; listedAt: number }> {
  const clicked = await step(
    page,
    'listing the recording',
    (i) => __earmarkStreamBench.clickRowWhenListed(i),
    index,
  );
  if (clicked.hash !== `#record/${labelId}`)
    throw new Error(`Row ${index} opened ${clicked.hash}, not the recording ${labelId}`);
  await step(page, 'pressing Play', () => __earmarkStreamBench.pressPlayWhenShown());
  const playingAt = await step(page, 'playing', () => __earmarkStreamBench.playingPast(0));
  await page.evaluate(() => __earmarkStreamBench.pause());
  await page.evaluate(() => __earmarkStreamBench.open('#recordings'));
  return { playMs: playingAt - clicked.clickedAt, listedAt: clicked.listedAt };
}

/** One uncached recording: opened, played as soon as it can be, then sought to 60:00. */
async function playOnce(page: Page, labelId: string) {
  const openedAt = await page.evaluate(
    (hash) => __earmarkStreamBench.open(hash),
    `#record/${labelId}`,
  );
  const pressedAt = await step(page, 'pressing Play', () =>
    __earmarkStreamBench.pressPlayWhenShown(),
  );
  const playingAt = await step(page, 'playing', () => __earmarkStreamBench.playingPast(0));
  const seekedAt = await page.evaluate((s) => __earmarkStreamBench.seek(s), SEEK_SECONDS);
  const againAt = await step(page, 'playing after the seek', () =>
    __earmarkStreamBench.playingPast(60 * 60),
  );
  await page.evaluate(() => __earmarkStreamBench.pause());
  await page.evaluate(() => __earmarkStreamBench.open('#recordings'));
  return {
    openMs: playingAt - openedAt,
    playMs: playingAt - pressedAt,
    seekMs: againAt - seekedAt,
  };
}

async function measure(
  page: Page,
  service: NinetyMinuteService,
  baseUrl: string,
  labels: string[],
): Promise<Measured> {
  const out: Measured = { openMs: [], playMs: [], seekMs: [], curlStartMs: [], curlSeekMs: [] };
  const url = `${baseUrl}/labels/${service.labelIds[0]}/audio`;
  const fetch512 = async (start: number) => {
    const fetched = await curl({
      url,
      apiKey: service.apiKey,
      range: { start, end: start + START_BYTES - 1 },
    });
    if (fetched.bytes !== START_BYTES) throw new Error(`curl got ${fetched.bytes} bytes`);
    return fetched.ms;
  };
  for (let run = 0; run < RUNS; run++) {
    out.curlStartMs.push(await fetch512(0));
    out.curlSeekMs.push(await fetch512(byteAtSecond(SEEK_SECONDS)));
    const played = await playOnce(page, labels.shift()!);
    out.openMs.push(played.openMs);
    out.playMs.push(played.playMs);
    out.seekMs.push(played.seekMs);
  }
  return out;
}

interface LaunchedApp {
  browser: Browser;
  shell: ShellProcess;
  page: Page;
  close(): Promise<void>;
}

/**
 * The app launched as a user starts it: the browser shell's process and a new Chromium showing
 * its page (on Recordings when an account is there), the streaming page script installed.
 */
async function launchApp(dataDir: string): Promise<LaunchedApp> {
  const shell = await startShellProcess(['--data', dataDir]);
  const browser = await launchChromium().catch(async (error: unknown) => {
    await shell.stop();
    throw error;
  });
  const close = async () => {
    await browser.close();
    await shell.stop();
  };
  try {
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.addInitScript({ path: join(benchDir, 'lib', 'streaming-page.js') });
    const page = await context.newPage();
    await page.goto(shell.url); // the page keeps the address's token
    await page.evaluate(() => __earmarkStreamBench.open('#recordings'));
    return { browser, shell, page, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The account added (its key in the keychain) and synced by a launch of its own, then closed. */
async function addAccount(dataDir: string, baseUrl: string, apiKey: string): Promise<void> {
  const shell = await startShellProcess(['--data', dataDir]);
  try {
    await invokeOverShell(shell.url, 'accounts.add', { baseUrl, apiKey });
    await invokeOverShell(shell.url, 'sync.run', {});
    await firstSync((channel, input) => invokeOverShell(shell.url, channel, input));
  } finally {
    await shell.stop();
  }
}

interface FirstOpens {
  /** From starting the app's process to Recordings listing its first recording. */
  listedMs: number[];
  coldMs: number[];
  warmMs: number[];
  /** The first recording clicked SETTLE_MS after it was listed, in a launch of its own. */
  settledMs: number[];
  curlStartMs: number[];
}

/**
 * The first open of the day, `LAUNCHES` times on the clinic's link: each launch opens Recordings'
 * first uncached recording by a click as soon as it is listed (cold), then the next (warm); a
 * launch of its own then opens the next once the launch has settled. The audio cache is emptied
 * after each launch: a recording left partly cached would go on filling at the next launch, on
 * the link the next figures are measured on.
 */
async function measureFirstOpens(
  service: NinetyMinuteService,
  baseUrl: string,
  dataDir: string,
  labels: string[],
): Promise<FirstOpens> {
  const out: FirstOpens = { listedMs: [], coldMs: [], warmMs: [], settledMs: [], curlStartMs: [] };
  for (let launch = 0; launch < LAUNCHES; launch++) {
    const fetched = await curl({
      url: `${baseUrl}/labels/${service.labelIds[0]}/audio`,
      apiKey: service.apiKey,
      range: { start: 0, end: START_BYTES - 1 },
    });
    if (fetched.bytes !== START_BYTES) throw new Error(`curl got ${fetched.bytes} bytes`);
    out.curlStartMs.push(fetched.ms);
    // The service lists the newest first: row i is labels[i].
    const row = OPENS_PER_LAUNCH * launch;
    const launchedAt = Date.now();
    await inLaunch(dataDir, async (page) => {
      const cold = await clickAndPlay(page, row, labels[row]!);
      out.listedMs.push(cold.listedAt - launchedAt);
      out.coldMs.push(cold.playMs);
      out.warmMs.push((await clickAndPlay(page, row + 1, labels[row + 1]!)).playMs);
    });
    await inLaunch(dataDir, async (page) => {
      await step(page, 'listing the recording', (i) => __earmarkStreamBench.whenListed(i), row + 2);
      await delay(SETTLE_MS);
      out.settledMs.push((await clickAndPlay(page, row + 2, labels[row + 2]!)).playMs);
    });
  }
  return out;
}

/** The app launched afresh, `use`d, closed; its audio cache emptied after. */
async function inLaunch(dataDir: string, use: (page: Page) => Promise<void>): Promise<void> {
  const app = await launchApp(dataDir);
  try {
    await use(app.page);
  } finally {
    await app.close();
  }
  rmSync(join(dataDir, 'audio'), { recursive: true, force: true });
}

async function main(): Promise<void> {
  process.chdir(repoRoot);
  ensureRendererBuilt();
  const startedAt = new Date();
  const machineInfo = machine({ viewport: `${VIEWPORT.width}×${VIEWPORT.height}` });
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-bench-streaming-'));
  const coldDataDir = mkdtempSync(join(tmpdir(), 'earmark-bench-streaming-cold-'));
  const service = await startNinetyMinuteService(
    OPENS_PER_LAUNCH * LAUNCHES + LINKS.length * RUNS + 1,
  );
  const link = await startLink(service.port, CLINIC_LINK);
  let browser: Browser | undefined;
  let shell: ShellProcess | undefined;
  try {
    const labels = [...service.labelIds];
    const clinicUrl = link.baseUrlOf(service.baseUrl);
    await addAccount(coldDataDir, clinicUrl, service.apiKey);
    const firstOpens = await measureFirstOpens(
      service,
      clinicUrl,
      coldDataDir,
      labels.splice(0, OPENS_PER_LAUNCH * LAUNCHES),
    );

    browser = await launchChromium();
    shell = await startShellProcess(['--data', dataDir]);
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.addInitScript({ path: join(benchDir, 'lib', 'streaming-page.js') });
    const page = await context.newPage();
    await page.goto(shell.url); // the page keeps the address's token
    await invokeOverShell(shell.url, 'accounts.add', {
      baseUrl: clinicUrl,
      apiKey: service.apiKey,
      // The keychain is not what is measured here: the key stays in the shell's memory.
      sessionOnly: true,
    });
    await page.goto(`${new URL(shell.url).origin}/#recordings`);
    await page.getByRole('heading', { name: 'Recordings' }).waitFor({ timeout: TIMEOUT_MS });
    // Warm-up, not counted: the page's code and the service's clips are loaded once.
    if (LINKS.length > 0) await playOnce(page, labels.shift()!);
    const results: [LinkShape, Measured][] = [];
    for (const shape of LINKS) {
      link.use(shape);
      results.push([shape, await measure(page, service, link.baseUrlOf(service.baseUrl), labels)]);
    }
    const figure = (
      shape: LinkShape,
      what: string,
      mine: number[],
      curled: number[],
      offset: string,
    ): Figure => ({
      figure: `${what}, ${shape.name}, median`,
      unit: 'ms',
      measured: median(mine),
      target: Math.round(2 * median(curled)!),
      baseline: median(curled),
      baselineIs: `curl fetching 512 KiB at ${offset} over the same link, same run (target 2× that)`,
      samples: mine.length,
    });
    const firstOpen = (what: string, mine: number[]) =>
      figure(CLINIC_LINK, what, mine, firstOpens.curlStartMs, 'the start');
    const figures: Figure[] = [
      {
        figure: 'launch → Recordings listing its first recording, median',
        unit: 'ms',
        measured: median(firstOpens.listedMs),
        target: null,
        baseline: null,
        baselineIs:
          'information: the app’s first screen, to compare across changes (what opens at launch must not delay it)',
        samples: firstOpens.listedMs.length,
      },
      firstOpen('cold: the first recording clicked after launch → playing', firstOpens.coldMs),
      firstOpen('warm: a second uncached recording clicked → playing', firstOpens.warmMs),
      {
        figure: `settled: the first recording clicked ${SETTLE_MS / 1000} s after it is listed → playing, ${CLINIC_LINK.name}, median`,
        unit: 'ms',
        measured: median(firstOpens.settledMs),
        target: null,
        baseline: median(firstOpens.coldMs),
        baselineIs:
          'information: the cold figure, same run (what the launch’s work beside a first click costs: cold − settled; what the first open costs by itself: settled − warm)',
        samples: firstOpens.settledMs.length,
      },
      ...results.flatMap(([shape, m]) => [
        figure(
          shape,
          'open an uncached 90-min recording → playing',
          m.openMs,
          m.curlStartMs,
          'the start',
        ),
        figure(shape, 'press Play → playing', m.playMs, m.curlStartMs, 'the start'),
        figure(
          shape,
          'seek to 60:00 (not downloaded) → playing again',
          m.seekMs,
          m.curlSeekMs,
          '60:00',
        ),
      ]),
    ];
    report('streaming', startedAt, machineInfo, figures, {
      links: LINKS,
      bytes: service.bytes,
      firstOpens: { link: CLINIC_LINK.name, launches: LAUNCHES, ...firstOpens },
      results: Object.fromEntries(results.map(([shape, m]) => [shape.name, m])),
      note:
        'Through the browser shell in Chromium: the app’s own IPC, media route and player. Play is ' +
        'pressed by an in-page script as soon as the button is there; “playing” is the media ' +
        'element playing with its time past the start (or past 60:00).',
    });
  } finally {
    await browser?.close();
    await shell?.stop();
    await link.close();
    service.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(coldDataDir, { recursive: true, force: true });
  }
}

await main();

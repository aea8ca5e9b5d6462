// Plays at once on a clinic's link (issue 17, "Benchmark"): an uncached 90-minute recording opened
// in the app through the browser shell in Chromium, with the service behind a link shaped to a
// clinic's (50 Mbit/s, 40 ms round trip) and a slow one (10 Mbit/s, 80 ms). Three figures per
// link, each beside curl fetching 512 KiB at the same offset over the same link in the same run
// (what a streaming player needs to start), target ≤ 2× that:
// - from opening the recording to the audio playing, its time advancing (Play pressed as soon as
//   it is there);
// - from pressing Play to the audio playing;
// - from seeking to 60:00 (not downloaded yet) to playing again.
//
//   npx tsx bench/streaming.bench.ts      (or `npm run bench -- streaming`)
//
// Exit code 0 whether or not the targets are met (the table says); 1 only if the run failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
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
const LINKS = [CLINIC_LINK, SLOW_LINK];
const START_BYTES = 512 * 1024;
const SEEK_SECONDS = 60 * 60;
const TIMEOUT_MS = 60_000;

interface PageBench {
  open(hash: string): number;
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

/** One uncached recording: opened, played as soon as it can be, then sought to 60:00. */
async function playOnce(page: Page, labelId: string) {
  /** A step run in the page; one that does not finish fails with what the player was doing. */
  const step = async <T>(name: string, run: () => T | Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        page.evaluate(run),
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
  };
  const openedAt = await page.evaluate(
    (hash) => __earmarkStreamBench.open(hash),
    `#record/${labelId}`,
  );
  const pressedAt = await step('pressing Play', () => __earmarkStreamBench.pressPlayWhenShown());
  const playingAt = await step('playing', () => __earmarkStreamBench.playingPast(0));
  const seekedAt = await page.evaluate((s) => __earmarkStreamBench.seek(s), SEEK_SECONDS);
  const againAt = await step('playing after the seek', () =>
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

async function main(): Promise<void> {
  process.chdir(repoRoot);
  ensureRendererBuilt();
  const startedAt = new Date();
  const machineInfo = machine({ viewport: `${VIEWPORT.width}×${VIEWPORT.height}` });
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-bench-streaming-'));
  const service = await startNinetyMinuteService(LINKS.length * RUNS + 1);
  const link = await startLink(service.port, CLINIC_LINK);
  let browser: Browser | undefined;
  let shell: ShellProcess | undefined;
  try {
    browser = await launchChromium();
    shell = await startShellProcess(['--data', dataDir]);
    const context = await browser.newContext({ viewport: VIEWPORT });
    await context.addInitScript({ path: join(benchDir, 'lib', 'streaming-page.js') });
    const page = await context.newPage();
    await page.goto(shell.url); // the page keeps the address's token
    await invokeOverShell(shell.url, 'accounts.add', {
      baseUrl: link.baseUrlOf(service.baseUrl),
      apiKey: service.apiKey,
      // The keychain is not what is measured: the key stays in the shell's memory.
      sessionOnly: true,
    });
    await page.goto(`${new URL(shell.url).origin}/#recordings`);
    await page.getByRole('heading', { name: 'Recordings' }).waitFor({ timeout: TIMEOUT_MS });
    const labels = [...service.labelIds];
    // Warm-up, not counted: the page's code and the service's clips are loaded once.
    await playOnce(page, labels.shift()!);
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
    const figures = results.flatMap(([shape, m]) => [
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
    ]);
    report('streaming', startedAt, machineInfo, figures, {
      links: LINKS,
      bytes: service.bytes,
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
  }
}

await main();

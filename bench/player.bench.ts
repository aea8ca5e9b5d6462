// Opening a cached 90-minute recording (issue 6, "Performance"): the waveform on screen ≤ 1 s and
// the renderer's JS heap ≤ 150 MB, beside wavesurfer's default path measured in the same run (a
// page that gives WaveSurfer only the media's url, so it fetches and decodes the whole file).
// Debian's Chromium through the browser shell and the demo clinic. See bench/README.md.
//
//   npx tsx bench/player.bench.ts      (or `npm run bench -- player`)
//
// Exit code 0 whether or not the targets are met (the table says); 1 only if the run failed.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import {
  CONVERSATION_MAX_RANGE_MS,
  type Conversation,
  type CreateConversationResponse,
  type Label,
  type Preview,
} from '../src/shared/api';
import type { PreparedAudio, Sourced } from '../src/shared/ipc';
import { DEMO_DEVICES } from '../src/service/demo/identity-seed';
import { MIN_SPEECH_MINUTES } from '../src/service/hub/conversations';
import {
  invokeOverShell,
  launchChromium,
  startShellProcess,
  type ShellProcess,
} from '../test/e2e/support';
import { benchDir, ensureRendererBuilt, repoRoot } from './lib/paths';
import { machine, max, median, report, type Figure } from './lib/report';

const VIEWPORT = { width: 1280, height: 800 };
/** Never reviewed in the demo: no conversation overlaps a range created on it. */
const DEVICE = DEMO_DEVICES.find((d) => d.displayName === 'Surgery Prep')!;
const APP_LOADS = 5;
const IN_APP_OPENS = 5;
const BASELINE_LOADS = 3;
const TARGETS = { shownMs: 1000, heapMb: 150 };
const MB = 1024 * 1024;
/** The first open downloads 86 MB and computes its peaks; the baseline decodes all of it. */
const SLOW_MS = 180_000;
const BASELINE_PATH = '/__bench/';
const HEAP_SAMPLE_MS = 100;

interface Draw {
  drawnAt: number;
  shownAt: number | null;
  detail: { fromPeaks?: boolean } | null;
}
/** window.__earmarkPlayerBench, from bench/lib/player-page.js. */
interface PageBench {
  draws(from?: number): Draw[];
  drawCount(): number;
  navigation(): { responseEnd: number; scriptsRan: number };
  open(hash: string): number;
}
// The page's global: only ever referred to inside functions that Playwright runs in the page.
declare const __earmarkPlayerBench: PageBench;
declare const document: { body: { dataset: Record<string, string | undefined> } };

/** V8's heap in use plus array buffers' backing stores (where a decoded AudioBuffer lives). */
const heapMb = (usage: { usedSize: number; backingStorageSize: number }) =>
  (usage.usedSize + usage.backingStorageSize) / MB;

/**
 * Samples the page's JS heap every HEAP_SAMPLE_MS (CDP Runtime.getHeapUsage, no collection
 * forced) until stopped. `settle` stops it and gives the peak, then the heap after a full collection.
 */
function watchHeap(cdp: CDPSession) {
  let peakMb = 0;
  let watching = true;
  const sampling = (async () => {
    while (watching) {
      // Fails while a navigation swaps the renderer: that sample is skipped.
      const usage = await cdp.send('Runtime.getHeapUsage').catch(() => null);
      if (usage) peakMb = Math.max(peakMb, heapMb(usage));
      await sleep(HEAP_SAMPLE_MS);
    }
  })();
  const stop = async () => {
    watching = false;
    await sampling;
  };
  return {
    stop,
    async settle() {
      await stop();
      await cdp.send('HeapProfiler.collectGarbage');
      const usage = await cdp.send('Runtime.getHeapUsage');
      return {
        peakMb,
        afterGcMb: heapMb(usage),
        v8AfterGcMb: usage.usedSize / MB,
        arrayBuffersAfterGcMb: usage.backingStorageSize / MB,
      };
    },
  };
}

/** Waits for a waveform drawn after draw number `from` to be on screen; fails with the reason. */
async function waitShown(page: Page, from: number, timeout: number): Promise<Draw> {
  const handle = await page
    .waitForFunction(
      (start) => {
        const shown = __earmarkPlayerBench.draws(start).find((d) => d.shownAt !== null);
        if (shown) return shown;
        const failure = document.body.dataset.benchError;
        return failure ? { failure } : null;
      },
      from,
      { timeout, polling: 50 },
    )
    .catch(async (error: unknown) => {
      const player = await page
        .locator('section[aria-label="Audio"]')
        .textContent({ timeout: 1000 })
        .catch(() => null);
      throw new Error(
        `No waveform on screen within ${timeout / 1000} s` +
          (player ? `; the player says: ${player.replace(/\s+/g, ' ').trim()}` : '') +
          ` (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
      );
    });
  const value = (await handle.jsonValue()) as Draw | { failure: string };
  if ('failure' in value) throw new Error(`The baseline page failed: ${value.failure}`);
  return value;
}

/**
 * A 90-minute hub recording, made through the app as a vet would: a 90-minute range on the
 * Surgery Prep hub on the latest weekday with speech at 10:00, created, completed, processed.
 */
async function ninetyMinuteRecording(shellUrl: string): Promise<Label> {
  const invoke = <T>(channel: string, input: unknown) =>
    invokeOverShell<T>(shellUrl, channel, input);
  let range: { deviceId: string; startMs: number; endMs: number } | undefined;
  for (let daysBack = 1; daysBack <= 6 && !range; daysBack++) {
    const day = new Date();
    day.setDate(day.getDate() - daysBack);
    if (day.getDay() === 0 || day.getDay() === 6) continue; // the clinic's weekend is quiet
    day.setHours(10, 0, 0, 0);
    const candidate = {
      deviceId: DEVICE.id,
      startMs: day.getTime(),
      endMs: day.getTime() + CONVERSATION_MAX_RANGE_MS,
    };
    const preview = await invoke<Preview>('hub.preview', candidate);
    if (preview.speechMinutes >= MIN_SPEECH_MINUTES) range = candidate;
  }
  if (!range) throw new Error(`No weekday 10:00 on ${DEVICE.displayName} had speech to process.`);
  const created = await invoke<CreateConversationResponse>('hub.create', range);
  const conversationId = created.conversation?.conversationId;
  if (!created.success || !conversationId)
    throw new Error(`The service refused the 90-minute range: ${created.message}`);
  const ref = { deviceId: range.deviceId, conversationId };
  await invoke<Conversation>('hub.complete', ref);
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(500)) {
    const { value: conversation } = await invoke<Sourced<Conversation>>('conversations.get', ref);
    if (conversation.status === 'FILTERED' || conversation.status === 'FAILED')
      throw new Error(
        `The conversation ended ${conversation.status}: ${conversation.notImportableReason}`,
      );
    if (conversation.status !== 'UPLOADED') continue;
    const { value: label } = await invoke<Sourced<Label | null>>('conversations.record', ref);
    if (label) return label;
  }
  throw new Error('The 90-minute conversation did not become a record within 60 s.');
}

interface IpcCall {
  channel: string;
  /** From the navigation's start, on this process's clock (frames are seen a little late). */
  sentMs: number;
  ms: number | null;
}

/** The app's IPC calls over its WebSocket, as they go: where a page load's time goes. */
function watchIpc(page: Page, startedAt: number): () => IpcCall[] {
  const calls = new Map<number, IpcCall>();
  page.on('websocket', (socket) => {
    socket.on('framesent', ({ payload }) => {
      const { id, channel } = JSON.parse(String(payload)) as { id: number; channel: string };
      calls.set(id, { channel, sentMs: performance.now() - startedAt, ms: null });
    });
    socket.on('framereceived', ({ payload }) => {
      const { id } = JSON.parse(String(payload)) as { id?: number };
      const call = id === undefined ? undefined : calls.get(id);
      if (call) call.ms = performance.now() - startedAt - call.sentMs;
    });
  });
  return () => [...calls.values()];
}

/**
 * Loads `url` in a new page of `context` (alone in its renderer) and times it: navigation →
 * waveform on screen; the JS heap's peak meanwhile, and after a full collection once it is shown.
 */
async function pageLoad(context: BrowserContext, url: string, timeout: number) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const heap = watchHeap(cdp);
  const startedAt = performance.now();
  const ipc = watchIpc(page, startedAt);
  try {
    await page.goto(url);
    const draw = await waitShown(page, 0, timeout);
    const loading = await page.evaluate(() => __earmarkPlayerBench.navigation());
    return {
      ...loading,
      drawnAt: draw.drawnAt,
      shownAt: draw.shownAt!,
      fromPeaks: draw.detail?.fromPeaks,
      heap: await heap.settle(),
      ipc: ipc().filter((call) => call.sentMs < draw.shownAt!),
    };
  } finally {
    await heap.stop();
    await cdp.detach().catch(() => undefined);
    await page.close();
  }
}

type PageLoad = Awaited<ReturnType<typeof pageLoad>>;

/** Opens the record from the timeline, by its link's address, and back, `IN_APP_OPENS` times. */
async function inAppOpens(context: BrowserContext, origin: string, labelId: string) {
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/#timeline`);
    await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    const times: number[] = [];
    for (let i = 0; i < IN_APP_OPENS; i++) {
      await sleep(300);
      const from = await page.evaluate(() => __earmarkPlayerBench.drawCount());
      const openedAt = await page.evaluate(
        (hash) => __earmarkPlayerBench.open(hash),
        `#record/${labelId}`,
      );
      const draw = await waitShown(page, from, 30_000);
      times.push(draw.shownAt! - openedAt);
      await page.evaluate(() => __earmarkPlayerBench.open('#timeline'));
      await page.getByRole('slider', { name: 'Playback position' }).waitFor({ state: 'detached' });
    }
    return times;
  } finally {
    await page.close();
  }
}

/** The baseline page: WaveSurfer given only the url of the same media, at the app's width. */
function baselineHtml(mediaUrl: string, width: number): string {
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>wavesurfer.js default path</title></head>
  <body style="margin: 0; padding: 24px">
    <div id="wave" style="width: ${width}px"></div>
    <script type="module">
      import WaveSurfer from './wavesurfer.esm.js';
      const wavesurfer = WaveSurfer.create({ container: '#wave', url: ${JSON.stringify(mediaUrl)} });
      wavesurfer.once('redrawcomplete', () =>
        performance.mark('earmark:waveform-drawn', { detail: { fromPeaks: false } }),
      );
      wavesurfer.on('error', (error) => (document.body.dataset.benchError = String(error)));
    </script>
  </body>
</html>`;
}

async function main(): Promise<void> {
  process.chdir(repoRoot);
  ensureRendererBuilt();
  const startedAt = new Date();
  const machineInfo = machine({ viewport: `${VIEWPORT.width}×${VIEWPORT.height}` });
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-bench-player-'));
  const pageScript = { path: join(benchDir, 'lib', 'player-page.js') };
  let browser: Browser | undefined;
  let shell: ShellProcess | undefined;
  try {
    browser = await launchChromium();
    shell = await startShellProcess(['--data', dataDir, '--demo']);
    const origin = new URL(shell.url).origin;
    const app = await browser.newContext({ viewport: VIEWPORT });
    await app.addInitScript(pageScript);
    const first = await app.newPage();
    await first.goto(shell.url); // the page keeps the address's token (localStorage)
    await first.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    await first.close();

    const label = await ninetyMinuteRecording(shell.url);
    const minutes = (Date.parse(label.toTime) - Date.parse(label.fromTime)) / 60_000;
    const recordUrl = `${origin}/#record/${label.id}`;
    // Not counted: the first open downloads the audio into the app's cache and computes its peaks.
    const downloadStarted = performance.now();
    const firstOpen = await pageLoad(app, recordUrl, SLOW_MS);
    const firstOpenMs = performance.now() - downloadStarted;
    if (!firstOpen.fromPeaks) throw new Error('The player drew no peaks: is the audio a WAV?');

    const appLoads: PageLoad[] = [];
    for (let i = 0; i < APP_LOADS; i++) appLoads.push(await pageLoad(app, recordUrl, 30_000));
    const opens = await inAppOpens(app, origin, label.id);

    const widthPage = await app.newPage();
    await widthPage.goto(recordUrl);
    const wave = widthPage.getByRole('slider', { name: 'Playback position' });
    await wave.waitFor();
    const width = await wave.evaluate(
      (element) => (element as { clientWidth: number }).clientWidth,
    );
    await widthPage.close();

    const baseline = await browser.newContext({ viewport: VIEWPORT });
    await baseline.addInitScript(pageScript);
    // The shell serves a recording at the address audio.prepare gives (its capability in it).
    const { mediaUrl: preparedUrl } = await invokeOverShell<PreparedAudio>(
      shell.url,
      'audio.prepare',
      { labelId: label.id },
    );
    const mediaUrl = `/${preparedUrl}`;
    await baseline.route(`${origin}${BASELINE_PATH}**`, (route) => {
      const { pathname } = new URL(route.request().url());
      if (pathname.endsWith('/baseline.html'))
        return route.fulfill({ contentType: 'text/html', body: baselineHtml(mediaUrl, width) });
      if (pathname.endsWith('/wavesurfer.esm.js'))
        return route.fulfill({
          contentType: 'text/javascript',
          body: readFileSync(join(repoRoot, 'node_modules/wavesurfer.js/dist/wavesurfer.esm.js')),
        });
      return route.fulfill({ status: 404 });
    });
    const baselineUrl = `${origin}${BASELINE_PATH}baseline.html`;
    await pageLoad(baseline, baselineUrl, SLOW_MS); // warm-up, not counted
    const baselineLoads: PageLoad[] = [];
    for (let i = 0; i < BASELINE_LOADS; i++)
      baselineLoads.push(await pageLoad(baseline, baselineUrl, SLOW_MS));

    const shown = (loads: { shownAt: number }[]) => loads.map((l) => l.shownAt);
    const heap = (loads: PageLoad[], pick: keyof PageLoad['heap']) =>
      loads.map((l) => l.heap[pick]);
    const list = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');
    const medianLoad = [...appLoads].sort((a, b) => a.shownAt - b.shownAt)[APP_LOADS >> 1]!;
    const ipcOf = (load: PageLoad) =>
      load.ipc
        .map((c) => `${c.channel} at ${c.sentMs.toFixed(0)} ms took ${c.ms?.toFixed(0) ?? '?'} ms`)
        .join(', ');
    process.stdout.write(
      `\n${minutes}-minute recording ${label.id}: first open (download and peaks) ` +
        `${(firstOpenMs / 1000).toFixed(1)} s; then, cached:\n` +
        `  page load → waveform on screen: ${list(shown(appLoads))} ms ` +
        `(scripts ran at ${list(appLoads.map((l) => l.scriptsRan))} ms)\n` +
        `  opened from the timeline: ${list(opens)} ms\n` +
        `  wavesurfer's default path: ${list(shown(baselineLoads))} ms\n` +
        `  JS heap peak, MB: app ${list(heap(appLoads, 'peakMb'))}; ` +
        `default path ${list(heap(baselineLoads, 'peakMb'))}\n` +
        `  IPC before the waveform, in the median load: ${ipcOf(medianLoad)}\n`,
    );
    const defaultPath =
      "wavesurfer's default path: a page giving WaveSurfer only the url of the same media " +
      '(it fetches and decodes the whole file)';
    const figures: Figure[] = [
      {
        figure: 'open a cached 90-min recording: page load → waveform on screen, median',
        unit: 'ms',
        measured: median(shown(appLoads)),
        target: TARGETS.shownMs,
        baseline: median(shown(baselineLoads)),
        baselineIs: `${defaultPath}, from its navigation to its waveform on screen, median of ${baselineLoads.length}`,
        samples: appLoads.length,
      },
      {
        figure: 'open it from the timeline (in-app link) → waveform on screen, median',
        unit: 'ms',
        measured: median(opens),
        target: TARGETS.shownMs,
        baseline: median(shown(baselineLoads)),
        baselineIs: `wavesurfer's default path (above), page load → waveform on screen, median of ${baselineLoads.length}`,
        samples: opens.length,
      },
      {
        figure: 'renderer JS heap while opening it, peak (V8 + array buffers)',
        unit: 'MB',
        measured: max(heap(appLoads, 'peakMb')),
        target: TARGETS.heapMb,
        baseline: max(heap(baselineLoads, 'peakMb')),
        baselineIs: `wavesurfer's default path (above), the same measure (sampled every ${HEAP_SAMPLE_MS} ms), max of ${baselineLoads.length}`,
        samples: appLoads.length,
      },
      {
        figure: 'renderer JS heap with it open, after a full GC (V8 + array buffers)',
        unit: 'MB',
        measured: max(heap(appLoads, 'afterGcMb')),
        target: TARGETS.heapMb,
        baseline: max(heap(baselineLoads, 'afterGcMb')),
        baselineIs: `wavesurfer's default path (above), waveform drawn, the same measure, max of ${baselineLoads.length}`,
        samples: appLoads.length,
      },
    ];
    report('player', startedAt, { ...machineInfo, chromium: browser.version() }, figures, {
      labelId: label.id,
      minutes,
      device: DEVICE.displayName,
      firstOpenMs,
      appLoads,
      inAppOpensMs: opens,
      baselineLoads,
      baselineWidthPx: width,
      note:
        'Times run from the navigation (the page clock’s origin), or from setting the in-app ' +
        'link’s address, to the first frame after the earmark:waveform-drawn mark (wavesurfer’s ' +
        'first redrawcomplete). Heap: CDP Runtime.getHeapUsage, usedSize + backingStorageSize, ' +
        `sampled every ${HEAP_SAMPLE_MS} ms during the load (peak), then after ` +
        'HeapProfiler.collectGarbage; each page alone in its renderer.',
    });
  } finally {
    await browser?.close();
    await shell?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

// The Recordings list measured in Chromium through the browser shell: its first page after the
// click that opens it, scrolling frame times, and the first page after a change of filters or
// order. Shared by bench/list.bench.ts and bench/scale.bench.ts; the pages need
// bench/lib/timeline-page.js and bench/lib/list-page.js installed (page.addInitScript) before the
// app loads. See bench/README.md for the method.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { Label } from '../../src/shared/api';

const SCROLL_EVENTS = 120;
const SCROLL_DELTA_PX = 120;
const FRAME_MS = 1000 / 60;
export const IDLE_MS = 2000;
/** RecordingGrid.svelte's row height, for the baseline table's rows. */
const ROW_HEIGHT = 34;

interface PageAnswer {
  page: number;
  asked: 'cache' | 'service';
  source: 'cache' | 'service';
  startTime: number;
  endTime: number;
  paintedAt: number | null;
}
export interface Frames {
  frameTimes: number[];
  intervals: number[];
  elapsed: number;
  longTasks: { startTime: number; duration: number }[];
}
/** window.__earmarkListBench (bench/lib/list-page.js) and __earmarkBench (timeline-page.js). */
interface ListBench {
  clickedAt(): number | null;
  pageCount(): number;
  pages(from?: number): PageAnswer[];
  showTable(rows: string[][], rect: object, rowHeight: number): number;
  removeTable(): void;
}
interface FrameBench {
  startFrames(): void;
  stopFrames(): Frames;
  idleFrames(ms: number): Promise<Frames>;
}
// The page's globals: only ever referred to inside functions that Playwright runs in the page.
declare const __earmarkListBench: ListBench;
declare const __earmarkBench: FrameBench;

/**
 * Opens the list as a user does, from another screen (a fresh page each time, so the list's
 * state starts empty): the click on "Recordings" to the first frame painted after page 0 was
 * stored, from the cache and from the service (the service-only first page). `limitMs`: how long
 * to wait for it (the account's first screen may first have to open and check a large cache).
 */
export async function openList(page: Page, origin: string, limitMs = 120_000) {
  await page.goto('about:blank'); // a new document: from the list's address, #settings is a hash change
  await page.goto(`${origin}/#settings`);
  await page.getByRole('link', { name: 'Recordings' }).waitFor();
  await sleep(500); // the settings screen's own calls
  await page.getByRole('link', { name: 'Recordings' }).click();
  await page.waitForFunction(
    () =>
      __earmarkListBench
        .pages()
        .some((p) => p.page === 0 && p.asked === 'service' && p.paintedAt !== null),
    undefined,
    { timeout: limitMs },
  );
  const { clickedAt, answers } = await page.evaluate(() => ({
    clickedAt: __earmarkListBench.clickedAt(),
    answers: __earmarkListBench.pages().filter((p) => p.page === 0),
  }));
  if (clickedAt === null) throw new Error('The click on "Recordings" was not seen.');
  const painted = (asked: 'cache' | 'service') => {
    const answer = answers.find((a) => a.asked === asked);
    return answer?.paintedAt == null ? null : answer.paintedAt - clickedAt;
  };
  const since = (time: number | undefined) => (time === undefined ? null : time - clickedAt);
  const rows = await page.locator('[role="grid"] [role="row"][aria-rowindex]').count();
  if (rows < 10) throw new Error(`The list showed ${rows} rows after its first page.`);
  return {
    first: Math.min(...answers.map((a) => a.paintedAt! - clickedAt)),
    cache: painted('cache'),
    service: painted('service')!,
    // Where the time goes, from the click: the cache asked (the screen mounted), answered (the
    // IPC round trip and the query), painted (above).
    cacheAskedMs: since(answers.find((a) => a.asked === 'cache')?.startTime),
    cacheAnsweredMs: since(answers.find((a) => a.asked === 'cache')?.endTime),
    serviceSource: answers.find((a) => a.asked === 'service')!.source,
  };
}

export type ListOpen = Awaited<ReturnType<typeof openList>>;

/**
 * Runs `act(arg)` in the page (a change of filters or order; it returns when it acted, on the
 * page's clock) and times it to the first frame painted after the list's new page 0 was stored,
 * whichever of the cache and the service answered first.
 */
export async function firstPageAfter(
  page: Page,
  act: (arg: string) => number,
  arg: string,
): Promise<number> {
  const before = await page.evaluate(() => __earmarkListBench.pageCount());
  const actedAt = await page.evaluate(act, arg);
  await page.waitForFunction(
    ([from, at]) =>
      __earmarkListBench
        .pages(from)
        .some((p) => p.page === 0 && p.startTime >= at && p.paintedAt !== null),
    [before, actedAt] as const,
    { timeout: 120_000 },
  );
  const painted = await page.evaluate(
    ([from, at]) =>
      __earmarkListBench
        .pages(from)
        .filter((p) => p.page === 0 && p.startTime >= at && p.paintedAt !== null)
        .map((p) => p.paintedAt!),
    [before, actedAt] as const,
  );
  return Math.min(...painted) - actedAt;
}

/**
 * SCROLL_EVENTS wheel events of SCROLL_DELTA_PX, one a frame, not awaited one by one (like a
 * real wheel, they come on time whether or not the page keeps up), with the frames recorded
 * meanwhile and for 200 ms after.
 */
async function scrollFrames(page: Page, at: { x: number; y: number }): Promise<Frames> {
  await page.mouse.move(at.x, at.y);
  await sleep(200);
  await page.evaluate(() => __earmarkBench.startFrames());
  const started = performance.now();
  const wheels: Promise<void>[] = [];
  for (let i = 1; i <= SCROLL_EVENTS; i++) {
    wheels.push(page.mouse.wheel(0, SCROLL_DELTA_PX));
    const due = started + i * FRAME_MS;
    const now = performance.now();
    if (due > now) await sleep(due - now);
  }
  await Promise.all(wheels);
  await sleep(200);
  return page.evaluate(() => __earmarkBench.stopFrames());
}

/**
 * Scrolls the list from its top; with `tableOf`, then the same rows as a plain table laid over
 * it (the baseline: start, duration, type, patient, device as text) with the same wheel events.
 */
export async function measureScrolling(page: Page, tableOf?: readonly Label[]) {
  const scroller = page.locator('[role="grid"] .scroller');
  const box = (await scroller.boundingBox())!;
  const at = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await scroller.evaluate((element) => (element.scrollTop = 0));
  await sleep(500);
  // The machine's floor: the same recording with nothing going on.
  const idle = await page.evaluate((ms) => __earmarkBench.idleFrames(ms), IDLE_MS);
  const answersBefore = await page.evaluate(() => __earmarkListBench.pageCount());
  const app = await scrollFrames(page, at);
  // The pages that arrived meanwhile, to set beside the frames (the JSON has both).
  const answers = await page.evaluate((from) => __earmarkListBench.pages(from), answersBefore);
  const scrolledTo = await scroller.evaluate((element) => element.scrollTop);
  const loadedRows = await page
    .locator('[role="grid"] [role="row"][aria-rowindex]:not([aria-busy])')
    .count();
  if (!tableOf) return { idle, app, answers, scrolledTo, loadedRows };

  const rows = tableOf.map((label) => [
    label.fromTime,
    String(Math.round((Date.parse(label.toTime) - Date.parse(label.fromTime)) / 60_000)),
    label.type,
    label.patient?.name ?? 'Unassigned',
    label.friendlyName,
  ]);
  const buildMs = await page.evaluate(
    ([r, rect, height]) => __earmarkListBench.showTable(r, rect, height),
    [rows, box, ROW_HEIGHT] as const,
  );
  await sleep(1000);
  const table = await scrollFrames(page, at);
  await page.evaluate(() => __earmarkListBench.removeTable());
  return { idle, app, answers, scrolledTo, loadedRows, table, buildMs };
}

export const SCROLLING = { events: SCROLL_EVENTS, deltaPx: SCROLL_DELTA_PX };

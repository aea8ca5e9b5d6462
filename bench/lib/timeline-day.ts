// The hub timeline's day switches measured in Chromium through the browser shell: from the
// `earmark:day-switch-start` mark to the first frame painted after the day's first draw
// (`earmark:timeline-draw`). Shared by bench/timeline.bench.ts and bench/scale.bench.ts; the page
// needs bench/lib/timeline-page.js installed (page.addInitScript) before the app loads.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

/** An `earmark:timeline-draw` measure and the frame after it (bench/lib/timeline-page.js). */
export interface Draw {
  startTime: number;
  duration: number;
  slots: number | null;
  frameAt: number | null;
  paintedAt: number | null;
}
/** The part of window.__earmarkBench (bench/lib/timeline-page.js) used here. */
interface DayBench {
  drawCount(): number;
  draws(from?: number): Draw[];
  lastMark(name: string): { startTime: number; detail: unknown } | null;
}
// The page's global: only ever referred to inside functions that Playwright runs in the page.
declare const __earmarkBench: DayBench;

export const timeline = (page: Page) => page.getByRole('slider', { name: /^Timeline of/ });
export const dateOf = (page: Page) => page.getByLabel('Date', { exact: true }).inputValue();
const isWeekday = (date: string) => {
  const day = new Date(`${date}T12:00:00Z`).getUTCDay();
  return day !== 0 && day !== 6;
};

/** Waits until the day is loaded and drawn, and no redraw came for `quietMs`. */
export async function settle(page: Page, quietMs = 300): Promise<void> {
  await timeline(page).waitFor();
  await page.locator('.timeline-area[aria-busy="false"]').waitFor();
  let count = await page.evaluate(() => __earmarkBench.drawCount());
  for (let waited = 0; waited < 15_000; waited += quietMs) {
    await sleep(quietMs);
    const now = await page.evaluate(() => __earmarkBench.drawCount());
    if (now === count) return;
    count = now;
  }
  throw new Error('The timeline kept redrawing for 15 s with nothing going on.');
}

/** Clicks `button` and times the day switch: its start mark → the first frame after its draw. */
async function switchDay(page: Page, button: 'Previous day' | 'Next day') {
  const before = await page.evaluate(() => __earmarkBench.drawCount());
  await page.getByRole('button', { name: button }).click();
  await page.waitForFunction(
    (from) => {
      const mark = __earmarkBench.lastMark('earmark:day-switch-start');
      return __earmarkBench
        .draws(from)
        .some((d) => mark !== null && d.startTime >= mark.startTime && d.paintedAt !== null);
    },
    before,
    { timeout: 30_000 },
  );
  const timing = await page.evaluate((from) => {
    const mark = __earmarkBench.lastMark('earmark:day-switch-start')!;
    const draw = __earmarkBench.draws(from).find((d) => d.startTime >= mark.startTime)!;
    return {
      toDrawEnd: draw.startTime + draw.duration - mark.startTime,
      toFrame: draw.frameAt! - mark.startTime,
      toPainted: draw.paintedAt! - mark.startTime,
      slots: draw.slots,
    };
  }, before);
  await settle(page);
  return { button, date: await dateOf(page), ...timing };
}

/**
 * Walks back a day at a time: Previous day to a day never fetched (uncached, the baseline), Next
 * day back to the day just left (cached), Previous day again (cached, not counted) to move on.
 * Only switches to a weekday count: Sundays are empty and Saturdays short in the demo.
 */
export async function measureDaySwitch(page: Page, switches: number) {
  const uncached: Awaited<ReturnType<typeof switchDay>>[] = [];
  const cached: Awaited<ReturnType<typeof switchDay>>[] = [];
  for (
    let walk = 0;
    walk < 3 * switches && (uncached.length < switches || cached.length < switches);
    walk++
  ) {
    const there = await switchDay(page, 'Previous day');
    if (isWeekday(there.date) && uncached.length < switches) uncached.push(there);
    const back = await switchDay(page, 'Next day');
    if (isWeekday(back.date) && cached.length < switches) cached.push(back);
    await switchDay(page, 'Previous day');
  }
  return { uncached, cached };
}

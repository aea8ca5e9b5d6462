import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { SyncStatus } from '../../src/shared/ipc';
import { ClipBank } from '../../src/service/audio/clip-bank';
import { DEMO_DEVICES } from '../../src/service/demo/identity-seed';
import { AUTO_RECORD_DELAY_MS } from '../../src/service/hub/live-simulator';
import { localDayStart, nextLocalDay, simulateDay } from '../../src/service/hub/simulator';
import {
  chromiumProblem,
  DIALECTS,
  invokeOverShell,
  msOf,
  openAppOnDemoService,
  regenerateNote,
  startShellProcess,
  type AppOnDemoService,
  type ShellProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/review.test.ts', chromiumProblem());
const WAIT = { timeout: 30_000 };
const ROOM_1 = DEMO_DEVICES[0];

/**
 * A consult of Consult Room 1 that a hub in auto mode hands over (ten minutes after it ends)
 * between 20 minutes and two days ago, the latest: the demo service's clock starts 45 s before
 * that moment, so its live simulator adds the consult's record while the test watches, dated
 * inside the app's sync window.
 */
function nextHandOver(): { startMs: number; clock: string } {
  const clips = new ClipBank('resources');
  const now = Date.now();
  const due: { startMs: number; dueMs: number }[] = [];
  for (let day = localDayStart(now - 3 * 86_400_000); day < now; day = nextLocalDay(day)) {
    for (const consult of simulateDay(clips, { id: ROOM_1.id, offAtNight: false }, day).consults)
      due.push({ startMs: consult.startMs, dueMs: consult.endMs + AUTO_RECORD_DELAY_MS });
  }
  const chosen = due
    .filter((c) => c.dueMs <= now - 20 * 60_000 && c.dueMs >= now - 2 * 86_400_000)
    .at(-1)!;
  return { startMs: chosen.startMs, clock: new Date(chosen.dueMs - 45_000).toISOString() };
}

describe.skipIf(problem !== undefined).each(DIALECTS)(
  'Review on the demo (%s dialect)',
  (dialect) => {
    let app: AppOnDemoService;
    let page: Page;
    /** The shell the page talks to (a restart replaces it). */
    let shell: ShellProcess;
    let restarted: ShellProcess | undefined;
    let liveRecordId: string;
    const handOver = nextHandOver();
    const invoke = <T>(channel: string, input: unknown) =>
      invokeOverShell<T>(shell.url, channel, input);

    const list = () => page.getByRole('listbox', { name: 'Items to review' });
    const options = () => list().getByRole('option');
    const option = (id: string) => list().locator(`[data-key="record:${id}"]`);
    const focusedKey = () =>
      page.evaluate<string | null>('document.activeElement?.getAttribute("data-key") ?? null');
    /** The count the sidebar shows beside Review. */
    const sidebarCount = async () => {
      const text = await page
        .getByRole('navigation', { name: 'Earmark' })
        .getByRole('link', { name: /^Review/ })
        .textContent();
      return Number(/(\d[\d,]*)/.exec(text ?? '')?.[1]?.replace(/,/g, '') ?? 0);
    };
    const synced = async () => {
      const before = (await invoke<SyncStatus>('sync.status', {})).lastSyncAt;
      await invoke('sync.run', {});
      await expect
        .poll(async () => {
          const status = await invoke<SyncStatus>('sync.status', {});
          return status.state === 'idle' && status.lastSyncAt !== before;
        }, WAIT)
        .toBe(true);
    };
    const openReview = async () => {
      await page
        .getByRole('navigation', { name: 'Earmark' })
        .getByRole('link', { name: /^Review/ })
        .click();
      await options().first().waitFor();
    };

    beforeAll(async () => {
      app = await openAppOnDemoService(`review-${dialect}`, {}, [
        '--dialect',
        dialect,
        '--clock',
        handOver.clock,
        '--processing-ms',
        '1500',
      ]);
      page = app.page;
      shell = app.shell;
      page.setDefaultTimeout(30_000);
      await vi.waitUntil(
        async () => (await invoke<SyncStatus>('sync.status', {})).lastSyncAt !== null,
        { timeout: 90_000, interval: 200 },
      );
    }, 150_000);
    afterAll(async () => {
      await restarted?.stop();
      await app?.close();
    });

    it('shows a recording the live simulator adds, and raises the count', async () => {
      await openReview();
      const before = await sidebarCount();
      expect(before).toBeGreaterThan(10);
      // The service's simulator hands the consult over, and processes it into a hub record.
      const organizationId = app.credentials.primary.organizationId;
      await expect
        .poll(
          async () => {
            const response = await app.serviceFetch(
              `/organizations/${organizationId}/labels?types=HubMic&limit=20`,
            );
            const labels = (await response.json()) as Label[];
            liveRecordId = labels.find((l) => msOf(l.fromTime) === handOver.startMs)?.id ?? '';
            return liveRecordId;
          },
          { timeout: 90_000 },
        )
        .not.toBe('');
      // The queue as main counts it without the record (a sync under way may have brought it).
      const queued = await invoke<{ count: number; items: { id: string }[] }>('review.list', {
        limit: 5000,
      });
      const counted = queued.count - (queued.items.some((i) => i.id === liveRecordId) ? 1 : 0);
      await synced();
      await option(liveRecordId).waitFor();
      await expect(option(liveRecordId).textContent()).resolves.toContain('New');
      await expect.poll(sidebarCount, WAIT).toBe(counted + 1);
    }, 150_000);

    /** The keys of the options in the order shown. */
    const shownKeys = () =>
      list()
        .getByRole('option')
        .evaluateAll((rows) =>
          rows.map((row) => (row as { dataset: { key?: string } }).dataset.key ?? ''),
        );
    /** The first record that can be acted on, and the item after it. */
    const firstRecord = async () => {
      const keys = await shownKeys();
      const actionable = await list()
        .locator('[role="option"][data-actionable="true"][data-key^="record:"]')
        .first()
        .getAttribute('data-key');
      return { key: actionable!, next: keys[keys.indexOf(actionable!) + 1]! };
    };

    it('opening a record marks it reviewed once read, and going back lands on the next item', async () => {
      await openReview();
      const { key, next } = await firstRecord();
      const before = await sidebarCount();
      await list().locator(`[data-key="${key}"]`).click();
      await page.getByText('Reviewed by you').waitFor();
      await page.getByRole('button', { name: 'Back', exact: true }).click();
      await options().first().waitFor();
      await expect.poll(focusedKey, WAIT).toBe(next);
      await expect(list().locator(`[data-key="${key}"]`).count()).resolves.toBe(0);
      await expect.poll(sidebarCount, WAIT).toBe(before - 1);
    }, 90_000);

    it('r marks the focused item, u takes it back, Ctrl+A selects the day, and the keys move and open', async () => {
      await openReview();
      const { key: first, next: second } = await firstRecord();
      await list().locator(`[data-key="${first}"]`).focus();
      await page.keyboard.press('j');
      await expect.poll(focusedKey).toBe(second);
      await page.keyboard.press('k');
      await expect.poll(focusedKey).toBe(first);
      await page.keyboard.press('ArrowDown');
      await expect.poll(focusedKey).toBe(second);
      await page.keyboard.press('ArrowUp');

      const count = await sidebarCount();
      await page.keyboard.press('r');
      await expect.poll(() => list().locator(`[data-key="${first}"]`).count(), WAIT).toBe(0);
      await expect.poll(focusedKey).toBe(second);
      await expect.poll(sidebarCount, WAIT).toBe(count - 1);
      await page.keyboard.press('u');
      await list().locator(`[data-key="${first}"]`).waitFor();
      await expect.poll(sidebarCount, WAIT).toBe(count);

      // The day of the focused item, selected whole, marked, and unmarked with the button.
      await list().locator(`[data-key="${first}"]`).focus();
      await page.keyboard.press('ControlOrMeta+a');
      const selected = list().locator('[role="option"][aria-selected="true"]');
      await expect.poll(() => selected.count(), WAIT).toBeGreaterThan(1);
      const day = await selected.count();
      expect(day).toBe(await list().locator('[role="option"][aria-selected="true"]').count());
      await page.keyboard.press('r');
      await expect.poll(() => list().locator(`[data-key="${first}"]`).count(), WAIT).toBe(0);
      await expect.poll(sidebarCount, WAIT).toBeLessThan(count - 1);
      await page.getByRole('button', { name: /^Mark unreviewed/ }).click();
      await list().locator(`[data-key="${first}"]`).waitFor();
      await expect.poll(sidebarCount, WAIT).toBe(count);

      // Enter opens the focused record; Back comes to the next one.
      const records = list().locator('[role="option"][data-key^="record:"]');
      const opened = (await records.first().getAttribute('data-key'))!;
      await records.first().focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'About this recording' }).waitFor();
      expect(page.url()).toContain(`#record/${opened.slice('record:'.length)}`);
      await page.goBack();
      await options().first().waitFor();
      await expect.poll(focusedKey, WAIT).not.toBe(opened);
    }, 90_000);

    it('a new transcript version brings a reviewed record back as updated', async () => {
      await openReview();
      await invoke('review.mark', { records: [liveRecordId], conversations: [], reviewed: true });
      await expect.poll(() => option(liveRecordId).count(), WAIT).toBe(0);
      await regenerateNote(app, dialect, liveRecordId, 'Transcript');
      await synced();
      await option(liveRecordId).waitFor();
      await expect(option(liveRecordId).textContent()).resolves.toContain('Updated');
    });

    it('keeps every mark across a restart, and lists and marks offline', async () => {
      await openReview();
      const { key: marked } = await firstRecord();
      await list().locator(`[data-key="${marked}"]`).focus();
      await page.keyboard.press('r');
      await expect.poll(() => list().locator(`[data-key="${marked}"]`).count(), WAIT).toBe(0);
      const count = await sidebarCount();

      // A restart of Earmark on the same data folder (the key was kept for the session only).
      await app.shell.stop();
      restarted = await startShellProcess(['--data', app.dataDir]);
      shell = restarted;
      await page.goto(shell.url);
      await invoke('accounts.add', {
        baseUrl: app.baseUrl,
        apiKey: app.credentials.primary.apiKey,
        sessionOnly: true,
      });
      await openReview();
      await expect.poll(sidebarCount, WAIT).toBe(count);
      await expect(list().locator(`[data-key="${marked}"]`).count()).resolves.toBe(0);

      // The service gone: the queue still lists from this computer, and marks.
      await app.service.kill();
      await page.reload();
      await openReview();
      // The next sync finds the service gone; the screen says so.
      await invoke('sync.run', {});
      await page.getByText(/^Offline — the queue is read from this computer/).waitFor();
      const { key: next } = await firstRecord();
      await list().locator(`[data-key="${next}"]`).focus();
      await page.keyboard.press('r');
      await expect.poll(() => list().locator(`[data-key="${next}"]`).count(), WAIT).toBe(0);
      await expect.poll(sidebarCount, WAIT).toBe(count - 1);
    }, 120_000);
  },
);

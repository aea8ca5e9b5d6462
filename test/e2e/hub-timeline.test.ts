import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Device } from '../../src/shared/api';
import type { CreatedRange, Sourced } from '../../src/shared/ipc';
import { dayRange } from '../../src/shared/timeline';
import { describeRange } from '../../src/service/hub/conversations';
import {
  busyDay,
  chromiumProblem,
  DIALECTS,
  openAppOnEmbeddedDemo,
  showDay,
  type AppOnEmbeddedDemo,
} from './support';

const problem = announceSkip('the tests of test/e2e/hub-timeline.test.ts', chromiumProblem());
const MINUTE_MS = 60_000;
const WAIT = { timeout: 10_000, interval: 100 };

describe.skipIf(problem !== undefined).each(DIALECTS)(
  'hub review in Chromium (browser shell, demo clinic, %s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let page: Page;

    const invoke = <T>(channel: string, input: unknown) => app.invoke<T>(channel, input);

    const timeline = () => page.getByRole('slider', { name: /^Timeline of/ });
    const selectionSummary = () => page.getByRole('region', { name: 'Selection' });

    /** Puts the keyboard cursor on `minutes` after the view's start and selects `length` minutes. */
    async function selectByKeyboard(fromMinute: number, length: number) {
      await timeline().focus();
      await page.keyboard.press('Escape');
      await page.keyboard.press('Home');
      for (let i = 0; i < Math.floor(fromMinute / 60); i++) await page.keyboard.press('PageDown');
      for (let i = 0; i < fromMinute % 60; i++) await page.keyboard.press('ArrowRight');
      for (let i = 0; i < length; i++) await page.keyboard.press('Shift+ArrowRight');
    }

    async function openDay(device: string) {
      await page.getByRole('combobox', { name: 'Device' }).selectOption({ label: device });
      await timeline().waitFor();
    }

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo(`hub-${dialect}`, {
        dialect,
        context: { viewport: { width: 1280, height: 820 } },
      });
      ({ page } = app);
    }, 90_000);
    afterAll(async () => {
      await app?.close();
    });

    it('picks a device and a day', async () => {
      await openDay('Consult Room 2');
      const before = await page.getByLabel('Date', { exact: true }).inputValue();
      await page.getByRole('button', { name: 'Previous day' }).click();
      await timeline().waitFor();
      const after = await page.getByLabel('Date', { exact: true }).inputValue();
      expect(Date.parse(before) - Date.parse(after)).toBe(24 * 60 * MINUTE_MS);
      await expect(timeline().getAttribute('aria-label')).resolves.toContain('Consult Room 2');
    });

    it('caps a drag at 90 minutes and shows the cap while dragging', async () => {
      const box = (await timeline().boundingBox())!;
      const atHour = (hour: number) => box.x + (hour / 24) * box.width;
      await page.mouse.move(atHour(9), box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(atHour(11), box.y + box.height / 2, { steps: 8 });
      await page.getByText('90 min max').waitFor();
      await page.mouse.move(atHour(12.5), box.y + box.height / 2, { steps: 8 });
      await page.mouse.up();
      await expect(selectionSummary().textContent()).resolves.toMatch(
        /1 h 30 min\s*capped at 90 minutes/,
      );
      // The hover card goes with the drag: it never stays over the selection panel.
      await expect(page.locator('.timeline .card').count()).resolves.toBe(0);
      const handles = page.getByRole('slider', { name: /^Selection (start|end)$/ });
      const [start, end] = await Promise.all([
        handles.nth(0).getAttribute('aria-valuenow'),
        handles.nth(1).getAttribute('aria-valuenow'),
      ]);
      expect(Number(end) - Number(start)).toBe(90 * MINUTE_MS);
    });

    it('confirms the live totals with the service and they agree', async () => {
      await page
        .getByRole('button', { name: /^Select suggested consult/ })
        .first()
        .click();
      await page.getByText('Confirmed by the service.').waitFor();
      const start = Number(
        await page.getByRole('slider', { name: 'Selection start' }).getAttribute('aria-valuenow'),
      );
      const end = Number(
        await page.getByRole('slider', { name: 'Selection end' }).getAttribute('aria-valuenow'),
      );
      const { value: devices } = (await invoke('devices.list', {})) as {
        value: { value: string; displayName: string }[];
      };
      const deviceId = devices.find((d) => d.displayName === 'Consult Room 2')!.value;
      const preview = (await invoke('hub.preview', {
        deviceId,
        startMs: start,
        endMs: end,
      })) as Record<string, number>;
      const shown = await page.getByRole('definition').allTextContents();
      expect(shown.map(Number)).toEqual([
        preview.totalMinutes,
        preview.speechMinutes,
        preview.silentMinutes,
      ]);
      expect(preview.speechMinutes).toBeGreaterThan(0);
    });

    it('creates and completes a conversation, reaches UPLOADED and opens its record', async () => {
      await openDay('Consult Room 1');
      await showDay(page, busyDay());
      await timeline().waitFor();
      // Suggestions come once the day's conversations are known (none is offered they cover).
      await page
        .getByRole('region', { name: 'Suggested consults' })
        .getByRole('listitem')
        .first()
        .waitFor();
      const suggestions = page.getByRole('button', { name: /^Select suggested consult/ });
      let created = false;
      for (let i = 0; i < (await suggestions.count()) && !created; i++) {
        await suggestions.nth(i).click();
        await page.getByRole('button', { name: 'Create conversation' }).click();
        const outcome = page
          .getByRole('status')
          .filter({ hasText: /Conversation created|did not create/ });
        await outcome.waitFor();
        created = (await outcome.textContent())!.includes('Conversation created');
      }
      expect(created).toBe(true);
      // Focus moves to the next step's action, then to what became of it, then to the record.
      const focused = () => page.evaluate('document.activeElement?.textContent?.trim() ?? ""');
      await expect.poll(focused, WAIT).toBe('Complete now');
      await page.keyboard.press('Enter');
      await page.getByText('Uploaded — a record was created.').waitFor({ timeout: 30_000 });
      await expect
        .poll(() => page.evaluate('document.activeElement?.getAttribute("role")'), WAIT)
        .toBe('status');
      await page.getByRole('link', { name: 'Open the new record' }).click();
      // A hub conversation becomes an ambient (HubMic) or a button (HubBatch) recording.
      await page
        .getByRole('heading', { level: 1, name: /Ambient hub recording|Hub button recording/ })
        .waitFor();
      await expect.poll(() => page.evaluate('document.activeElement?.tagName'), WAIT).toBe('H1');
      await page.getByText('HubMic').first().waitFor();
      await page.goBack();
      await page.getByRole('heading', { name: 'Hub timeline' }).waitFor();
    }, 60_000);

    it('explains a FILTERED conversation as intentionally excluded', async () => {
      await openDay('Consult Room 1');
      await showDay(page, busyDay());
      await timeline().waitFor();
      await selectByKeyboard(2 * 60, 9); // 02:00–02:10: the hub heard only silence
      await page.keyboard.press('Enter');
      await page.getByText('Conversation created.').waitFor();
      await page.getByRole('button', { name: 'Complete now' }).click();
      const excluded = page.getByText(/^Excluded — too little speech/);
      await excluded.waitFor({ timeout: 30_000 });
      await expect(selectionSummary().textContent()).resolves.toContain('FILTERED');
      await expect(selectionSummary().textContent()).resolves.not.toMatch(/error|failed/i);
    }, 60_000);

    it('lists when each conversation was, by day; a day filter keeps exactly that day’s; a hub-made one opens its record', async () => {
      const day = dayRange(busyDay());
      // The service's own conversations of that day, every device (the reference's filter).
      const service: { conversationId: string; labelId?: string | null; status: string }[] = [];
      let token: string | undefined;
      do {
        const { body } = await app.demo.get<{
          items: typeof service;
          nextPageToken?: string;
        }>(
          `/hub/conversations?pageSize=100&startMs=${day.startMs}&endMs=${day.endMs}${token ? `&pageToken=${token}` : ''}`,
        );
        service.push(...body.items);
        token = body.nextPageToken;
      } while (token);
      expect(service.length).toBeGreaterThan(3);

      await page.getByRole('link', { name: 'Conversations' }).click();
      const list = page.getByRole('listbox', { name: 'Conversations' });
      await list.getByRole('option').first().waitFor();
      // Rows say when: grouped by day, each with its times.
      const dayName = new Date(day.startMs + 12 * 3_600_000).toLocaleDateString(undefined, {
        weekday: 'long',
        day: 'numeric',
        month: 'long',
        year: 'numeric',
      });
      await page
        .getByLabel('Day', { exact: true })
        .fill(new Date(day.startMs + 12 * 3_600_000).toISOString().slice(0, 10));
      await page.getByLabel('Day', { exact: true }).dispatchEvent('change');
      const group = list.getByRole('group', { name: dayName });
      await expect.poll(() => group.getByRole('option').count(), WAIT).toBe(service.length);
      expect(await list.getByRole('group').count()).toBe(1);
      const first = await group.getByRole('option').first().textContent();
      expect(first).toMatch(/\d\d:\d\d(\s?[AP]M)?–\d\d:\d\d/);

      // A conversation the hub made on its own reaches its record.
      // (The tests before this one create conversations on the first device, so skip those.)
      const mine = await invoke<CreatedRange[]>('hub.createdRanges', {
        deviceId: (await invoke<Sourced<Device[]>>('devices.list', {})).value[0]!.value,
        ...day,
      });
      const createdHere = new Set(mine.map((r) => r.conversationId));
      const hubMade = service.find(
        (c) => c.status === 'UPLOADED' && c.labelId && !createdHere.has(c.conversationId),
      )!;
      expect(hubMade).toBeDefined();
      // Rows carry their conversation's key; its text is its time, device and status.
      await group.locator(`[role="option"][data-key$="/${hubMade.conversationId}"]`).click();
      await page.getByRole('link', { name: 'Open its recording' }).click();
      // A hub conversation becomes an ambient (HubMic) or a button (HubBatch) recording.
      await page
        .getByRole('heading', { level: 1, name: /Ambient hub recording|Hub button recording/ })
        .waitFor();
      expect(page.url()).toContain(`#record/${hubMade.labelId}`);
      await page.goBack();
      await page.getByLabel('Day', { exact: true }).fill('');
      await page.getByLabel('Day', { exact: true }).dispatchEvent('change');
      await page.getByRole('link', { name: 'Hub timeline' }).click();
      await timeline().waitFor();
    });

    it('shows the service’s own message when it refuses to create', async () => {
      await openDay('Surgery Prep');
      const day = busyDay();
      await showDay(page, day);
      await timeline().waitFor();
      await selectByKeyboard(3 * 60, 9); // 03:00: Surgery Prep is switched off at night
      // 03:00–03:10 on the clinic's (this machine's) clock, which the service writes in UTC.
      const start = dayRange(day).startMs + 3 * 60 * MINUTE_MS;
      const range = describeRange(start, start + 10 * MINUTE_MS);
      // Said before Create: a range without speech is most likely excluded.
      await page
        .getByText(/^No speech in this range: the service will most likely exclude it/)
        .waitFor();
      await page.getByRole('button', { name: 'Create conversation' }).click();
      await page
        .getByText(
          `The service did not create it: “No audio was recorded on Surgery Prep in ${range}.”`,
        )
        .waitFor();
    }, 30_000);
  },
);

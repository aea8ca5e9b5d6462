import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { SyncStatus } from '../../src/shared/ipc';
import type { TimedLine } from '../../src/shared/record/timed-transcript';
import { ClipBank } from '../../src/service/audio/clip-bank';
import { DEMO_DEVICES } from '../../src/service/demo/identity-seed';
import { localDayStart, simulateDay } from '../../src/service/hub/simulator';
import { dayRange } from '../../src/shared/timeline';
import {
  busyDay,
  chromiumProblem,
  DIALECTS,
  openAppOnEmbeddedDemo,
  type AppOnEmbeddedDemo,
} from './support';

const problem = announceSkip('the tests of test/e2e/review-open.test.ts', chromiumProblem());
const WAIT = { timeout: 30_000 };
const SURGERY_PREP = DEMO_DEVICES[2];

/**
 * Opening a record at its moment: a search hit opens the transcript at the line that matched,
 * highlighted, with the player there and paused; a notification's click opens the record a
 * conversation created here became.
 */
describe.skipIf(problem !== undefined).each(DIALECTS)(
  'opening at the moment (%s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let page: Page;
    let origin: string;

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo(`review-open-${dialect}`, {
        dialect,
        defaultTimeoutMs: 30_000,
      });
      page = app.page;
      origin = new URL(app.shell.url).origin;
      await vi.waitUntil(
        async () => (await app.invoke<SyncStatus>('sync.status', {})).lastSyncAt !== null,
        { timeout: 90_000, interval: 200 },
      );
    }, 150_000);
    afterAll(async () => {
      await app?.close();
    });

    it.each(['recordings', 'review'])(
      'a search hit (from %s) opens the transcript at its line, the player there and paused',
      async (screen) => {
        const { organizationId } = app.demo.credentials.primary;
        const { body: hubRecords } = await app.demo.get<Label[]>(
          `/organizations/${organizationId}/labels?types=HubMic&limit=5`,
        );
        const lines = await app.invoke<TimedLine[]>('labels.transcriptLines', {
          labelId: hubRecords[0]!.id,
        });
        // Words of a line in the middle of a consult: later lines of the same script match them.
        const line = lines[Math.floor(lines.length / 2)]!;
        const query = line.text
          .split(/[^A-Za-z]+/)
          .filter((w) => w.length >= 5)
          .slice(0, 3)
          .join(' ');
        expect(query.length).toBeGreaterThan(4);

        await page.goto(`${origin}/#${screen}`);
        const box = page.getByRole('searchbox', { name: 'Search transcripts and patients' });
        await box.fill('');
        await box.fill(query);
        const hit = page
          .locator('a.hit')
          .filter({ hasText: 'Ambient hub recording' })
          .filter({ has: page.locator('mark') })
          .first();
        await hit.waitFor();
        const labelId = (await hit.getAttribute('href'))!.replace('#record/', '');
        await hit.click();
        await page.getByRole('heading', { name: 'About this recording' }).waitFor();

        const opened = await app.invoke<TimedLine[]>('labels.transcriptLines', { labelId });
        const words = query.toLowerCase().split(' ');
        const matching = opened.findIndex((l) =>
          words.every((w) => l.text.toLowerCase().includes(w)),
        );
        expect(matching).toBeGreaterThan(0);
        const current = page.locator('button.line[aria-current="time"]');
        await expect.poll(() => current.textContent(), WAIT).toContain(opened[matching]!.text);
        await expect.poll(() => current.isVisible(), WAIT).toBe(true);
        const slider = page.getByRole('slider', { name: 'Playback position' });
        await expect
          .poll(async () => Number(await slider.getAttribute('aria-valuenow')), WAIT)
          .toBe(Math.round(opened[matching]!.offsetMs / 1000));
        // Paused there: the player offers Play.
        await page.getByRole('button', { name: 'Play', exact: true }).waitFor();
      },
      90_000,
    );

    it('a notification’s click opens the record the conversation became', async () => {
      // The system's notifications, as the page sees them: granted, and kept to be clicked.
      // (A string: the page runs it as written, with nothing of the test's compiled module.)
      await page.addInitScript(`
      const shown = [];
      globalThis.shownNotifications = shown;
      globalThis.Notification = class {
        static permission = 'granted';
        static requestPermission() { return Promise.resolve('granted'); }
        constructor(title, options) { this.title = title; this.options = options; this.onclick = null; shown.push(this); }
        close() {}
      };
    `);
      await page.goto(`${origin}/#review`);
      // A page loaded anew, so the script above runs before Earmark's.
      await page.reload();
      await page.getByRole('heading', { name: 'Review' }).waitFor();

      // A consult of Surgery Prep (never made into conversations by the demo), created here.
      const day = busyDay();
      const { startMs } = dayRange(day);
      const consult = simulateDay(
        new ClipBank('resources'),
        { id: SURGERY_PREP.id, offAtNight: SURGERY_PREP.offAtNight },
        localDayStart(startMs + 12 * 3_600_000),
      ).consults[0]!;
      const ref = await app
        .invoke<{ conversation: { conversationId: string } }>('hub.create', {
          deviceId: SURGERY_PREP.id,
          startMs: consult.startMs,
          endMs: consult.endMs,
        })
        .then((created) => ({
          deviceId: SURGERY_PREP.id,
          conversationId: created.conversation.conversationId,
        }));
      await app.invoke('hub.complete', ref);
      await app.invoke('conversations.follow', ref);

      const told = () =>
        page.evaluate<{ title: string } | null>(
          '(window.shownNotifications ?? [])[0] ? { title: window.shownNotifications[0].title } : null',
        );
      await expect.poll(told, { timeout: 60_000 }).toEqual({ title: 'Conversation processed' });
      await page.evaluate('globalThis.shownNotifications[0].onclick()');
      await page.getByRole('heading', { name: 'About this recording' }).waitFor();
      const record = await app.invoke<{ value: Label }>('conversations.record', ref);
      expect(page.url()).toContain(`#record/${record.value.id}`);
    }, 120_000);
  },
);

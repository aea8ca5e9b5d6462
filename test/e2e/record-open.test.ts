import { announceSkip } from '../support/skip';
import type { Page, WebSocket } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import {
  chromiumProblem,
  DIALECTS,
  openAppOnEmbeddedDemo,
  type AppOnEmbeddedDemo,
} from './support';

const problem = announceSkip('the tests of test/e2e/record-open.test.ts', chromiumProblem());
const WAIT = { timeout: 30_000, interval: 100 };

/**
 * The calls the page sends over the browser shell's WebSocket (the renderer's IPC), by channel,
 * and how many are still unanswered.
 */
function countCalls(page: Page) {
  const sent: { id: number; channel: string }[] = [];
  const answered = new Set<number>();
  const follow = (socket: WebSocket) => {
    socket.on('framesent', ({ payload }) => {
      const call = JSON.parse(String(payload)) as { id?: unknown; channel?: unknown };
      if (typeof call.id === 'number' && typeof call.channel === 'string')
        sent.push({ id: call.id, channel: call.channel });
    });
    socket.on('framereceived', ({ payload }) => {
      const message = JSON.parse(String(payload)) as { id?: unknown };
      if (typeof message.id === 'number') answered.add(message.id);
    });
  };
  page.on('websocket', follow);
  return {
    /** Counts from now on (what came before is forgotten). */
    start() {
      sent.length = 0;
      answered.clear();
    },
    unanswered: () => sent.filter(({ id }) => !answered.has(id)).length,
    /**
     * Calls by channel, up to the record's first review mark (after a few seconds in view; a mark
     * reads the record's review again, by design).
     */
    byChannel() {
      const counts: Record<string, number> = {};
      for (const { channel } of sent) {
        if (channel === 'review.mark') break;
        counts[channel] = (counts[channel] ?? 0) + 1;
      }
      return counts;
    },
  };
}

/**
 * Opening a record sends each of the record screen's calls once (issue 31: `audio.prepare` and
 * `labels.get` went twice each), counted as Chromium sends them over the shell's WebSocket.
 */
describe.skipIf(problem !== undefined).each(DIALECTS)(
  'opening a record (browser shell, demo clinic, %s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let page: Page;
    let calls: ReturnType<typeof countCalls>;

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo(`record-open-${dialect}`, { dialect });
      page = app.page;
      calls = countCalls(page);
      // The page's socket opened before the counter listened: a fresh load opens a new one.
      await page.reload();
      await page.getByRole('link', { name: 'Recordings' }).waitFor();
    }, 120_000);
    afterAll(async () => {
      await app?.close();
    });

    /** Waits until the record's screen has settled: its player ready, its keep box known, every call answered. */
    async function settled() {
      await page.getByRole('heading', { name: 'About this recording' }).waitFor();
      const player = page.getByRole('region', { name: 'Audio' });
      await player
        .getByRole('slider', { name: 'Playback position' })
        .or(player.getByText('This recording has no audio.'))
        .waitFor();
      await expect
        .poll(() => page.getByRole('checkbox', { name: 'Keep on this computer' }).isEnabled(), WAIT)
        .toBe(true);
      await expect.poll(() => calls.unanswered(), WAIT).toBe(0);
    }

    /** Each call once but the peaks, which are asked for again while the file fills. */
    function expectEachOnce() {
      const { 'audio.waveform': _peaks, ...counts } = calls.byChannel();
      expect(counts).toMatchObject({ 'labels.get': 1, 'audio.prepare': 1, 'retention.isKept': 1 });
      for (const [channel, count] of Object.entries(counts))
        expect({ channel, count }).toEqual({ channel, count: 1 });
    }

    it('from its row in Recordings', async () => {
      await page.getByRole('link', { name: 'Recordings' }).click();
      const row = page
        .getByRole('grid', { name: 'Recordings' })
        .getByRole('row')
        .filter({ has: page.getByRole('checkbox') })
        .first();
      await row.waitFor();
      calls.start();
      await row.getByRole('gridcell').nth(1).click();
      await settled();
      expectEachOnce();
    });

    it('from its address, typed on another screen (the browser says popstate and hashchange)', async () => {
      const { organizationId } = app.demo.credentials.primary;
      const [label] = (
        await app.demo.get<Label[]>(`/organizations/${organizationId}/labels?limit=1`)
      ).body;
      const hash = `#record/${label!.id}`;
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByRole('navigation', { name: 'Settings sections' }).waitFor();
      await expect.poll(() => calls.unanswered(), WAIT).toBe(0);
      calls.start();
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await settled();
      expectEachOnce();
    });
  },
);

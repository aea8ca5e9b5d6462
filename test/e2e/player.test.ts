import { announceSkip } from '../support/skip';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { DemoService } from './demo-service';
import {
  chromiumProblem,
  DIALECTS,
  msOf,
  openAppOnEmbeddedDemo,
  type AppOnEmbeddedDemo,
} from './support';

const problem = announceSkip('the tests of test/e2e/player.test.ts', chromiumProblem());

/** Code run in the page, as source text: this project's TypeScript has no DOM types. */
const inPage = {
  /**
   * The player's waveform as drawn: of the columns of wavesurfer's canvases (in its shadow
   * root), the fraction holding a painted pixel, and how many canvases there are.
   */
  paintedColumns: `(() => {
    const host = document.querySelector('.player .wave > div');
    const canvases = [...(host?.shadowRoot?.querySelectorAll('canvas') ?? [])];
    let columns = 0;
    let painted = 0;
    for (const canvas of canvases) {
      if (!canvas.width || !canvas.height) continue;
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      for (let x = 0; x < canvas.width; x++) {
        columns++;
        for (let y = 0; y < canvas.height; y++) {
          if (data[(y * canvas.width + x) * 4 + 3] > 0) { painted++; break; }
        }
      }
    }
    return { canvases: canvases.length, fraction: columns ? painted / columns : 0 };
  })()`,
  /**
   * Installed before the page's own code: every media element the page gives a source, what it
   * was (its tag, whether its source was made in the page), when (against the first paint),
   * whether it was ever audible (playing unmuted, above volume 0), and whether it let go of its
   * media afterwards. Read as globalThis.watchedMedia.
   */
  watchMedia: `(() => {
    const watched = [];
    globalThis.watchedMedia = watched;
    const src = Object.getOwnPropertyDescriptor(HTMLMediaElement.prototype, 'src');
    const known = new WeakSet();
    Object.defineProperty(HTMLMediaElement.prototype, 'src', {
      ...src,
      set(value) {
        if (!known.has(this)) {
          known.add(this);
          const paint = performance.getEntriesByName('first-paint')[0];
          const seen = {
            tag: this.tagName,
            blob: String(value).startsWith('blob:'),
            afterFirstPaint: paint !== undefined && paint.startTime <= performance.now(),
            played: false,
            audible: false,
            released: false,
          };
          watched.push(seen);
          const hear = () => {
            if (!this.paused && !this.muted && this.volume > 0) seen.audible = true;
          };
          this.addEventListener('playing', () => { seen.played = true; hear(); });
          this.addEventListener('volumechange', hear);
          // Holds no media any more: nothing loaded, nothing loading.
          const release = () => {
            seen.released =
              this.paused && this.networkState === HTMLMediaElement.NETWORK_EMPTY &&
              this.readyState === HTMLMediaElement.HAVE_NOTHING;
          };
          this.addEventListener('emptied', () => setTimeout(release, 0));
        }
        src.set.call(this, value);
      },
    });
  })()`,
};

describe.skipIf(problem !== undefined).each(DIALECTS)(
  'playing a recording (browser shell, demo clinic, %s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let page: Page;
    let demo: DemoService;
    let wavLabel: string;
    let silentLabel: string;
    let hubLabel: Label;

    beforeAll(async () => {
      app = await openAppOnEmbeddedDemo(`player-${dialect}`, { dialect });
      ({ page, demo } = app);
      const orgId = demo.credentials.primary.organizationId;
      const consults = await demo.get<Label[]>(
        `/organizations/${orgId}/labels?types=ClinicConversation&limit=5`,
      );
      wavLabel = consults.body[0]!.id;
      const aggregates = await demo.get<Label[]>(
        `/organizations/${orgId}/labels?types=AggregateLabel&limit=1`,
      );
      silentLabel = aggregates.body[0]!.id;
      const hub = await demo.get<Label[]>(`/organizations/${orgId}/labels?types=HubMic&limit=1`);
      hubLabel = hub.body[0]!;
    }, 90_000);
    afterAll(async () => {
      await app?.close();
    });

    it('draws the waveform from main’s peaks, plays (its time goes on), and seeks with the keyboard', async () => {
      await page.evaluate(`location.hash = "#record/${wavLabel}"`);
      const position = page.getByRole('slider', { name: 'Playback position' });
      await position.waitFor({ timeout: 30_000 });
      await expect(position.getAttribute('aria-valuemax')).resolves.not.toBe('0');
      // Drawn: wavesurfer's canvases (in its shadow root) hold bars across the width.
      await expect
        .poll(() => page.evaluate(inPage.paintedColumns), { timeout: 30_000 })
        .toMatchObject({ fraction: expect.toSatisfy((f: number) => f > 0.3) as number });
      const now = async () => Number(await position.getAttribute('aria-valuenow'));
      expect(await now()).toBe(0);
      await page.getByRole('button', { name: 'Play' }).click();
      await page.getByRole('button', { name: 'Pause' }).waitFor();
      // The media plays: its time (the slider follows the element's timeupdate) goes on.
      await expect.poll(now, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
      await page.getByRole('button', { name: 'Pause' }).click();
      const paused = await now();
      await page.getByRole('button', { name: 'Play' }).waitFor();
      expect(await now()).toBe(paused);
      await position.focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      await expect
        .poll(async () => Number(await position.getAttribute('aria-valuenow')))
        .toBeGreaterThanOrEqual(10);
      await page.keyboard.press('ArrowLeft');
      await expect
        .poll(async () => Number(await position.getAttribute('aria-valuenow')))
        .toBeLessThan(10);
    }, 60_000);

    it('shows the wall clock on the axis of a hub record, and the audio time on others', async () => {
      const axisLabels = () =>
        page.locator('.axis .axis-label').allTextContents() as Promise<string[]>;
      await page.evaluate(`location.hash = "#record/${hubLabel.id}"`);
      await page.getByRole('heading', { name: 'Audio' }).waitFor();
      // Labels fall on round clock times from the record's start: one of its first minutes, or
      // of its first seconds when the record is short (the demo's hubs make some as it runs).
      const fromMs = msOf(hubLabel.fromTime);
      const firstTimes = (await page.evaluate(
        `[...Array.from({ length: 31 }, (_, k) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(Math.ceil(${fromMs} / 60000) * 60000 + k * 60000)),
          ...Array.from({ length: 300 }, (_, k) => new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(Math.ceil(${fromMs} / 1000) * 1000 + k * 1000))]`,
      )) as string[];
      await expect
        .poll(async () => (await axisLabels())[0] ?? '', { timeout: 30_000 })
        .toSatisfy((first: string) => firstTimes.includes(first));
      await page.evaluate(`location.hash = "#record/${wavLabel}"`);
      await expect.poll(async () => (await axisLabels())[0], { timeout: 30_000 }).toBe('0:00');
    }, 60_000);

    it('warms the media pipeline once after the first paint, without a sound, and lets it go', async () => {
      // A page of its own, loaded anew, so the watch is installed before Earmark's code runs.
      const fresh = await app.context.newPage();
      try {
        await fresh.addInitScript(inPage.watchMedia);
        await fresh.goto(app.shell.url);
        await fresh.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 30_000 });
        const watched = () => fresh.evaluate('globalThis.watchedMedia');
        const warmUp = {
          tag: 'VIDEO', // muted, it may play without a gesture
          blob: true,
          afterFirstPaint: true,
          played: true,
          audible: false,
          released: true,
        };
        await expect.poll(watched, { timeout: 20_000 }).toEqual([warmUp]);
        // Other screens of the same page start no other.
        await fresh.evaluate('location.hash = "#recordings"');
        await fresh.getByRole('heading', { name: 'Recordings' }).waitFor();
        await fresh.evaluate('location.hash = "#conversations"');
        await fresh.getByRole('heading', { name: 'Conversations' }).waitFor();
        expect(await watched()).toEqual([warmUp]);
      } finally {
        await fresh.close();
      }
    }, 60_000);

    it('says plainly when a recording has no audio', async () => {
      await page.evaluate(`location.hash = "#record/${silentLabel}"`);
      await page.getByText('This recording has no audio.').waitFor({ timeout: 30_000 });
    });
  },
);

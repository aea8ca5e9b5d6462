import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceSkip } from '../support/skip';
import { chromiumProblem, launchChromium } from './support';

const problem = announceSkip('how the tests start Chromium', chromiumProblem());

/** The names a command line's `--disable-features` switches turn off, switch by switch. */
const disabledBySwitches = (commandLine: string): string[][] =>
  [...commandLine.matchAll(/--disable-features=(\S+)/g)].map((match) => match[1]!.split(','));

describe.skipIf(problem !== undefined)('Chromium as the tests and benchmarks start it', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('keeps off every feature its command line turns off, Playwright’s and the address bar’s', async () => {
    const page = await browser.newPage();
    try {
      // Chromium's own account of its start: the command line it was given, and the features
      // it took from it ("Command-line variations": base64 JSON).
      await page.goto('chrome://version');
      const commandLine = (await page.locator('#command_line').textContent()) ?? '';
      const variations = (await page.locator('#variations-cmd').getAttribute('data-value')) ?? '';
      const applied = JSON.parse(Buffer.from(variations, 'base64').toString('utf8')) as {
        'disable-features'?: string;
      };
      const turnedOff = new Set((applied['disable-features'] ?? '').split(','));

      // Playwright's switch, then ours: Chromium keeps only the last, so ours must repeat it.
      const leftOn = disabledBySwitches(commandLine)
        .flat()
        .filter((name) => !turnedOff.has(name));
      expect(leftOn, 'features asked off on the command line but left on').toEqual([]);
      expect([...turnedOff]).toEqual(
        expect.arrayContaining(['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup']),
      );
    } finally {
      await page.close();
    }
  }, 60_000);
});

import { announceSkip } from '../support/skip';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumProblem, launchChromium, startShellProcess, type ShellProcess } from './support';

const problem = announceSkip('the tests of test/e2e/csp.test.ts', chromiumProblem());

/** Code run in the page, as source text: this project's TypeScript has no DOM types. */
const inPage = {
  /** Appends an element and waits for it to load or fail (or 1 s for elements without events). */
  appendElement: (tag: string, properties: Record<string, string>) => `new Promise((resolve) => {
    const element = document.createElement(${JSON.stringify(tag)});
    Object.assign(element, ${JSON.stringify(properties)});
    element.onload = resolve;
    element.onerror = resolve;
    setTimeout(resolve, 1000);
    document.body.append(element);
  })`,
};

describe.skipIf(problem !== undefined)(
  "the renderer's Content-Security-Policy, enforced by Chromium",
  () => {
    let dataDir: string;
    let browser: Browser;
    let shell: ShellProcess;
    let page: Page;
    let foreign: Server;
    let foreignOrigin: string;
    const violations: string[] = [];

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'earmark-csp-'));
      foreign = createServer((_req, res) =>
        res.writeHead(200, { 'access-control-allow-origin': '*' }).end('window.__foreign = true;'),
      );
      await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
      foreignOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
      browser = await launchChromium();
      shell = await startShellProcess(['--data', dataDir]);
      page = await browser.newPage();
      page.on('console', (message) => {
        if (message.text().includes('Content Security Policy')) violations.push(message.text());
      });
      await page.goto(shell.url);
      await page.getByRole('heading', { name: 'Welcome to Earmark' }).waitFor();
    }, 60_000);
    afterAll(async () => {
      await browser?.close();
      await shell?.stop();
      foreign?.close();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('blocks inline script', async () => {
      await page.evaluate(
        inPage.appendElement('script', { textContent: 'window.__inline = true;' }),
      );
      await expect(page.evaluate('window.__inline === true')).resolves.toBe(false);
      expect(violations.some((v) => v.includes('script-src'))).toBe(true);
    });

    it('blocks script from a foreign origin', async () => {
      await page.evaluate(inPage.appendElement('script', { src: `${foreignOrigin}/evil.js` }));
      await expect(page.evaluate('window.__foreign === true')).resolves.toBe(false);
    });

    it('blocks connections to a foreign origin', async () => {
      const outcome = await page.evaluate(
        (url) =>
          fetch(url).then(
            () => 'connected',
            () => 'blocked',
          ),
        foreignOrigin,
      );
      expect(outcome).toBe('blocked');
      expect(violations.some((v) => v.includes('connect-src'))).toBe(true);
    });

    it('blocks framing another page', async () => {
      const before = violations.length;
      await page.evaluate(inPage.appendElement('iframe', { src: foreignOrigin }));
      await expect
        .poll(() => violations.slice(before).some((v) => /frame-src|default-src/.test(v)))
        .toBe(true);
    });
  },
);

import { announceSkip } from '../support/skip';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumProblem, launchChromium, startShellProcess, type ShellProcess } from './support';

const problem = announceSkip('browser end-to-end tests', chromiumProblem());

describe.skipIf(problem !== undefined)('the browser shell in Chromium', () => {
  let dataDir: string;
  let browser: Browser;
  let shell: ShellProcess;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-'));
    browser = await launchChromium();
    shell = await startShellProcess(['--data', dataDir]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await shell?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens the demo clinic from the first screen and shows its organization', async () => {
    const page = await browser.newPage();
    await page.goto(shell.url);
    expect(new URL(page.url()).searchParams.has('token')).toBe(false);
    await page.getByRole('heading', { name: 'Welcome to Earmark' }).waitFor();
    await page.getByRole('button', { name: 'Open the demo clinic' }).click();
    const organization = page.getByRole('combobox', { name: 'Organization' });
    await organization.waitFor({ timeout: 45_000 });
    await expect(organization.locator('option:checked').textContent()).resolves.toContain(
      'Riverside Veterinary Clinic',
    );
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { level: 1, name: 'Riverside Veterinary Clinic' }).waitFor();
    await expect(
      page.getByRole('region', { name: 'Subscription' }).textContent(),
    ).resolves.toContain('Hub');
    await page.getByRole('button', { name: 'Run diagnostics' }).click();
    const results = page.getByRole('list', { name: 'Diagnostic results' });
    await results.waitFor();
    await expect(results.textContent()).resolves.toContain('Conversations exist');
    await page.close();
  }, 90_000);

  it('opens straight on the demo clinic with --demo, on a restart over the same data', async () => {
    const again = await startShellProcess(['--data', dataDir, '--demo']);
    try {
      const page = await browser.newPage();
      await page.goto(again.url);
      await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 30_000 });
      const organization = page.getByRole('combobox', { name: 'Organization' });
      await expect(organization.locator('option:checked').textContent()).resolves.toContain(
        'Riverside Veterinary Clinic',
      );
      await page.close();
    } finally {
      await again.stop();
    }
  }, 60_000);

  it('refuses a request without the token', async () => {
    const page = await browser.newPage();
    const response = await page.goto(new URL('/', shell.url).href);
    expect(response?.status()).toBe(401);
    await expect(page.textContent('body')).resolves.toContain('token is missing');
    await page.close();
  });

  it('refuses a page of another origin, even in a browser that holds the cookie', async () => {
    const foreign: Server = createServer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>elsewhere</title>'),
    );
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(shell.url); // the context now holds the shell's cookie
      await page.goto(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`);
      const shellPort = new URL(shell.url).port;
      const outcome = await page.evaluate(
        (port) =>
          new Promise<string>((resolve) => {
            const ws = new WebSocket(`ws://127.0.0.1:${port}/rpc`);
            ws.onopen = () => resolve('opened');
            ws.onerror = () => resolve('refused');
          }),
        shellPort,
      );
      expect(outcome).toBe('refused');
      const read = await page.evaluate(
        (port) =>
          fetch(`http://127.0.0.1:${port}/`, { credentials: 'include' }).then(
            (r) => r.text(),
            () => 'blocked',
          ),
        shellPort,
      );
      expect(read).toBe('blocked');
    } finally {
      await context.close();
      foreign.close();
    }
  });
});

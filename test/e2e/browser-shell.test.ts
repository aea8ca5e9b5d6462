import { announceSkip } from '../support/skip';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserArguments, writeLaunchPage } from '../../src/main/web/launch-page';
import { until } from '../service/poll';
import {
  CHROMIUM_PATH,
  chromiumProblem,
  launchChromium,
  startShellProcess,
  type ShellProcess,
} from './support';

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

  it('opened without the token, says where to open it, and reaches nothing', async () => {
    const page = await browser.newPage();
    const response = await page.goto(new URL('/', shell.url).href);
    expect(response?.status()).toBe(200);
    await page.getByRole('heading', { name: 'Open Earmark from the address it printed' }).waitFor();
    await page.close();
  });

  it('keeps the token in the app’s origin: no cookie, nothing another local server receives, and its page cannot drive the shell', async () => {
    const token = new URL(shell.url).searchParams.get('token')!;
    const received: string[] = [];
    const foreign: Server = createServer((req, res) => {
      received.push(`${req.method} ${req.url}\n${JSON.stringify(req.headers)}`);
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>elsewhere</title>');
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(shell.url);
      // The first screen (the demo clinic was opened by the first test).
      await page.getByRole('heading', { name: 'Hub timeline' }).waitFor();
      // Out of the address bar; in no cookie (cookies ignore ports).
      expect(page.url()).not.toContain(token);
      expect(await context.cookies()).toEqual([]);
      await page.goto(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`);
      await page.evaluate(() => fetch('/probe', { credentials: 'include' }));
      expect(received.length).toBeGreaterThanOrEqual(2);
      expect(received.join('\n')).not.toContain(token);
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

  it('starts the browser on a launch page of this user’s alone, so the token is not in its command line', async () => {
    const token = new URL(shell.url).searchParams.get('token')!;
    const launch = writeLaunchPage(dataDir, shell.url);
    try {
      const args = browserArguments(launch.url, join(dataDir, 'profile'));
      expect(args.join(' ')).not.toContain(token);
      expect(args[0]).toBe(`--app=${launch.url}`);
      expect(statSync(fileURLToPath(launch.url)).mode & 0o777).toBe(0o600);
      // The page sends the browser on to the app.
      const page = await browser.newPage();
      await page.goto(launch.url);
      await page.getByRole('heading', { name: 'Hub timeline' }).waitFor();
      expect(new URL(page.url()).origin).toBe(new URL(shell.url).origin);
      await page.close();
    } finally {
      launch.remove();
    }
  });

  it('removes the launch page once the browser has opened the app from it, and a crash’s at the next start', async () => {
    const ownData = mkdtempSync(join(tmpdir(), 'earmark-e2e-launch-'));
    const launchPage = join(ownData, 'open-earmark.html');
    // The Chromium the shell starts, headless here: the app window's page given as its address.
    const pidFile = join(ownData, 'chromium.pid');
    const wrapper = join(ownData, 'chromium');
    writeFileSync(
      wrapper,
      [
        '#!/bin/bash',
        `echo $$ > ${JSON.stringify(pidFile)}`,
        'args=()',
        'for a in "$@"; do if [[ $a == --app=* ]]; then args+=("${a#--app=}"); else args+=("$a"); fi; done',
        `exec ${JSON.stringify(CHROMIUM_PATH)} --headless --no-sandbox --disable-gpu "\${args[@]}"`,
        '',
      ].join('\n'),
      { mode: 0o700 },
    );
    // What a crashed run left: a launch page that nothing opened.
    writeFileSync(launchPage, '<!doctype html><title>left by a crash</title>');
    const opened = await startShellProcess(['--data', ownData], {
      open: true,
      env: { ...process.env, CHROMIUM_PATH: wrapper },
    });
    try {
      await until(() => existsSync(pidFile), Boolean, 30_000);
      // The browser came to the app (its first request with the token): the page is gone.
      await until(
        () => existsSync(launchPage),
        (present) => !present,
        30_000,
      );
      // SIGHUP (the terminal closed) stops the shell as SIGINT and SIGTERM do.
      const exited = new Promise<number | null>((resolve) =>
        opened.child.once('exit', (code) => resolve(code)),
      );
      opened.child.kill('SIGHUP');
      expect(await exited).toBe(0);
    } finally {
      await opened.stop();
      if (existsSync(pidFile)) process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGTERM');
    }
    // A crash's page, from a run that never opened: the next start removes it.
    writeFileSync(launchPage, '<!doctype html><title>left by a crash</title>');
    const again = await startShellProcess(['--data', ownData]);
    try {
      expect(existsSync(launchPage)).toBe(false);
    } finally {
      await again.stop();
      rmSync(ownData, { recursive: true, force: true });
    }
  }, 90_000);

  it('says when Earmark has stopped, and when a later run refuses this window’s token', async () => {
    const port = await freePort();
    const ownData = mkdtempSync(join(tmpdir(), 'earmark-e2e-'));
    const first = await startShellProcess(['--data', ownData, '--port', String(port)]);
    let second: ShellProcess | undefined;
    const page = await browser.newPage();
    try {
      await page.goto(first.url);
      await page.getByRole('heading', { name: 'Welcome to Earmark' }).waitFor();
      await first.stop();
      const stopped = page.getByRole('alert').filter({ hasText: 'Earmark has stopped' });
      await stopped.waitFor();
      // A later run on the same address makes a new token: this window's cannot open it.
      second = await startShellProcess(['--data', ownData, '--port', String(port)]);
      await page.getByText('opened by an earlier run of Earmark').waitFor({ timeout: 15_000 });
      expect(await stopped.count()).toBe(0);
      expect(await page.evaluate("localStorage.getItem('earmark.shell-token')")).toBeNull();
      // The address the new run printed opens it.
      await page.goto(second.url);
      await page.getByRole('heading', { name: 'Welcome to Earmark' }).waitFor();
    } finally {
      await page.close();
      await first.stop();
      await second?.stop();
      rmSync(ownData, { recursive: true, force: true });
    }
  }, 60_000);
});

/** A port nothing listens on now (the OS's pick, released at once). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

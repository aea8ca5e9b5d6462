import { filesHolding } from '../support/files';
import { announceSkip } from '../support/skip';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { AccountSummary, PreparedAudio } from '../../src/shared/ipc';
import { browserProfileDir } from '../../src/main/web/browser-profile';
import {
  CHROMIUM_ARGS,
  CHROMIUM_PATH,
  chromiumProblem,
  invokeOverShell,
  launchDemoService,
  startShellProcess,
  type DemoServiceProcess,
  type ShellProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/account-removal.test.ts', chromiumProblem());

/**
 * Removing an account leaves nothing of it in the data folder (issue 26), the browser shell's
 * own Chromium profile included: the app window runs on <data>/browser-shell-profile, and its
 * disk cache is where a browser keeps the audio it played.
 */
describe.skipIf(problem !== undefined)('removing an account in the browser shell', () => {
  let dataDir: string;
  let serviceDir: string;
  let demo: DemoServiceProcess;
  let shell: ShellProcess;
  let context: BrowserContext;
  let page: Page;

  const invoke = <T>(channel: string, input: unknown) =>
    invokeOverShell<T>(shell.url, channel, input);

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-removal-'));
    serviceDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-removal-service-'));
    demo = await launchDemoService(serviceDir);
    shell = await startShellProcess(['--data', dataDir]);
    // The profile the shell opens its window on (npm run web without --no-open).
    context = await chromium.launchPersistentContext(browserProfileDir(dataDir), {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_ARGS,
    });
    page = context.pages()[0] ?? (await context.newPage());
  }, 90_000);
  afterAll(async () => {
    await context?.close();
    await shell?.stop();
    await demo?.service.kill();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(serviceDir, { recursive: true, force: true });
  });

  it('clears what its Chromium profile kept of the audio it played', async () => {
    const account = await invoke<AccountSummary>('accounts.add', {
      baseUrl: demo.baseUrl,
      apiKey: demo.credentials.primary.apiKey,
      sessionOnly: true,
    });
    await page.goto(shell.url);
    await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    const { organizationId } = demo.credentials.primary;
    const [label] = (await (
      await fetch(
        `${demo.baseUrl}/organizations/${organizationId}/labels?types=ClinicConversation&limit=1`,
        { headers: { authorization: `Bearer ${demo.credentials.primary.apiKey}` } },
      )
    ).json()) as Label[];
    const recording = Buffer.from(
      await (
        await fetch(`${demo.baseUrl}/labels/${label!.id}/audio`, {
          headers: { authorization: `Bearer ${demo.credentials.primary.apiKey}` },
        })
      ).arrayBuffer(),
    );
    // An earlier version of the shell (another launch, another port) served it `no-cache`, so
    // this profile's disk cache kept it.
    const earlier = createServer((request, response) => {
      const isMedia = request.url?.startsWith(`/media/${label!.id}`);
      response.writeHead(200, {
        'content-type': isMedia ? 'audio/wav' : 'text/html',
        'cache-control': 'no-cache',
      });
      response.end(isMedia ? recording : '<!doctype html><title>an earlier Earmark</title>');
    });
    await new Promise<void>((resolve) => earlier.listen(0, '127.0.0.1', resolve));
    const earlierPage = await context.newPage();
    try {
      await earlierPage.goto(`http://127.0.0.1:${(earlier.address() as AddressInfo).port}/`);
      await earlierPage.evaluate(
        async (src) => void (await (await fetch(src)).arrayBuffer()),
        `/media/${label!.id}?cap=earlier`,
      );
    } finally {
      await earlierPage.close();
      earlier.close();
    }

    // This version: played in the app's window, the whole file through its <audio>.
    const prepared = await invoke<PreparedAudio>('audio.prepare', { labelId: label!.id });
    // (Source text: this project's TypeScript has no DOM types.)
    await page.evaluate(`new Promise((resolve, reject) => {
      const audio = new Audio(${JSON.stringify(prepared.mediaUrl)});
      audio.preload = 'auto';
      audio.muted = true;
      audio.onerror = () => reject(new Error('the audio did not load: ' + audio.error?.code));
      audio.oncanplaythrough = () => {
        audio.oncanplaythrough = null;
        audio.onseeked = () => resolve();
        audio.currentTime = Math.max(0, audio.duration - 1);
      };
      document.body.append(audio);
    })`);
    // Bytes of the recording well past its header, and the address it was played from.
    const needles = [recording.subarray(20_000, 20_064), Buffer.from(`media/${label!.id}`)];
    const profile = browserProfileDir(dataDir);
    await expect.poll(() => filesHolding(profile, needles), { timeout: 20_000 }).not.toEqual([]);

    await invoke('accounts.remove', { accountId: account.id });
    expect(filesHolding(dataDir, [...needles, Buffer.from(account.id)])).toEqual([]);
  }, 120_000);
});

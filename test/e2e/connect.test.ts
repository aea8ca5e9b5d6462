import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceSkip } from '../support/skip';
import {
  chromiumProblem,
  launchDemoService,
  openAppInChromium,
  type AppInChromium,
  type DemoServiceProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/connect.test.ts', chromiumProblem());

/**
 * Connecting with a key that cannot reach every area (issue 20): the app says so at once, in
 * plain words, and Settings keeps saying it — rather than accepting it silently and letting the
 * screens fail later.
 */
describe.skipIf(problem !== undefined)('connecting with a scoped key, in Chromium', () => {
  let serviceDir: string;
  let demo: DemoServiceProcess;
  let app: AppInChromium;
  let scopedKey: string;

  beforeAll(async () => {
    serviceDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-connect-service-'));
    demo = await launchDemoService(serviceDir);
    // A key for recordings and the hub only, made as an admin makes one (session login).
    const { admin } = demo.credentials;
    const login = await fetch(`${demo.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: admin.email, password: admin.password }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const created = await fetch(`${demo.baseUrl}/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({
        name: 'Front desk',
        organizationId: admin.organizationId,
        allowedFeatures: ['labels', 'hub'],
      }),
    });
    expect(created.status).toBe(201);
    scopedKey = ((await created.json()) as { key: string }).key;
    app = await openAppInChromium('connect', { defaultTimeoutMs: 20_000 });
  }, 90_000);
  afterAll(async () => {
    await app?.browser.close();
    await app?.shell.stop();
    await demo?.service.kill();
    if (app) rmSync(app.dataDir, { recursive: true, force: true });
    rmSync(serviceDir, { recursive: true, force: true });
  });

  it('says at connect what the key cannot use, and Settings keeps saying it', async () => {
    const { page } = app;
    await page.getByRole('heading', { name: 'Welcome to Earmark' }).waitFor();
    const form = page.getByRole('form', { name: 'Connect to your clinic' });
    await form.getByLabel('Service address').fill(demo.baseUrl);
    await form.getByLabel('API key').fill(scopedKey);
    await form.getByRole('button', { name: 'Connect' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Connected to' });
    await notice.waitFor();
    const said = (await notice.textContent()) ?? '';
    expect(said).toContain('cannot use Follow-ups');
    expect(said).toContain('Webhooks');
    expect(said).not.toContain('Recordings (');
    await notice.getByRole('button', { name: 'OK' }).click();
    await expect(notice.count()).resolves.toBe(0);

    await page.getByRole('link', { name: 'Settings' }).click();
    const reach = page.getByRole('region', { name: 'What this key can do' });
    await reach.waitFor();
    const items = await reach.getByRole('listitem').allTextContents();
    expect(items.find((item) => item.includes('Recordings'))).toMatch(/^Can use/);
    expect(items.find((item) => item.includes('Follow-ups'))).toMatch(/^Cannot use/);
  }, 60_000);
});

import { announceSkip } from '../support/skip';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Label, TaskBoard } from '../../src/shared/api';
import type { SyncStatus } from '../../src/shared/ipc';
import { STAFF } from '../../src/service/demo/dialogue';
import {
  chromiumProblem,
  DIALECTS,
  launchDemoService,
  openAppInChromium,
  type AppInChromium,
  type DemoServiceProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/review-sign-off.test.ts', chromiumProblem());
const WAIT = { timeout: 30_000 };

/**
 * Two desktops of one clinic on one demo service: Earmark in two browser shells, each with its
 * own account (the admin, Owen Gallagher, and the owner, Helen Marsh). A sign-off on one reaches
 * the other through the clinic's task boards at its next sync; turned off, sign-off writes
 * nothing to them.
 */
describe.skipIf(problem !== undefined).each(DIALECTS)('clinic sign-off (%s dialect)', (dialect) => {
  let serviceDir: string;
  let demo: DemoServiceProcess;
  let admin: AppInChromium;
  let owner: AppInChromium;
  let record: Label;

  /** A key of the clinic's owner, made as an owner makes one (session login). */
  async function ownerKey(): Promise<string> {
    const email = STAFF.find((s) => s.role === 'owner')!.email;
    const login = await fetch(`${demo.baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: demo.credentials.admin.password }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const created = await fetch(`${demo.baseUrl}/api-keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({
        name: 'Consult room PC',
        organizationId: demo.credentials.primary.organizationId,
      }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { key: string }).key;
  }

  const serviceGet = async <T>(path: string) =>
    (await (
      await fetch(`${demo.baseUrl}${path}`, {
        headers: { authorization: `Bearer ${demo.credentials.primary.apiKey}` },
      })
    ).json()) as T;
  /** Every task on the clinic's boards. */
  const tasksOnBoards = async () => {
    const { items: boards } = await serviceGet<{ items: TaskBoard[] }>('/task-boards');
    const tasks = await Promise.all(
      boards.map((b) => serviceGet<{ items: unknown[] }>(`/task-boards/${b.id}/tasks?limit=1000`)),
    );
    return { boards: boards.map((b) => b.name), tasks: tasks.flatMap((t) => t.items) };
  };

  async function desktop(name: string, apiKey: string): Promise<AppInChromium> {
    const app = await openAppInChromium(name, { defaultTimeoutMs: 30_000 });
    await app.invoke('accounts.add', { baseUrl: demo.baseUrl, apiKey, sessionOnly: true });
    await app.page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
    return app;
  }

  async function synced(app: AppInChromium): Promise<void> {
    const before = (await app.invoke<SyncStatus>('sync.status', {})).lastSyncAt;
    await app.invoke('sync.run', {});
    await vi.waitUntil(
      async () => {
        const status = await app.invoke<SyncStatus>('sync.status', {});
        return status.state === 'idle' && status.lastSyncAt !== before;
      },
      { timeout: 60_000, interval: 200 },
    );
  }

  const inQueue = (page: Page) =>
    page
      .getByRole('listbox', { name: 'Items to review' })
      .locator(`[data-key="record:${record.id}"]`);

  beforeAll(async () => {
    serviceDir = mkdtempSync(join(tmpdir(), `earmark-e2e-sign-off-${dialect}-`));
    demo = await launchDemoService(serviceDir, ['--dialect', dialect]);
    const { organizationId } = demo.credentials.primary;
    const labels = await serviceGet<Label[]>(
      `/organizations/${organizationId}/labels?types=HubMic&limit=20`,
    );
    record = labels.find((l) => l.patient === null)!;
    admin = await desktop(`sign-off-admin-${dialect}`, demo.credentials.primary.apiKey);
    owner = await desktop(`sign-off-owner-${dialect}`, await ownerKey());
    await Promise.all([synced(admin), synced(owner)]);
  }, 180_000);
  afterAll(async () => {
    for (const app of [admin, owner]) {
      await app?.browser.close();
      await app?.shell.stop();
      if (app) rmSync(app.dataDir, { recursive: true, force: true });
    }
    await demo?.service.kill();
    rmSync(serviceDir, { recursive: true, force: true });
  });

  it('a sign-off on one desktop appears on the other after its sync', async () => {
    const { page } = admin;
    await page.goto(`${new URL(admin.shell.url).origin}/#settings/review`);
    const signOff = page.getByRole('checkbox', { name: /Sign recordings off/ });
    await signOff.check();
    await expect.poll(() => signOff.isChecked(), WAIT).toBe(true);
    await page.getByText(/“Earmark sign-off” board/).waitFor();

    await page.goto(`${new URL(admin.shell.url).origin}/#record/${record.id}`);
    await page.getByRole('button', { name: 'Sign off for the clinic' }).click();
    await page.getByText(/^Signed off by Owen Gallagher/).waitFor();
    const written = await tasksOnBoards();
    expect(written.boards).toEqual(['Earmark sign-off']);
    expect(written.tasks).toEqual([
      expect.objectContaining({
        groupKey: record.id,
        assignee: 'Owen Gallagher',
        linkUrl: `earmark://record/${record.id}`,
      }),
    ]);

    // The other desktop: in its queue until its next sync, then shown as signed off.
    const other = owner.page;
    await other
      .getByRole('navigation', { name: 'Earmark' })
      .getByRole('link', { name: /^Review/ })
      .click();
    await inQueue(other).waitFor();
    await synced(owner);
    await expect.poll(() => inQueue(other).count(), WAIT).toBe(0);
    await other.goto(`${new URL(owner.shell.url).origin}/#record/${record.id}`);
    await other.getByText(/^Signed off by Owen Gallagher/).waitFor();
  }, 120_000);

  it('turned off, sign-off writes nothing to the boards', async () => {
    const { page } = admin;
    const before = await tasksOnBoards();
    await page.goto(`${new URL(admin.shell.url).origin}/#settings/review`);
    const signOff = page.getByRole('checkbox', { name: /Sign recordings off/ });
    await signOff.uncheck();
    await expect.poll(() => signOff.isChecked(), WAIT).toBe(false);
    const { organizationId } = demo.credentials.primary;
    const another = (
      await serviceGet<Label[]>(`/organizations/${organizationId}/labels?types=HubMic&limit=20`)
    ).find((l) => l.patient === null && l.id !== record.id)!;
    await page.goto(`${new URL(admin.shell.url).origin}/#record/${another.id}`);
    await page
      .getByText(/Not reviewed yet|Reviewed by you|Updated since you reviewed it/)
      .waitFor();
    await expect(
      page.getByRole('button', { name: 'Sign off for the clinic' }).count(),
    ).resolves.toBe(0);
    const refused = await admin.invoke('review.signOff', { labelId: another.id }).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refused).toContain('Sign-off is off');
    expect(await tasksOnBoards()).toEqual(before);
  }, 60_000);
});

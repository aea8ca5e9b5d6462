import { announceSkip } from '../support/skip';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { LabelPage, RetentionOverview, Sourced, SyncStatus } from '../../src/shared/ipc';
import { until } from '../service/poll';
import { chromiumProblem, openAppOnDemoService, type AppOnDemoService } from './support';

const problem = announceSkip('the tests of test/e2e/retention.test.ts', chromiumProblem());
const WAIT = { timeout: 30_000, interval: 100 };
const DAY_MS = 24 * 60 * 60 * 1000;

interface ManifestRow {
  labelId: string;
  status: string;
  file: string | null;
  sha256: string | null;
}

/**
 * Retention in Chromium on the demo clinic (issue 29), as a user at the clinic's desk does it: a
 * recording marked "Keep on this computer", an export of a week's clinic recordings started,
 * then text set to one day in Settings, the preview's counts read and "Remove now" pressed, by
 * keyboard. The export completes whole; once it has, the next cleanup removes what it spared;
 * with the service stopped, the Recordings list holds the last day and the kept recording only.
 */
describe.skipIf(problem !== undefined).each([
  { dialect: 'seed', flags: [] as string[] },
  { dialect: 'field', flags: ['--dialect', 'field'] },
])('retention in Chromium (demo clinic, $dialect dialect)', ({ dialect, flags }) => {
  let app: AppOnDemoService;
  let page: Page;
  let exportDir: string;
  let kept: Label;
  /** An old recording no mark keeps. */
  let removed: Label;
  const invoke = <T>(channel: string, input: unknown) => app.invoke<T>(channel, input);
  const cached = async (query: object = {}) =>
    (await invoke<Sourced<LabelPage>>('labels.list', { ...query, limit: 500, source: 'cache' }))
      .value;

  beforeAll(async () => {
    app = await openAppOnDemoService(`retention-${dialect}`, {}, flags);
    page = app.page;
    exportDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-retention-export-'));
    await until(
      () => invoke<SyncStatus>('sync.status', {}),
      (status) => status.state === 'idle' && status.lastSyncAt !== null,
      60_000,
    );
    // The cleanup at start (a minute after the account opened) has run, with the defaults.
    const started = await until(
      () => invoke<RetentionOverview>('retention.overview', {}),
      (overview) => overview.cleanup.last !== null,
      120_000,
    );
    expect(started.cleanup.last).toMatchObject({ records: 0, audioFiles: 0 });
  }, 240_000);
  afterAll(async () => {
    await app?.close();
    if (exportDir) rmSync(exportDir, { recursive: true, force: true });
  });

  it('keeps a recording on this computer from its screen, by keyboard', async () => {
    // A dictation from days ago: older than the day the test keeps.
    const { items } = await cached({
      types: ['DictationAudio'],
      toTime: iso(Date.now() - 3 * DAY_MS),
    });
    [kept, removed] = items as [Label, Label];
    await page.evaluate(`location.hash = '#record/${kept.id}'`);
    const keep = page.getByRole('checkbox', { name: 'Keep on this computer' });
    await expect.poll(() => keep.isEnabled(), WAIT).toBe(true);
    expect(await keep.isChecked()).toBe(false);
    await keep.focus();
    await page.keyboard.press('Space');
    // The box ticks at the key press; it is enabled again once the mark is written.
    await expect
      .poll(async () => (await keep.isChecked()) && (await keep.isEnabled()), WAIT)
      .toBe(true);
    expect(await invoke('retention.isKept', { labelId: kept.id })).toBe(true);
  });

  it('sets text to one day, shows the preview’s counts, and removes; an export under way completes whole', async () => {
    // An export of every clinic recording older than a day, hidden behind the sidebar.
    await page.getByRole('link', { name: 'Recordings' }).click();
    await page.getByRole('group', { name: 'Filters' }).locator('summary').click();
    await page.getByRole('checkbox', { name: /^Clinic recording/ }).check();
    await page.keyboard.press('Escape');
    const exportAll = page.getByRole('button', { name: /^Export all \d[\d,]* matching$/ });
    await expect.poll(() => exportAll.isEnabled(), WAIT).toBe(true);
    const exporting = Number(/\d+/.exec((await exportAll.textContent())!)![0]);
    expect(exporting).toBeGreaterThan(20);
    await exportAll.click();
    const dialog = page.getByRole('dialog', { name: /^Export \d+ recordings$/ });
    await dialog.getByRole('textbox', { name: 'Folder' }).fill(exportDir);
    await dialog.getByRole('button', { name: /^Export \d+ recordings$/ }).click();
    await dialog.getByRole('button', { name: 'Cancel export' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('group', { name: 'Export in progress' }).waitFor();

    // Settings, by keyboard from the sidebar's link.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('link', { name: 'Data on this computer' }).click();
    const text = page.getByRole('combobox', { name: 'Text' });
    await expect.poll(() => text.isEnabled(), WAIT).toBe(true);
    expect(await text.inputValue()).toBe('90');
    await text.focus();
    await text.selectOption({ label: '1 day' });
    const next = page.locator('dl[aria-label="What the next cleanup removes"]');
    await expect.poll(async () => (await next.textContent()) ?? '', WAIT).toMatch(/Kept anyway/);
    // The counts shown are main's preview: the records older than a day, less those kept —
    // the marked one and those the export reads that are older than a day (the demo's hubs
    // make clinic recordings all day: those of the last day are not old).
    const overview = await invoke<RetentionOverview>('retention.overview', {});
    expect(overview.settings.textDays).toBe(1);
    const oldExported = await cached({
      types: ['ClinicConversation'],
      toTime: iso(Date.now() - DAY_MS),
    });
    expect(oldExported.total).toBeGreaterThan(20);
    expect(overview.next.spared).toBeGreaterThanOrEqual(oldExported.total + 1);
    expect(overview.next.records).toBeGreaterThan(50);
    const shownRecords = Number(
      (await next.locator('dd').first().textContent())!.replace(/\(.*\)/, '').replace(/\D/g, ''),
    );
    expect(shownRecords).toBe(overview.next.records);

    const removeNow = page.getByRole('button', { name: 'Remove now' });
    await removeNow.focus();
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .filter({ hasText: /^Removed \d[\d,]* records/ })
      .waitFor({ timeout: 60_000 });

    // The export was not disturbed: it finishes, every file whole (its manifest's SHA-256).
    await page.getByRole('group', { name: 'Export', exact: true }).waitFor({ timeout: 120_000 });
    const [manifest] = readdirSync(exportDir).filter((name) => name === 'manifest.json');
    expect(manifest).toBeDefined();
    const rows = (
      JSON.parse(readFileSync(join(exportDir, manifest!), 'utf8')) as { labels: ManifestRow[] }
    ).labels;
    expect(rows).toHaveLength(exporting);
    for (const row of rows) {
      expect(['exported', 'no_audio']).toContain(row.status);
      if (row.status !== 'exported') continue;
      const file = join(exportDir, row.file!);
      expect(existsSync(file)).toBe(true);
      expect(createHash('sha256').update(readFileSync(file)).digest('hex')).toBe(row.sha256);
    }
    expect(rows.filter((row) => row.status === 'exported').length).toBeGreaterThan(20);
  }, 240_000);

  it('removes what the export spared at the next cleanup; offline, Recordings holds the last day and the kept one', async () => {
    await page.getByRole('button', { name: 'Remove now' }).click();
    await expect
      .poll(async () => (await invoke<RetentionOverview>('retention.overview', {})).next, WAIT)
      .toMatchObject({ records: 0, spared: 1 });
    const removedAt = Date.now();

    await app.service.kill();
    const { items, total } = await cached();
    expect(items.map((l) => l.id)).toContain(kept.id);
    for (const label of items) {
      if (label.id !== kept.id)
        expect(Date.parse(label.fromTime)).toBeGreaterThan(removedAt - DAY_MS - 60_000);
    }
    await page.reload();
    await page.getByRole('link', { name: 'Recordings' }).click();
    await page.getByText('Offline — from the cache.').waitFor();
    await expect
      .poll(async () => (await page.locator('.list-bar .total').textContent()) ?? '', WAIT)
      .toMatch(new RegExp(`^${total.toLocaleString('en-US')} recordings\\s*\\(cached\\)$`));
    expect(items.map((l) => l.id)).not.toContain(removed.id);
    // The kept one opens offline; an old one removed here does not.
    await page.evaluate(`location.hash = '#record/${kept.id}'`);
    await page.getByRole('heading', { name: 'About this recording' }).waitFor();
    await page.evaluate(`location.hash = '#record/${removed.id}'`);
    await page.getByRole('alert').filter({ hasText: 'Could not open the recording' }).waitFor();
  }, 120_000);
});

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

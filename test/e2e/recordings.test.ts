import { announceSkip } from '../support/skip';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';
import type { SyncStatus } from '../../src/shared/ipc';
import type { Launched } from '../service/child-process';
import { until } from '../service/poll';
import { chromiumProblem, openAppOnDemoService, type AppOnDemoService } from './support';

const problem = announceSkip('the tests of test/e2e/recordings.test.ts', chromiumProblem());
const WAIT = { timeout: 20_000, interval: 100 };

/**
 * The Recordings list against the demo clinic, run as its own service process so that the test
 * can stop it: filter, sort and page through the list online; then, with the service gone,
 * reload and browse the cached list and search the cached transcripts.
 */
describe.skipIf(problem !== undefined).each([
  { dialect: 'seed', flags: [] as string[] },
  { dialect: 'field', flags: ['--dialect', 'field'] },
])('the Recordings list in Chromium (demo clinic, $dialect dialect)', ({ dialect, flags }) => {
  let app: AppOnDemoService;
  let service: Launched;
  let baseUrl: string;
  let credentials: DemoCredentials;
  let page: Page;

  const invoke = <T>(channel: string, input: unknown) => app.invoke<T>(channel, input);

  /** GET labels from the service itself, with its X-Total-Count. */
  async function serviceLabels(query: string): Promise<{ items: Label[]; total: number }> {
    const { organizationId, apiKey } = credentials.primary;
    const response = await fetch(`${baseUrl}/organizations/${organizationId}/labels?${query}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(response.status).toBe(200);
    return {
      items: (await response.json()) as Label[],
      total: Number(response.headers.get('x-total-count')),
    };
  }

  const grid = () => page.getByRole('grid', { name: 'Recordings' });
  const typeFilter = () => page.getByRole('group', { name: 'Filters' }).locator('summary');
  /** The loaded rows in the DOM (skeletons have no checkbox). */
  const rows = () =>
    grid()
      .getByRole('row')
      .filter({ has: page.getByRole('checkbox') });
  const cells = (row: Locator) => row.getByRole('gridcell');
  const totalShown = () => page.locator('.list-bar .total');
  const shownTotal = async () => Number((await totalShown().textContent())!.replace(/\D/g, ''));
  /** The text of one column of the first `n` loaded rows. */
  const column = async (index: number, n: number) => {
    const texts: string[] = [];
    for (let i = 0; i < n; i++) {
      texts.push((await cells(rows().nth(i)).nth(index).textContent())!.trim());
    }
    return texts;
  };
  /** Waits until the list shows `total` recordings, loaded. */
  const listShows = async (total: number) => {
    await expect.poll(shownTotal, WAIT).toBe(total);
    await rows().first().waitFor();
  };

  beforeAll(async () => {
    app = await openAppOnDemoService(`recordings-${dialect}`, {}, flags);
    ({ service, baseUrl, credentials, page } = app);
    await page.getByRole('link', { name: 'Recordings' }).click();
    await grid().waitFor();
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('shows the total the service counts', async () => {
    const { total } = await serviceLabels('limit=1');
    expect(total).toBeGreaterThan(200); // more than two pages of 100
    await listShows(total);
    await expect(totalShown().textContent()).resolves.toBe(
      `${total.toLocaleString('en-US')} recordings`,
    );
  });

  it('pages further down the list as it scrolls', async () => {
    const { total, items } = await serviceLabels(`limit=1&offset=${(await shownTotal()) - 1}`);
    await grid().focus();
    await page.keyboard.press('End');
    const last = grid().locator(`[role="row"][aria-rowindex="${total + 1}"]`);
    await last.getByRole('checkbox').waitFor();
    // The oldest recording: far beyond the first page of 100, and only its neighbours are drawn.
    expect(await last.getAttribute('id')).toBe(`recording-row-${total - 1}`);
    await expect(last.getByRole('checkbox').getAttribute('aria-label')).resolves.toContain(
      items[0]!.patient?.name ?? 'no patient',
    );
    expect(await grid().getByRole('row').count()).toBeLessThan(60);
    await page.keyboard.press('Home');
    await grid().locator('[role="row"][aria-rowindex="2"]').getByRole('checkbox').waitFor();
  });

  it('comes back to where the list was, and starts a new filter at the top', async () => {
    const scrolled = () =>
      grid()
        .locator('.scroller')
        .evaluate((element) => element.scrollTop);
    await grid().focus();
    await page.keyboard.press('End');
    await expect.poll(scrolled, WAIT).toBeGreaterThan(1000);
    const at = await scrolled();
    await page.getByRole('link', { name: 'Follow-ups' }).click();
    await grid().waitFor({ state: 'detached' });
    await page.getByRole('link', { name: 'Recordings' }).click();
    await expect.poll(scrolled, WAIT).toBe(at);

    await typeFilter().click();
    await page.getByRole('checkbox', { name: /^Phone call/ }).check();
    await page.keyboard.press('Escape');
    await expect.poll(scrolled, WAIT).toBe(0);
    await typeFilter().click();
    await page.getByRole('button', { name: 'Show every type' }).click();
    // The button is disabled then: focus stays in the list of types, and Escape closes it.
    await page.keyboard.press('Escape');
    await page.getByRole('checkbox', { name: /^Phone call/ }).waitFor({ state: 'hidden' });
    await listShows((await serviceLabels('limit=1')).total);
  });

  it('filters by record type', async () => {
    const { total } = await serviceLabels('types=PhoneCallAudio&limit=1');
    await expect(typeFilter().getAttribute('aria-label')).resolves.toBe('Type: All types');
    await typeFilter().click();
    await page.getByRole('checkbox', { name: /^Phone call/ }).check();
    await page.keyboard.press('Escape');
    await listShows(total);
    expect(new Set(await column(3, Math.min(total, 10)))).toEqual(new Set(['Phone call']));
    // "Export all N matching" hands the export dialog this filter and its total.
    await page.getByRole('button', { name: `Export all ${total} matching` }).click();
    const dialog = page.getByRole('dialog', { name: `Export ${total} recordings` });
    await dialog.getByText('Every recording matching the current filter').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await typeFilter().click();
    await page.getByRole('button', { name: 'Show every type' }).click();
    await page.keyboard.press('Escape');
    await listShows((await serviceLabels('limit=1')).total);
  });

  it('filters by patient, as the service searches names', async () => {
    const { items } = await serviceLabels('sortingProperty=Patient&isSortingDescending=false');
    const name = items[0]!.patient!.name;
    const matching = await serviceLabels(`patientSearch=${encodeURIComponent(name)}&limit=10`);
    await page.getByRole('searchbox', { name: 'Patient', exact: true }).fill(name);
    await listShows(matching.total);
    const shown = await column(4, matching.items.length);
    expect(shown).toEqual(matching.items.map((label) => label.patient!.name));
    expect(shown).toContain(name);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await listShows((await serviceLabels('limit=1')).total);
  });

  it('sorts by patient in both directions', async () => {
    const header = grid().getByRole('columnheader', { name: /Patient/ });
    const firsts: string[] = [];
    for (const descending of [false, true]) {
      await header.getByRole('button').click();
      await expect
        .poll(() => header.getAttribute('aria-sort'), WAIT)
        .toBe(descending ? 'descending' : 'ascending');
      const { items } = await serviceLabels(
        `sortingProperty=Patient&isSortingDescending=${descending}&limit=12`,
      );
      const expected = items.map((label) => label.patient?.name ?? 'Unassigned');
      await expect.poll(() => column(4, 12), WAIT).toEqual(expected);
      firsts.push(expected[0]!);
    }
    // Really turned around: A… first, then …Z first.
    expect(firsts[0]!.localeCompare(firsts[1]!)).toBeLessThan(0);
  });

  it('opens a recording from its row, and Back returns to the list', async () => {
    const first = rows().first();
    const name = await first.getByRole('checkbox').getAttribute('aria-label');
    await cells(first).nth(1).click();
    await page.getByRole('heading', { name: 'About this recording' }).waitFor();
    const opened = page.url();
    expect(opened).toMatch(/#record\/[0-9a-f-]{36}$/);
    await page.goBack();
    await expect
      .poll(() => rows().first().getByRole('checkbox').getAttribute('aria-label'), WAIT)
      .toBe(name);

    // The keyboard: the arrows move the active row, Space ticks it, Enter opens it.
    await grid().focus();
    await page.keyboard.press('Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    expect(await grid().getAttribute('aria-activedescendant')).toBe('recording-row-1');
    await page.keyboard.press('Space');
    const second = grid().locator('#recording-row-1');
    await expect.poll(() => second.getAttribute('aria-selected'), WAIT).toBe('true');
    expect(await second.getByRole('checkbox').isChecked()).toBe(true);
    await expect(
      page.getByRole('button', { name: 'Export selected (1)' }).isEnabled(),
    ).resolves.toBe(true);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'About this recording' }).waitFor();
    expect(page.url()).toMatch(/#record\/[0-9a-f-]{36}$/);
    expect(page.url()).not.toBe(opened);
    await page.goBack();
    await grid().waitFor();
  });

  it('browses and searches the cache offline after the service stops', async () => {
    // Everything synced first: rows, and the transcripts the search reads.
    await until(
      () => invoke<SyncStatus>('sync.status', {}),
      (status) => status.state === 'idle' && status.lastSyncAt !== null,
      60_000,
    );
    await service.kill();
    const { total } = (
      await invoke<{ value: { total: number } }>('labels.list', { limit: 1, source: 'cache' })
    ).value;
    expect(total).toBeGreaterThan(200);

    await page.reload();
    await grid().waitFor();
    await page.getByText('Offline — from the cache.').waitFor();
    await listShows(total);
    await expect(totalShown().textContent()).resolves.toContain('(cached)');
    await expect(page.locator('.indicator').getByRole('status').textContent()).resolves.toContain(
      'Offline',
    );
    const exportAll = page.getByRole('button', { name: /^Export all/ });
    expect(await exportAll.isDisabled()).toBe(true);
    expect(await exportAll.getAttribute('title')).toMatch(/^Offline/);

    // Cached rows far down the list, offline too.
    await grid().focus();
    await page.keyboard.press('End');
    await grid()
      .locator(`[role="row"][aria-rowindex="${total + 1}"]`)
      .getByRole('checkbox')
      .waitFor();

    await page.getByRole('searchbox', { name: 'Search transcripts and patients' }).fill('vomiting');
    const hits = page.getByRole('link').filter({ has: page.locator('mark') });
    await hits.first().waitFor();
    await expect(hits.first().locator('mark').first().textContent()).resolves.toMatch(/^vomit/i);
    // The cache answers newest first, and the heading says so.
    await expect(page.locator('#hits-heading').textContent()).resolves.toMatch(
      /^\s*(One match|\d+ matches), newest first|The newest \d+ matches/,
    );
    await hits.first().click();
    await page.getByRole('heading', { name: 'About this recording' }).waitFor();
    // A transcript's hit opens at its line: the search rides along in the address.
    expect(page.url()).toMatch(/#record\/[0-9a-f-]{36}\/vomiting$/);
  }, 120_000);
});

import { announceSkip } from '../support/skip';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';
import { sandboxNotesPath, type Label } from '../../src/shared/api';
import type { Sourced, SyncStatus } from '../../src/shared/ipc';
import { transcriptVersions } from '../../src/shared/transcript';
import type { Launched } from '../service/child-process';
import { until } from '../service/poll';
import {
  chromiumProblem,
  firstSync,
  openAppOnDemoService,
  type AppOnDemoService,
  type ShellProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/record-detail.test.ts', chromiumProblem());
const WAIT = { timeout: 20_000, interval: 100 };

/** A manifest.json row, as the export writes it. */
interface ManifestRow {
  labelId: string;
  status: string;
  file: string | null;
  bytes: number | null;
  sha256: string | null;
  transcriptFile: string | null;
  subtitlesFile?: string | null;
  clinicalNoteFile?: string | null;
}

const sha256Of = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const manifests = (folder: string) =>
  readdirSync(folder)
    .filter((name) => /^manifest( \(\d+\))?\.json$/.test(name))
    .sort()
    .map(
      (name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as { labels: ManifestRow[] },
    );

/**
 * A record's screen against the demo clinic, run as its own service process so that the last
 * test can stop it and check what works offline.
 */
describe.skipIf(problem !== undefined)('a record in Chromium (demo clinic)', () => {
  let app: AppOnDemoService;
  let exportDir: string;
  let service: Launched;
  let credentials: DemoCredentials;
  let page: Page;
  let shell: ShellProcess;
  let consults: Label[];
  /** The recordings exported in the export test (each with audio). */
  const exported: Label[] = [];

  const invoke = <T>(channel: string, input: unknown) => app.invoke<T>(channel, input);
  const serviceFetch = (path: string, headers?: Record<string, string>) =>
    app.serviceFetch(path, headers);
  const details = async (labelId: string) =>
    (await (await serviceFetch(`/labels/${labelId}`)).json()) as Label;
  const hasAudio = async (labelId: string) =>
    (await serviceFetch(`/labels/${labelId}/audio`, { range: 'bytes=0-0' })).status === 206;

  /** A fresh load of the record's screen: nothing an earlier test opened on it carries over. */
  const open = async (labelId: string) => {
    await page.goto('about:blank');
    await page.goto(`${new URL(shell.url).origin}/#record/${labelId}`);
    await page.getByRole('heading', { name: 'About this recording' }).waitFor({ timeout: 30_000 });
  };
  /** A fresh load of Recordings: no dialog an earlier test left open carries over. */
  const openRecordings = async () => {
    await page.goto('about:blank');
    await page.goto(`${new URL(shell.url).origin}/#recordings`);
  };
  const patientFact = () => page.locator('dt:text-is("Patient") + dd');

  beforeAll(async () => {
    exportDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-export-'));
    app = await openAppOnDemoService('record', {
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    ({ service, credentials, page, shell } = app);
    const { organizationId } = credentials.primary;
    consults = (await (
      await serviceFetch(
        `/organizations/${organizationId}/labels?types=ClinicConversation&limit=200`,
      )
    ).json()) as Label[];
    // The patient combobox offers the patients of cached recordings: wait for the first sync.
    await firstSync(invoke);
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    rmSync(exportDir, { recursive: true, force: true });
  });

  it('assigns a patient from the combobox; it persists across a reload', async () => {
    const target = consults.find((l) => l.patient !== null)!.patient!;
    const label = consults.find((l) => l.patient?.id !== target.id)!;
    await open(label.id);
    // A record is a recording: the sidebar keeps Recordings current.
    await expect(
      page.getByRole('link', { name: 'Recordings' }).getAttribute('aria-current'),
    ).resolves.toBe('page');
    const combobox = page.getByRole('combobox', { name: /patient/ });

    // A typed ID the service does not know: a clear error, nothing assigned.
    await combobox.fill('no-such-patient');
    await combobox.press('Escape');
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Could not assign the patient' })
      .filter({ hasText: 'no-such-patient' })
      .waitFor();
    expect((await details(label.id)).patient?.id ?? null).toBe(label.patient?.id ?? null);

    // A known patient, picked with the keyboard from the suggestions.
    await combobox.fill(target.name.slice(0, 3));
    const option = page.getByRole('option', { name: new RegExp(`^${target.name}`) });
    await option.first().waitFor();
    for (let i = 0; i < 30 && (await option.first().getAttribute('aria-selected')) !== 'true'; i++)
      await combobox.press('ArrowDown');
    await combobox.press('Enter');
    await expect.poll(() => combobox.inputValue()).toBe(target.name);
    await page.getByRole('button', { name: 'Assign', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Assigned to ${target.name}.` })
      .waitFor();
    await expect.poll(() => patientFact().textContent(), WAIT).toContain(target.name);
    expect((await details(label.id)).patient).toEqual(target);

    await page.reload();
    await page.getByRole('heading', { name: 'About this recording' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => patientFact().textContent(), WAIT).toContain(target.name);
    expect(await patientFact().getByText(target.name).getAttribute('title')).toContain(target.id);
  }, 90_000);

  it('lists the transcript versions newest first and shows a word diff between them', async () => {
    let label: Label | undefined;
    for (const candidate of consults) {
      const full = await details(candidate.id);
      const versions = transcriptVersions(full.ownedPatientNotes);
      if (versions.length >= 2 && versions[0]!.content !== versions[1]!.content) {
        label = full;
        break;
      }
    }
    expect(label, 'the demo seed has regenerated transcripts').toBeDefined();
    const versions = transcriptVersions(label!.ownedPatientNotes);
    await open(label!.id);
    await page.getByRole('button', { name: /^Version history \(\d+ versions\)$/ }).click();
    const list = page.getByRole('list', { name: 'Transcript versions, newest first' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(versions.length);
    await expect(list.getByRole('listitem').first().textContent()).resolves.toContain('current');

    // Previous against current: the first pass's "[inaudible]" removed, the words put in.
    const diff = page.getByRole('group', { name: /^Changes from the version of/ });
    await diff.waitFor();
    const removed = await diff.locator('del').allTextContents();
    const added = await diff.locator('ins').allTextContents();
    expect(removed.join(' ')).toContain('[inaudible]');
    expect(added.length).toBeGreaterThan(0);
    for (const word of added) expect(versions[0]!.content).toContain(word.trim());
    await page.getByText(/^\d+ words? added, \d+ words? removed$/).waitFor();
  }, 60_000);

  it('shows transcript text with HTML and script as text, runs nothing, and copies it', async () => {
    let label: Label | undefined;
    for (const candidate of consults.slice(5)) {
      if (transcriptVersions((await details(candidate.id)).ownedPatientNotes).length > 0) {
        label = candidate;
        break;
      }
    }
    expect(label).toBeDefined();
    const payload =
      'Speaker 1: <img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script> & <b>bold</b>';
    // A regeneration through the sandbox control: the newest version, so the current transcript.
    const regenerated = await fetch(`${app.baseUrl}${sandboxNotesPath(label!.id)}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${credentials.primary.apiKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ type: 'Transcript', content: payload }),
    });
    expect(regenerated.status).toBe(200);
    let dialogs = 0;
    page.on('dialog', (dialog) => {
      dialogs++;
      void dialog.dismiss();
    });
    await open(label!.id);
    const text =
      '<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script> & <b>bold</b>';
    await page.getByText(text, { exact: true }).waitFor();
    // The diff against the previous version shows it as text too. (The test before may have left
    // this same record's history open: open it only if it is closed.)
    const history = page.getByRole('button', { name: /^Version history/ });
    if ((await history.getAttribute('aria-expanded')) !== 'true') await history.click();
    await page
      .getByRole('group', { name: /^Changes from the version of/ })
      .getByText('<script>', { exact: false })
      .first()
      .waitFor();
    expect(await page.locator('img[src="x"], b:text-is("bold")').count()).toBe(0);
    expect(await page.evaluate('window.__xss')).toBeUndefined();
    expect(dialogs).toBe(0);

    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Copied to the clipboard.' }).waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(payload);
  }, 60_000);

  it('exports two recordings into a folder; the manifests’ SHA-256 values match the files', async () => {
    const chosen: Label[] = [];
    for (const label of consults.slice(10)) {
      if (chosen.length === 2) break;
      if (await hasAudio(label.id)) chosen.push(label);
    }
    expect(chosen).toHaveLength(2);
    exported.push(...chosen);
    for (const [i, label] of chosen.entries()) {
      await open(label.id);
      await page.getByRole('button', { name: 'Export…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export 1 recording' });
      await dialog.getByRole('textbox', { name: 'Folder' }).fill(exportDir);
      await expect(
        dialog
          .getByRole('checkbox', {
            name: 'Include transcripts and clinical notes (.txt, .vtt subtitles)',
          })
          .isChecked(),
      ).resolves.toBe(true);
      await dialog.getByRole('button', { name: 'Export 1 recording' }).click();
      const done = page.getByRole('dialog', { name: 'Export finished' });
      await done.waitFor({ timeout: 60_000 });
      await page.getByRole('status').filter({ hasText: 'Export finished: 1 exported.' }).waitFor();
      // Each export writes its own manifest; the second takes the next free name.
      const manifest = i === 0 ? 'manifest.csv' : 'manifest (2).csv';
      await done.getByText(manifest, { exact: true }).waitFor();
      await done.getByRole('button', { name: 'Done' }).click();
      await done.waitFor({ state: 'detached' });
    }

    const rows = manifests(exportDir).flatMap((m) => m.labels);
    expect(rows.map((row) => row.labelId).sort()).toEqual(chosen.map((l) => l.id).sort());
    for (const row of rows) {
      expect(row.status).toBe('exported');
      const file = join(exportDir, row.file!);
      expect(existsSync(file)).toBe(true);
      expect(row.sha256).toBe(sha256Of(file));
      expect(row.bytes).toBe(readFileSync(file).length);
      if (row.transcriptFile) expect(existsSync(join(exportDir, row.transcriptFile))).toBe(true);
    }
    expect(rows.some((row) => row.transcriptFile !== null)).toBe(true);
  }, 120_000);

  it('cancels an export of every matching recording, reports what was exported, and retries the rest', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'earmark-e2e-cancel-'));
    const manifestRows = (name: string) =>
      (JSON.parse(readFileSync(join(folder, name), 'utf8')) as { labels: ManifestRow[] }).labels;
    /** Every file in the folder is a whole export a manifest names: nothing half-written. */
    const expectOnlyWholeExports = (rows: ManifestRow[], manifestNames: string[]) => {
      const named = new Set(manifestNames);
      for (const row of rows.filter((r) => r.status === 'exported')) {
        expect(row.sha256).toBe(sha256Of(join(folder, row.file!)));
        named.add(row.file!);
      }
      for (const row of rows) {
        for (const companion of [row.transcriptFile, row.subtitlesFile, row.clinicalNoteFile]) {
          if (companion) named.add(companion);
        }
      }
      expect(readdirSync(folder).filter((name) => !named.has(name))).toEqual([]);
    };
    try {
      await openRecordings();
      const exportAll = page.getByRole('button', { name: /^Export all \d[\d,]* matching$/ });
      await expect.poll(() => exportAll.isEnabled(), WAIT).toBe(true);
      await exportAll.click();
      const dialog = page.getByRole('dialog', { name: /^Export \d[\d,]* recordings$/ });
      await dialog.getByRole('textbox', { name: 'Folder' }).fill(folder);
      await dialog.getByRole('button', { name: /^Export \d[\d,]* recordings$/ }).click();
      // Once files are under way (the manifest is written only then), cancel.
      await dialog.getByRole('list', { name: 'Files' }).getByRole('listitem').first().waitFor();
      await dialog.getByRole('button', { name: 'Cancel export' }).click();
      const cancelled = page.getByRole('dialog', { name: 'Export cancelled' });
      await cancelled.waitFor({ timeout: 60_000 });
      await page
        .getByRole('status')
        .filter({ hasText: /^Export cancelled:/ })
        .waitFor();

      const first = manifestRows('manifest.json');
      expect(first.map((row) => row.status)).toContain('cancelled');
      expectOnlyWholeExports(first, ['manifest.csv', 'manifest.json']);

      // Retry exports only what the cancelled run did not, into the same folder.
      const notExported = first
        .filter((row) => row.status === 'cancelled' || row.status === 'failed')
        .map((row) => row.labelId);
      await cancelled
        .getByRole('button', { name: `Retry ${notExported.length} recordings` })
        .click();
      const finished = page.getByRole('dialog', { name: 'Export finished' });
      await finished.waitFor({ timeout: 120_000 });
      await finished.getByText('manifest (2).csv', { exact: true }).waitFor();
      const retried = manifestRows('manifest (2).json');
      expect(retried.map((row) => row.labelId).sort()).toEqual([...notExported].sort());
      for (const row of retried) expect(['exported', 'no_audio']).toContain(row.status);
      expect(retried.some((row) => row.status === 'exported')).toBe(true);
      expectOnlyWholeExports(
        [...first, ...retried],
        ['manifest.csv', 'manifest.json', 'manifest (2).csv', 'manifest (2).json'],
      );
      // Nothing is left to retry.
      expect(await finished.getByRole('button', { name: /^Retry/ }).count()).toBe(0);
      await finished.getByRole('button', { name: 'Done' }).click();
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);

  it('an export goes on when its dialog is closed; the sidebar shows it and brings it back', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'earmark-e2e-background-'));
    try {
      await openRecordings();
      const exportAll = page.getByRole('button', { name: /^Export all \d[\d,]* matching$/ });
      await expect.poll(() => exportAll.isEnabled(), WAIT).toBe(true);
      const total = Number(/\d[\d,]*/.exec((await exportAll.textContent())!)![0].replace(',', ''));
      await exportAll.click();
      const dialog = page.getByRole('dialog', { name: /^Export \d[\d,]* recordings$/ });
      await dialog.getByRole('textbox', { name: 'Folder' }).fill(folder);
      await dialog.getByRole('button', { name: /^Export \d[\d,]* recordings$/ }).click();
      await dialog.getByRole('list', { name: 'Files' }).getByRole('listitem').first().waitFor();
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // Out of sight, not cancelled: the sidebar carries it while another screen is used.
      const show = page.getByRole('button', { name: 'Show the export' });
      await show.waitFor();
      const sidebar = page.getByRole('group', { name: /^Export/ });
      expect(await sidebar.textContent()).toMatch(/Exporting \d+ of \d+|Export finished/);
      await page.getByRole('link', { name: 'Conversations' }).click();
      await page.getByRole('heading', { level: 1, name: 'Conversations' }).waitFor();
      await show.click();
      const finished = page.getByRole('dialog', { name: 'Export finished' });
      await finished.waitFor({ timeout: 120_000 });
      const [manifest] = manifests(folder);
      // The demo's hubs go on making records: the export takes those matching when it starts,
      // each once — as many as the button said, or more, never more than match now.
      const now = Number(
        (
          await serviceFetch(
            '/organizations/ORG/labels?limit=1'.replace('ORG', credentials.primary.organizationId),
          )
        ).headers.get('x-total-count'),
      );
      const ids = manifest!.labels.map((row) => row.labelId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThanOrEqual(total);
      expect(ids.length).toBeLessThanOrEqual(now);
      for (const row of manifest!.labels) expect(['exported', 'no_audio']).toContain(row.status);
      await finished.getByRole('button', { name: 'Done' }).click();
      await finished.waitFor({ state: 'detached' });
      expect(await show.count()).toBe(0);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 180_000);

  it('offline: shows what is cached and disables what needs the service, saying why', async () => {
    const opened = exported[0]!;
    let neverOpened: Label | undefined;
    for (const label of [...consults].reverse()) {
      if (await hasAudio(label.id)) {
        neverOpened = label;
        break;
      }
    }
    // The record view fetched its audio when it was opened; make sure it is all here.
    await invoke('audio.prepare', { labelId: opened.id });
    await until(
      () => invoke<SyncStatus>('sync.status', {}),
      (status) => status.state === 'idle',
      60_000,
    );
    await service.kill();

    await open(opened.id);
    await page.locator('.indicator').getByText('Offline').waitFor();
    await page.getByRole('heading', { name: 'Transcript' }).waitFor();
    await page.getByRole('slider', { name: 'Playback position' }).waitFor();
    const exportButton = page.getByRole('button', { name: 'Export…' });
    expect(await exportButton.isDisabled()).toBe(true);
    expect(await exportButton.getAttribute('title')).toMatch(/^Offline/);
    const combobox = page.getByRole('combobox', { name: /patient/ });
    expect(await combobox.isDisabled()).toBe(true);
    expect(await combobox.getAttribute('title')).toMatch(/^Offline/);
    expect(await page.getByRole('button', { name: 'Assign', exact: true }).isDisabled()).toBe(true);

    await open(neverOpened!.id);
    const play = page.getByRole('button', { name: 'Play' });
    // The app tries the service first (with its retries) before it says so.
    await page.getByText(/^Not downloaded to this computer yet/).waitFor({ timeout: 60_000 });
    expect(await play.isDisabled()).toBe(true);
    expect(await play.getAttribute('title')).toMatch(/^Offline/);
    // Its transcript came with the sync.
    expect(
      transcriptVersions(
        (await invoke<Sourced<Label>>('labels.get', { labelId: neverOpened!.id })).value
          .ownedPatientNotes,
      ).length,
    ).toBeGreaterThan(0);
  }, 90_000);
});

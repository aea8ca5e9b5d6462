import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebVTTParser } from 'webvtt-parser';
import type { Label } from '../../src/shared/api';
import type { TimedLine } from '../../src/shared/record/timed-transcript';
import { currentTranscript } from '../../src/shared/transcript';
import { announceSkip } from '../support/skip';
import {
  chromiumProblem,
  DIALECTS,
  firstSync,
  openAppOnDemoService,
  regenerateNote,
  invokeOverShell,
  startShellProcess,
  type AppOnDemoService,
  type Dialect,
  type ShellProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/speaker-names.test.ts', chromiumProblem());
const WAIT = { timeout: 20_000, interval: 100 };

/** Lines of each speaker of a timed transcript. */
const linesOf = (lines: readonly TimedLine[]) => {
  const by = new Map<string, number[]>();
  lines.forEach((line, index) => {
    if (line.speaker) by.set(line.speaker, [...(by.get(line.speaker) ?? []), index]);
  });
  return by;
};

/**
 * Who said it, in Chromium on the demo clinic (its own service process, so the test can stop it):
 * two speakers of a hub record named (with the mouse and with the keyboard), a line moved to
 * another speaker and the move undone and done again, Copy, the export's .txt and .vtt, search
 * by a name, a new transcript version that keeps one name and drops the other (each said on
 * screen), a restart, and naming with the service gone — in both dialects.
 */
describe.skipIf(problem !== undefined).each(DIALECTS)(
  'speaker names in Chromium (demo clinic, %s dialect)',
  (dialect: Dialect) => {
    let app: AppOnDemoService;
    let page: Page;
    let exportDir: string;
    let label: Label;
    let lines: TimedLine[];
    /** Speaker 1's lines and another speaker's (two at least each), by position. */
    let first: string;
    let second: string;
    /** The browser shell the restart started (the app's close stops only the first). */
    let restarted: ShellProcess | undefined;

    const origin = () => new URL(app.shell.url).origin;
    const open = async (labelId: string) => {
      await page.goto('about:blank');
      await page.goto(`${origin()}/#record/${labelId}`);
      await page
        .getByRole('heading', { name: 'About this recording' })
        .waitFor({ timeout: 30_000 });
    };
    const transcript = () => page.getByRole('list', { name: /^Transcript, line by line/ });
    /** The speaker button of the line at `index`. */
    const speakerOf = (index: number): Locator =>
      transcript().getByRole('listitem').nth(index).locator('button.speaker');
    const shownSpeakers = async () =>
      (await transcript().locator('button.speaker .name').allTextContents()).map((t) => t.trim());
    const editor = () => page.getByRole('dialog', { name: /^Who is / });
    const search = () => page.getByRole('searchbox', { name: 'Search transcripts and patients' });
    /** The names the earlier tests gave, saved again through the app (each test starts from them). */
    const named = async (names: { label: string; name: string; role: string }[]) => {
      const speakers = await invoke<{ currentVersionKey: string }>('speakers.get', {
        labelId: label.id,
      });
      await invoke('speakers.save', {
        labelId: label.id,
        versionKey: speakers.currentVersionKey,
        names,
        moves: [],
      });
    };
    const invoke = <T>(channel: string, input: unknown) =>
      invokeOverShell<T>(app.shell.url, channel, input);

    beforeAll(async () => {
      exportDir = mkdtempSync(join(tmpdir(), 'earmark-e2e-speakers-'));
      app = await openAppOnDemoService(
        `speakers-${dialect}`,
        { permissions: ['clipboard-read', 'clipboard-write'] },
        dialect === 'field' ? ['--dialect', 'field'] : [],
      );
      page = app.page;
      const { organizationId } = app.credentials.primary;
      const hubRecords = (await (
        await app.serviceFetch(`/organizations/${organizationId}/labels?types=HubMic&limit=200`)
      ).json()) as Label[];
      for (const candidate of hubRecords) {
        const timed = await invoke<TimedLine[] | null>('labels.transcriptLines', {
          labelId: candidate.id,
        });
        const speakers = timed ? [...linesOf(timed)].filter(([, at]) => at.length >= 2) : [];
        if (timed && timed.length <= 40 && speakers.length >= 2) {
          label = candidate;
          lines = timed;
          [first, second] = speakers.map(([name]) => name) as [string, string];
          break;
        }
      }
      expect(lines, 'the demo clinic has a hub record with two speakers').toBeDefined();
      // Search reads the cache: wait for the first sync.
      await firstSync(invoke);
    }, 180_000);
    afterAll(async () => {
      await restarted?.stop();
      await app?.close();
      rmSync(exportDir, { recursive: true, force: true });
    });

    it('names two speakers, by mouse and by keyboard, for every line of the transcript', async () => {
      await open(label.id);
      await transcript().waitFor();
      const firstLines = linesOf(lines).get(first)!;
      const secondLines = linesOf(lines).get(second)!;

      // The label is a button named for the speaker; it opens the editor, named for them too.
      await speakerOf(firstLines[0]!).click();
      await editor().waitFor();
      expect(await editor().getAttribute('aria-labelledby')).not.toBeNull();
      const name = editor().getByRole('combobox', { name: /^Name/ });
      await expect
        .poll(() =>
          page.evaluate<string | null>("document.activeElement?.getAttribute('role') ?? null"),
        )
        .toBe('combobox');
      await name.fill('Dr Marsh');
      await editor().getByRole('radio', { name: 'Vet' }).check();
      await editor().getByRole('button', { name: 'Save name' }).click();
      await editor().waitFor({ state: 'detached' });
      await page
        .getByRole('status')
        .filter({ hasText: `Named ${first} “Dr Marsh (vet)”.` })
        .waitFor();
      const shown = await shownSpeakers();
      for (const index of firstLines) expect(shown[index]).toBe('Dr Marsh');

      // By keyboard: focus the label, Enter, type, pick the role, Enter.
      await speakerOf(secondLines[0]!).focus();
      await page.keyboard.press('Enter');
      await editor().waitFor();
      await page.keyboard.type('Mrs Patel');
      await editor().getByRole('radio', { name: 'Owner' }).check();
      await editor().getByRole('combobox', { name: /^Name/ }).press('Enter');
      await editor().waitFor({ state: 'detached' });
      await expect
        .poll(async () => (await shownSpeakers())[secondLines[1]!], WAIT)
        .toBe('Mrs Patel');
      // The role is shown beside the name.
      expect(await speakerOf(secondLines[0]!).textContent()).toMatch(/Mrs Patel\s*Owner/);
    }, 90_000);

    it('moves one line to another speaker, undoes it, and offers names used before', async () => {
      await named([
        { label: first, name: 'Dr Marsh', role: 'vet' },
        { label: second, name: 'Mrs Patel', role: 'owner' },
      ]);
      await open(label.id);
      const moved = linesOf(lines).get(second)!.at(-1)!;
      await speakerOf(moved).click();
      await editor().waitFor();
      // Names used before on this computer are suggested while typing.
      await editor().getByRole('combobox', { name: /^Name/ }).fill('mar');
      await editor()
        .getByRole('listbox', { name: 'Suggestions' })
        .getByRole('option', { name: /^Dr Marsh/ })
        .waitFor();
      await editor()
        .getByRole('combobox', { name: 'This line was said by' })
        .selectOption({ label: `Dr Marsh (${first})` });
      await editor().getByRole('button', { name: 'Move this line' }).click();
      await editor().waitFor({ state: 'detached' });
      await expect.poll(async () => (await shownSpeakers())[moved], WAIT).toBe('Dr Marsh');
      await page.getByRole('button', { name: 'Undo' }).click();
      await expect.poll(async () => (await shownSpeakers())[moved], WAIT).toBe('Mrs Patel');
      await speakerOf(moved).click();
      await editor()
        .getByRole('combobox', { name: 'This line was said by' })
        .selectOption({ label: `Dr Marsh (${first})` });
      await editor().getByRole('button', { name: 'Move this line' }).click();
      await expect.poll(async () => (await shownSpeakers())[moved], WAIT).toBe('Dr Marsh');
    }, 60_000);

    it('copies the transcript with the names, and exports them into the .txt and .vtt', async () => {
      await named([
        { label: first, name: 'Dr Marsh', role: 'vet' },
        { label: second, name: 'Mrs Patel', role: 'owner' },
      ]);
      await open(label.id);
      await transcript().waitFor();
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByRole('status').filter({ hasText: 'Transcript copied' }).waitFor();
      const copied = await page.evaluate<string>('navigator.clipboard.readText()');
      expect(copied).toContain('Dr Marsh: ');
      expect(copied).toContain('Mrs Patel: ');
      expect(copied).not.toContain(`${first}: `);

      await page.getByRole('button', { name: 'Export…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Export 1 recording' });
      await dialog.getByRole('textbox', { name: 'Folder' }).fill(exportDir);
      await dialog.getByRole('button', { name: 'Export 1 recording' }).click();
      const done = page.getByRole('dialog', { name: 'Export finished' });
      await done.waitFor({ timeout: 60_000 });
      await done.getByText('Dr Marsh (vet), Mrs Patel (owner)').waitFor();
      await done.getByRole('button', { name: 'Done' }).click();

      const files = readdirSync(exportDir);
      const read = (extension: string) =>
        readFileSync(
          join(
            exportDir,
            files.find((f) => f.endsWith(extension))!,
          ),
          'utf8',
        );
      const txt = read('.txt');
      expect(txt).toMatch(/^\d\d:\d\d {2}(Dr Marsh|Mrs Patel): /m);
      expect(txt).not.toContain(`${second}: `);
      const vtt = new WebVTTParser().parse(read('.vtt'), 'metadata');
      expect(vtt.errors).toEqual([]);
      const voices = new Set(
        vtt.cues.flatMap((cue) =>
          cue.tree.children.flatMap((node) =>
            node.type === 'object' && node.name === 'v' ? [node.value] : [],
          ),
        ),
      );
      expect([...voices]).toEqual(expect.arrayContaining(['Dr Marsh', 'Mrs Patel']));
    }, 120_000);

    it('a new transcript version keeps the name that fits and drops the one that does not, saying so', async () => {
      await named([
        { label: first, name: 'Dr Marsh', role: 'vet' },
        { label: second, name: 'Mrs Patel', role: 'owner' },
      ]);
      // The new pass hears the owner's lines as two people: Speaker 2 and a new Speaker 9.
      const current = currentTranscript(
        ((await (await app.serviceFetch(`/labels/${label.id}`)).json()) as Label).ownedPatientNotes,
      )!;
      let owner = 0;
      const content = current.content
        .split('\n')
        .map((line) =>
          line.startsWith(`${second}:`) && owner++ % 2 === 1
            ? line.replace(`${second}:`, 'Speaker 9:')
            : line,
        )
        .join('\n');
      await regenerateNote(app, dialect, label.id, 'Transcript', content);
      await open(label.id);
      const notice = page.getByRole('region', {
        name: 'Names carried over from the earlier version',
      });
      await notice.waitFor();
      await notice.getByText(`“Mrs Patel” (${second}) was not carried over`).waitFor();
      expect(await notice.textContent()).toContain('split between');
      const shown = await shownSpeakers();
      for (const index of linesOf(lines).get(first)!) expect(shown[index]).toBe('Dr Marsh');
      expect(shown).not.toContain('Mrs Patel');
      await notice.getByRole('button', { name: 'Dismiss' }).click();
      await notice.waitFor({ state: 'detached' });
    }, 60_000);

    it('finds a speaker’s lines by their name in the search', async () => {
      await named([{ label: first, name: 'Dr Marsh', role: 'vet' }]);
      await page.goto(`${origin()}/#recordings`);
      await search().fill('Marsh');
      const hit = page.getByRole('link').filter({ hasText: 'Said by Dr Marsh' });
      await hit.first().waitFor();
      await hit.first().click();
      await page.getByRole('heading', { name: 'About this recording' }).waitFor();
      expect(page.url()).toContain(label.id);
    }, 60_000);

    it('keeps the names across a restart, and names and searches with the service gone', async () => {
      await named([{ label: first, name: 'Dr Marsh', role: 'vet' }]);
      await app.shell.stop();
      app.shell = await startShellProcess(['--data', app.dataDir]);
      restarted = app.shell;
      await invoke('accounts.add', {
        baseUrl: app.baseUrl,
        apiKey: app.credentials.primary.apiKey,
        sessionOnly: true,
      });
      await page.goto(app.shell.url);
      await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
      await open(label.id);
      await expect.poll(async () => (await shownSpeakers()).includes('Dr Marsh'), WAIT).toBe(true);

      await app.service.kill();
      await open(label.id);
      // A speaker not named yet: named with the service gone.
      const nine = (await shownSpeakers()).findIndex((shown) => /^Speaker \d+$/.test(shown));
      expect(nine).toBeGreaterThanOrEqual(0);
      await speakerOf(nine).click();
      await editor().getByRole('combobox', { name: /^Name/ }).fill('Tom Patel');
      await editor().getByRole('button', { name: 'Save name' }).click();
      await expect.poll(async () => (await shownSpeakers())[nine], WAIT).toBe('Tom Patel');
      await page.goto(`${origin()}/#recordings`);
      await search().fill('Tom Patel');
      await page.getByRole('link').filter({ hasText: 'Said by Tom Patel' }).first().waitFor();
    }, 120_000);
  },
);

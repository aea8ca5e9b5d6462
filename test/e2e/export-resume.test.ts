import { announceSkip } from '../support/skip';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sleep, until } from '../service/poll';
import {
  chromiumProblem,
  DIALECTS,
  firstSync,
  openAppOnEmbeddedDemo,
  startShellProcess,
  type AppOnEmbeddedDemo,
  type ShellProcess,
} from './support';

const problem = announceSkip('the tests of test/e2e/export-resume.test.ts', chromiumProblem());

interface ManifestRow {
  labelId: string;
  status: string;
  file: string | null;
  sha256: string | null;
  transcriptFile: string | null;
  subtitlesFile?: string | null;
  clinicalNoteFile?: string | null;
  error: string | null;
}

/** Kills a process and every process under it at once, as a crash would (no cleanup runs). */
function killTree(pid: number): void {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // No children.
  }
  for (const child of children) killTree(child);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * An "Export all" of the demo clinic, its app killed (kill -9) midway, started again on the same
 * data folder: Recordings offers to resume it, and the resumed export finishes it — finished
 * files are not exported again, and one manifest lists every recording.
 */
describe.skipIf(problem !== undefined).each(DIALECTS)(
  'an export that a crash stopped, resumed (%s dialect)',
  (dialect) => {
    let app: AppOnEmbeddedDemo;
    let restarted: ShellProcess | undefined;
    let folder: string;

    beforeAll(async () => {
      folder = mkdtempSync(join(tmpdir(), 'earmark-e2e-resume-'));
      app = await openAppOnEmbeddedDemo(`export-resume-${dialect}`, {
        dialect,
        defaultTimeoutMs: 30_000,
      });
    }, 90_000);
    afterAll(async () => {
      await restarted?.stop();
      await app?.close();
      rmSync(folder, { recursive: true, force: true });
    });

    it('resumes after a restart and finishes with one manifest of every recording', async () => {
      const { page } = app;
      // Synced first: the total read below is then the clinic's whole list, whichever of the
      // cache and the service answers first.
      await firstSync(app.invoke);
      await page.goto(`${new URL(app.shell.url).origin}/#recordings`);
      const exportAll = page.getByRole('button', { name: /^Export all \d[\d,]* matching$/ });
      await until(
        () => exportAll.isEnabled(),
        (enabled) => enabled,
        30_000,
      );
      const total = Number(
        /(\d[\d,]*)/.exec((await exportAll.textContent())!)![1]!.replace(',', ''),
      );
      await exportAll.click();
      const dialog = page.getByRole('dialog', { name: /^Export \d[\d,]* recordings$/ });
      await dialog.getByRole('textbox', { name: 'Folder' }).fill(folder);
      await dialog.getByRole('button', { name: /^Export \d[\d,]* recordings$/ }).click();
      // A few files exported, then the app dies.
      const audioFiles = () => readdirSync(folder).filter((name) => /\.(wav|m4a)$/.test(name));
      await until(
        async () => {
          await sleep(20);
          return audioFiles().length;
        },
        (count) => count >= 5,
        60_000,
      );
      const exited = new Promise((resolve) => app.shell.child.once('exit', resolve));
      killTree(app.shell.child.pid!);
      await exited;
      const beforeCrash = new Set(audioFiles());
      expect(beforeCrash.size).toBeLessThan(total);

      restarted = await startShellProcess(['--data', app.dataDir, '--demo']);
      await page.goto(restarted.url);
      await page.getByRole('heading', { name: 'Hub timeline' }).waitFor({ timeout: 60_000 });
      await page.goto(`${new URL(restarted.url).origin}/#recordings`);
      const notice = page.getByRole('complementary', { name: 'Unfinished export' });
      await notice.getByText(folder).waitFor();
      await notice.getByRole('button', { name: 'Resume' }).click();
      const finished = page.getByRole('dialog', { name: 'Export finished' });
      await finished.waitFor({ timeout: 120_000 });

      const manifests = readdirSync(folder).filter((name) => name.startsWith('manifest'));
      expect(manifests.sort()).toEqual(['manifest.csv', 'manifest.json']);
      const rows = (
        JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as { labels: ManifestRow[] }
      ).labels;
      expect(rows).toHaveLength(total);
      expect(new Set(rows.map((row) => row.labelId)).size).toBe(total);
      for (const row of rows) {
        expect(['exported', 'no_audio'], `${row.labelId}: ${row.error}`).toContain(row.status);
      }
      // The files exported before the crash are the manifest's, not copies beside them.
      const named = new Set(manifests);
      for (const row of rows) {
        if (row.file) {
          named.add(row.file);
          const bytes = readFileSync(join(folder, row.file));
          expect(createHash('sha256').update(bytes).digest('hex'), row.file).toBe(row.sha256);
        }
        for (const companion of [row.transcriptFile, row.subtitlesFile, row.clinicalNoteFile]) {
          if (companion) named.add(companion);
        }
      }
      for (const name of beforeCrash) expect(named.has(name), name).toBe(true);
      // Nothing else: no "(2)" copies, no partial downloads.
      expect(
        readdirSync(folder)
          .filter((name) => !named.has(name))
          .join(', '),
      ).toBe('');

      await finished.getByRole('button', { name: 'Done' }).click();
      await finished.waitFor({ state: 'detached' });
      await until(
        () => notice.count(),
        (count) => count === 0,
        10_000,
      );
    }, 240_000);
  },
);

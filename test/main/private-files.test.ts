import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startShellProcess, type ShellProcess } from '../e2e/support';
import { launch } from '../service/child-process';
import { until } from '../service/poll';
import { testCore } from '../support/core';

/** Every path under `root`, folders first. */
function walk(root: string): string[] {
  return readdirSync(root, { withFileTypes: true }).flatMap((entry) => {
    const path = join(root, entry.name);
    return entry.isDirectory() ? [path, ...walk(path)] : [path];
  });
}

/**
 * Clinical data private on disk (issue 19): the browser shell on the demo clinic, run as `npm run
 * web` runs it, leaves nothing in its data folder that another local user can read — the
 * account's cache and its WAL, the demo clinic's database, accounts, logs — whatever the umask.
 */
describe('the data folder', () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'earmark-private-')), 'data');
  let shell: ShellProcess | undefined;
  afterAll(async () => {
    await shell?.stop();
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('holds only files and folders of this user’s alone (0600, 0700)', async () => {
    shell = await startShellProcess(['--demo', '--data', dataDir]);
    // The first sync fills the cache (and its WAL) within seconds of the demo opening.
    await until(
      () => walk(dataDir).some((p) => p.endsWith('.sqlite-wal')),
      (found) => found,
      20_000,
    );
    const paths = [dataDir, ...walk(dataDir)];
    expect(paths.some((p) => p.includes('demo-service'))).toBe(true);
    const open = paths
      .map((path) => ({ path, mode: statSync(path).mode & 0o777 }))
      .filter(({ mode }) => (mode & 0o077) !== 0)
      .map(({ path, mode }) => `${path.slice(dataDir.length)} ${mode.toString(8)}`);
    expect(open).toEqual([]);
  }, 60_000);
});

const CONTENTS: Record<string, string> = {
  'accounts.json': JSON.stringify({ version: 1, activeId: null, accounts: [] }),
  'follow-ups.json': JSON.stringify({ version: 1, accounts: {} }),
};

/** What a version before the owner-only mode left: files 0644, folders 0755. */
function earlierVersionsFolder(root: string, names: string[]): string[] {
  mkdirSync(root, { recursive: true, mode: 0o755 });
  chmodSync(root, 0o755);
  const paths = names.map((name) => join(root, name));
  for (const path of paths) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    chmodSync(dirname(path), 0o755);
    writeFileSync(path, CONTENTS[basename(path)] ?? 'clinical', { mode: 0o644 });
    chmodSync(path, 0o644);
  }
  return [root, ...walk(root)];
}

const openModes = (paths: string[]) =>
  paths
    .map((path) => ({ path, mode: lstatSync(path).mode & 0o777 }))
    .filter(({ mode }) => (mode & 0o077) !== 0)
    .map(({ path, mode }) => `${path} ${mode.toString(8)}`);

describe('files an earlier version made before the owner-only mode', () => {
  const root = mkdtempSync(join(tmpdir(), 'earmark-modes-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('are made this user’s alone when the app starts on the folder', async () => {
    const dataDir = join(root, 'app');
    const paths = earlierVersionsFolder(dataDir, [
      'accounts.json',
      'follow-ups.json',
      'cache/account.sqlite',
      'audio/account/label.wav',
      'demo-service/service.sqlite',
    ]);
    // A link to a file elsewhere is not followed: that file is not the app's.
    const elsewhere = join(root, 'elsewhere.txt');
    writeFileSync(elsewhere, 'not the app’s', { mode: 0o644 });
    chmodSync(elsewhere, 0o644);
    symlinkSync(elsewhere, join(dataDir, 'link'));
    expect(openModes(paths)).not.toEqual([]);
    const core = testCore({ dataDir });
    try {
      await until(
        () => openModes(paths),
        (open) => open.length === 0,
        10_000,
      );
      expect(lstatSync(elsewhere).mode & 0o777).toBe(0o644);
    } finally {
      await core.close();
    }
  });

  it('are made this user’s alone when the reference service starts on its folder', async () => {
    const dataDir = join(root, 'service');
    const paths = earlierVersionsFolder(dataDir, ['notes.txt', 'old/backup.sqlite']);
    const cli = launch('src/service/cli.ts', ['--data', dataDir]);
    try {
      await cli.waitFor('stdout', /^.*\n/);
      expect(openModes(paths)).toEqual([]);
    } finally {
      await cli.kill();
    }
  }, 60_000);
});

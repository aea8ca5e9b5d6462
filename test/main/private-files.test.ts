import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startShellProcess, type ShellProcess } from '../e2e/support';
import { sleep } from '../service/poll';

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
    for (let i = 0; i < 100 && !walk(dataDir).some((p) => p.endsWith('.sqlite-wal')); i++) {
      await sleep(200);
    }
    const paths = [dataDir, ...walk(dataDir)];
    expect(paths.some((p) => p.endsWith('.sqlite-wal'))).toBe(true);
    expect(paths.some((p) => p.includes('demo-service'))).toBe(true);
    const open = paths
      .map((path) => ({ path, mode: statSync(path).mode & 0o777 }))
      .filter(({ mode }) => (mode & 0o077) !== 0)
      .map(({ path, mode }) => `${path.slice(dataDir.length)} ${mode.toString(8)}`);
    expect(open).toEqual([]);
  }, 60_000);
});

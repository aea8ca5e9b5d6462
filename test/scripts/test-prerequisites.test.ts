import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  distribution,
  installCommand,
  missingPrerequisites,
} from '../../scripts/test-prerequisites';
import { findOnPath } from '../../src/main/web/executables';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('what npm test needs', () => {
  it('names what is missing: Chromium everywhere, the Secret Service programs on Linux', () => {
    const empty = { PATH: '/nonexistent' };
    expect(missingPrerequisites(empty, 'linux')).toEqual([
      'chromium',
      'dbus-run-session',
      'gnome-keyring-daemon',
    ]);
    expect(missingPrerequisites(empty, 'darwin')).toEqual(['chromium']);
    expect(missingPrerequisites({ ...empty, CHROMIUM_PATH: process.execPath }, 'darwin')).toEqual(
      [],
    );
  });

  it('reads the distribution family from os-release', () => {
    expect(distribution('PRETTY_NAME="Debian GNU/Linux 12"\nID=debian\n')).toBe('debian');
    expect(distribution('ID=ubuntu\nID_LIKE=debian\n')).toBe('ubuntu');
    expect(distribution('ID=linuxmint\nID_LIKE="ubuntu debian"\n')).toBe('ubuntu');
    expect(distribution('ID=fedora\n')).toBe('fedora');
    expect(distribution('')).toBe('unknown');
  });

  it('gives the exact install command: apt on Debian, the Chromium snap on Ubuntu, sudo unless root', () => {
    const all = ['chromium', 'dbus-run-session', 'gnome-keyring-daemon'] as const;
    expect(installCommand(all, { platform: 'linux', distribution: 'debian', root: false })).toBe(
      'sudo apt-get update && sudo apt-get install -y --no-install-recommends chromium dbus-daemon dbus-user-session gnome-keyring',
    );
    expect(
      installCommand(['chromium'], { platform: 'linux', distribution: 'ubuntu', root: true }),
    ).toBe('snap install chromium');
    expect(
      installCommand(['gnome-keyring-daemon'], {
        platform: 'linux',
        distribution: 'ubuntu',
        root: true,
      }),
    ).toBe('apt-get update && apt-get install -y --no-install-recommends gnome-keyring');
    expect(
      installCommand(['chromium'], { platform: 'darwin', distribution: 'unknown', root: false }),
    ).toContain('CHROMIUM_PATH');
  });
});

describe('the README test command on a machine without Chromium or a Secret Service', () => {
  // A PATH holding only what npm needs to start (node, npm, sh): no Chromium, no D-Bus, no keyring.
  const bin = mkdtempSync(join(tmpdir(), 'earmark-bare-path-'));
  for (const program of ['node', 'npm', 'sh']) {
    symlinkSync(findOnPath([program])!, join(bin, program));
  }
  afterAll(() => rmSync(bin, { recursive: true, force: true }));
  const bare = { ...process.env, PATH: bin, CHROMIUM_PATH: '', EARMARK_ALLOW_SKIPS: '' };

  it('stops before any test with the command that installs them', () => {
    const result = spawnSync('npm', ['test'], {
      cwd: root,
      env: bare,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('npm test runs every test, and this machine lacks Chromium');
    const root_ = process.getuid?.() === 0;
    expect(result.stderr).toContain(
      `${root_ ? '' : 'sudo '}apt-get install -y --no-install-recommends chromium dbus-daemon dbus-user-session gnome-keyring`,
    );
    expect(result.stderr).toContain('EARMARK_ALLOW_SKIPS=1 npm test');
    // Nothing after the check ran: no typecheck, no build.
    expect(result.stdout).not.toContain('tsc -b');
  }, 60_000);

  it('goes on, saying what will be skipped, when the user opts in', () => {
    const result = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        join(root, 'scripts', 'test-prerequisites.ts'),
      ],
      { cwd: root, env: { ...bare, EARMARK_ALLOW_SKIPS: '1' }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.status).toBe(0);
    expect(result.stderr).toContain(
      'EARMARK_ALLOW_SKIPS=1, so the tests that need them are skipped',
    );
  }, 60_000);
});

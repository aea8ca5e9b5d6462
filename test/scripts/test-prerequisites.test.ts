import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  distribution,
  installCommand,
  missingPrerequisites,
  processRights,
} from '../../scripts/test-prerequisites';
import { findOnPath } from '../../src/main/web/executables';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('what npm test needs', () => {
  it('names what is missing: Chromium and ffmpeg everywhere; on Linux the Secret Service programs, the right to mount, and chattr for root', () => {
    const empty = { PATH: '/nonexistent' };
    const user = { root: false, canMount: () => false };
    const root = { root: true, canMount: () => true };
    expect(missingPrerequisites(empty, 'linux', user)).toEqual([
      'chromium',
      'dbus-run-session',
      'gnome-keyring-daemon',
      'ffmpeg',
      'mount',
    ]);
    // Root can mount, but only with mount on the PATH; and needs chattr for a read-only folder.
    expect(missingPrerequisites(empty, 'linux', root)).toEqual([
      'chromium',
      'dbus-run-session',
      'gnome-keyring-daemon',
      'ffmpeg',
      'chattr',
      'mount',
    ]);
    expect(missingPrerequisites(empty, 'darwin', user)).toEqual(['chromium', 'ffmpeg']);
    const bin = mkdtempSync(join(tmpdir(), 'earmark-ffmpeg-path-'));
    try {
      for (const program of [
        'ffmpeg',
        'chattr',
        'mount',
        'dbus-run-session',
        'gnome-keyring-daemon',
      ])
        symlinkSync(process.execPath, join(bin, program));
      const equipped = { PATH: bin, CHROMIUM_PATH: process.execPath };
      expect(missingPrerequisites(equipped, 'darwin', user)).toEqual([]);
      expect(missingPrerequisites(equipped, 'linux', root)).toEqual([]);
      expect(missingPrerequisites(equipped, 'linux', user)).toEqual(['mount']);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
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

  it('installs ffmpeg and chattr from Debian, and says how to get the right to mount', () => {
    expect(
      installCommand(['ffmpeg', 'chattr', 'mount'], {
        platform: 'linux',
        distribution: 'debian',
        root: true,
      }),
    ).toBe(
      'apt-get update && apt-get install -y --no-install-recommends ffmpeg e2fsprogs; then run npm test as root, or in a container with CAP_SYS_ADMIN (as .ci/run does)',
    );
    expect(
      installCommand(['mount'], { platform: 'linux', distribution: 'fedora', root: false }),
    ).toBe('run npm test as root, or in a container with CAP_SYS_ADMIN (as .ci/run does)');
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
    // The command for this system, whatever it is: what a bare PATH lacks, as it installs here.
    const rights = processRights();
    const missing = missingPrerequisites(bare, process.platform, rights);
    expect(missing).toContain('chromium');
    const osRelease = existsSync('/etc/os-release') ? readFileSync('/etc/os-release', 'utf8') : '';
    expect(result.stderr).toContain(
      installCommand(missing, {
        platform: process.platform,
        distribution: distribution(osRelease),
        root: rights.root,
      }),
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

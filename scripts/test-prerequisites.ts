// The first step of `npm test`: every test runs or the command stops and says how to make it
// run. The end-to-end tests need Chromium, the keychain tests a Secret Service (on Linux:
// dbus-run-session and gnome-keyring-daemon), the MP4 peaks tests ffmpeg, and the tests of a
// full disk and of a read-only folder the right to mount a small tmpfs and, as root (whom file
// modes do not stop), chattr; without them the suite would pass with tests skipped, which says
// nothing. EARMARK_ALLOW_SKIPS=1 runs the rest anyway.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../src/main/web/chromium';
import { findOnPath } from '../src/main/web/executables';

export type Prerequisite =
  'chromium' | 'dbus-run-session' | 'gnome-keyring-daemon' | 'ffmpeg' | 'chattr' | 'mount';

/** What the process may do, as far as the tests need to know. */
export interface Rights {
  /** Root: file modes do not stop it, so a read-only folder takes chattr +i. */
  root: boolean;
  /** Whether it can mount a tmpfs (root, or CAP_SYS_ADMIN), as the full-disk test does. */
  canMount(): boolean;
}

/** Mounts a 64 KiB tmpfs on a temporary folder and unmounts it: the full-disk test's right. */
function probeMount(): boolean {
  const folder = mkdtempSync(join(tmpdir(), 'earmark-mount-probe-'));
  try {
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', folder]);
    if (mounted.status !== 0) return false;
    spawnSync('umount', [folder]);
    return true;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

export const processRights = (): Rights => ({
  root: process.getuid?.() === 0,
  canMount: probeMount,
});

/** What this machine lacks to run every test. */
export function missingPrerequisites(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
  rights: Rights,
): Prerequisite[] {
  const missing: Prerequisite[] = [];
  if (!findChromium(env)) missing.push('chromium');
  if (platform === 'linux') {
    for (const program of ['dbus-run-session', 'gnome-keyring-daemon'] as const) {
      if (!findOnPath([program], env)) missing.push(program);
    }
  }
  if (!findOnPath(['ffmpeg'], env)) missing.push('ffmpeg');
  if (platform === 'linux') {
    if (rights.root && !findOnPath(['chattr'], env)) missing.push('chattr');
    if (!findOnPath(['mount'], env) || !rights.canMount()) missing.push('mount');
  }
  return missing;
}

/** The Debian package of each program (Ubuntu ships Chromium as a snap); none for a right. */
const DEBIAN_PACKAGES: Record<Prerequisite, string[]> = {
  chromium: ['chromium'],
  'dbus-run-session': ['dbus-daemon', 'dbus-user-session'],
  'gnome-keyring-daemon': ['gnome-keyring'],
  ffmpeg: ['ffmpeg'],
  chattr: ['e2fsprogs'],
  mount: [],
};

/** What each is for, in the message. */
const PURPOSES: Record<Prerequisite, string> = {
  chromium: 'Chromium (for the end-to-end tests)',
  'dbus-run-session': 'dbus-run-session (for the keychain tests)',
  'gnome-keyring-daemon': 'gnome-keyring-daemon (for the keychain tests)',
  ffmpeg: 'ffmpeg (for the MP4 peaks tests)',
  chattr: 'chattr (for the read-only folder tests, as root)',
  mount: 'the right to mount a small tmpfs (for the full-disk export test)',
};

/** The distribution family from /etc/os-release: "debian", "ubuntu", or another. */
export function distribution(osRelease: string): string {
  const field = (name: string) =>
    new RegExp(`^${name}=["']?([^"'\\n]*)`, 'm').exec(osRelease)?.[1]?.toLowerCase() ?? '';
  const ids = [field('ID'), ...field('ID_LIKE').split(/\s+/)];
  if (ids.includes('ubuntu')) return 'ubuntu';
  if (ids.includes('debian')) return 'debian';
  return ids[0] || 'unknown';
}

/** How to get the right to mount: no package gives it. */
const MOUNT_RIGHT = 'run npm test as root, or in a container with CAP_SYS_ADMIN (as .ci/run does)';

/** The exact command that installs what is missing, for this system. */
export function installCommand(
  missing: readonly Prerequisite[],
  system: { platform: NodeJS.Platform; distribution: string; root: boolean },
): string {
  const sudo = system.root ? '' : 'sudo ';
  const programs = missing.filter((program) => program !== 'mount');
  const mount = missing.includes('mount') ? [MOUNT_RIGHT] : [];
  if (system.platform === 'linux' && ['debian', 'ubuntu'].includes(system.distribution)) {
    const snap = system.distribution === 'ubuntu' && programs.includes('chromium');
    const apt = programs
      .filter((program) => !(snap && program === 'chromium'))
      .flatMap((program) => DEBIAN_PACKAGES[program]);
    const steps = [
      ...(snap ? [`${sudo}snap install chromium`] : []),
      ...(apt.length > 0
        ? [
            `${sudo}apt-get update`,
            `${sudo}apt-get install -y --no-install-recommends ${apt.join(' ')}`,
          ]
        : []),
    ];
    return [steps.join(' && '), ...mount].filter(Boolean).join('; then ');
  }
  if (system.platform === 'linux') {
    const install = programs.length
      ? [
          `install ${programs.join(', ')} with your package manager (Chromium may also be named by CHROMIUM_PATH)`,
        ]
      : [];
    return [...install, ...mount].join('; then ');
  }
  const others = programs.filter((program) => program !== 'chromium');
  return [
    ...(programs.includes('chromium')
      ? ['install Chromium or Google Chrome and set CHROMIUM_PATH to its executable']
      : []),
    ...(others.length ? [`install ${others.join(', ')}`] : []),
  ].join('; ');
}

function main(): void {
  const rights = processRights();
  const missing = missingPrerequisites(process.env, process.platform, rights);
  if (missing.length === 0) return;
  let osRelease = '';
  try {
    osRelease = readFileSync('/etc/os-release', 'utf8');
  } catch {
    // Not Linux, or a minimal system: the generic advice below still holds.
  }
  const command = installCommand(missing, {
    platform: process.platform,
    distribution: distribution(osRelease),
    root: rights.root,
  });
  const what = missing.map((program) => PURPOSES[program]);
  if (process.env.EARMARK_ALLOW_SKIPS === '1') {
    process.stderr.write(
      `npm test: missing ${what.join(', ')}; EARMARK_ALLOW_SKIPS=1, so the tests that need them are skipped.\n`,
    );
    return;
  }
  process.stderr.write(
    [
      `npm test runs every test, and this machine lacks ${what.join(' and ')}.`,
      'Install them with:',
      '',
      `    ${command}`,
      '',
      'then run npm test again. To run the rest now and skip what cannot run here:',
      '',
      '    EARMARK_ALLOW_SKIPS=1 npm test',
      '',
    ].join('\n'),
  );
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();

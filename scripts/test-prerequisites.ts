// The first step of `npm test`: every test runs or the command stops and says how to make it
// run. The end-to-end tests need Chromium and the keychain tests a Secret Service (on Linux:
// dbus-run-session and gnome-keyring-daemon); without them the suite would pass with a hundred
// tests skipped, which says nothing. EARMARK_ALLOW_SKIPS=1 runs the rest anyway.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findChromium } from '../src/main/web/chromium';
import { findOnPath } from '../src/main/web/executables';

export type Prerequisite = 'chromium' | 'dbus-run-session' | 'gnome-keyring-daemon';

/** What this machine lacks to run every test. */
export function missingPrerequisites(
  env: NodeJS.ProcessEnv,
  platform: NodeJS.Platform,
): Prerequisite[] {
  const missing: Prerequisite[] = [];
  if (!findChromium(env)) missing.push('chromium');
  if (platform === 'linux') {
    for (const program of ['dbus-run-session', 'gnome-keyring-daemon'] as const) {
      if (!findOnPath([program], env)) missing.push(program);
    }
  }
  return missing;
}

/** The Debian package of each program (Ubuntu ships Chromium as a snap). */
const DEBIAN_PACKAGES: Record<Prerequisite, string[]> = {
  chromium: ['chromium'],
  'dbus-run-session': ['dbus-daemon', 'dbus-user-session'],
  'gnome-keyring-daemon': ['gnome-keyring'],
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

/** The exact command that installs what is missing, for this system. */
export function installCommand(
  missing: readonly Prerequisite[],
  system: { platform: NodeJS.Platform; distribution: string; root: boolean },
): string {
  const sudo = system.root ? '' : 'sudo ';
  if (system.platform === 'linux' && ['debian', 'ubuntu'].includes(system.distribution)) {
    const snap = system.distribution === 'ubuntu' && missing.includes('chromium');
    const apt = missing
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
    return steps.join(' && ');
  }
  if (system.platform === 'linux') {
    return `install ${missing.join(', ')} with your package manager (Chromium may also be named by CHROMIUM_PATH)`;
  }
  return 'install Chromium or Google Chrome and set CHROMIUM_PATH to its executable';
}

function main(): void {
  const missing = missingPrerequisites(process.env, process.platform);
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
    root: process.getuid?.() === 0,
  });
  const what = missing.map((program) =>
    program === 'chromium'
      ? 'Chromium (for the end-to-end tests)'
      : `${program} (for the keychain tests)`,
  );
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

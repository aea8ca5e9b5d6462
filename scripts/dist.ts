// `npm run dist [-- --linux | --win | --mac] [--dir]`: Earmark's packages for this computer's
// operating system, built by electron-builder (electron-builder.config.ts) into dist/. It first
// checks what a build needs (Electron's runtime, its headers and a C++ toolchain for
// the SQLite addon); when something is missing it says what and how to provide it, and stops
// before building anything. See docs/packaging.md.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import config from '../electron-builder.config';
import { SQLITE_ADDON } from '../src/main/electron/sqlite-binding';
import {
  ELECTRON_VERSION,
  cachedRuntimeZip,
  electronCacheFolders,
  hostTarget,
  runtimeDownloadUrl,
  runtimeZipName,
  unpackedRuntime,
  type ElectronPlatform,
  type RuntimeTarget,
} from './electron-runtime';

const root = fileURLToPath(new URL('..', import.meta.url));

const PLATFORM_FLAGS: Record<string, ElectronPlatform> = {
  linux: 'linux',
  win: 'win32',
  mac: 'darwin',
};
const OS_NAMES: Record<ElectronPlatform, string> = {
  linux: 'Linux',
  win32: 'Windows',
  darwin: 'macOS',
};

/** One thing a build needs, whether it is here, and where it was found or looked for. */
interface Check {
  need: string;
  ok: boolean;
  details: string[];
}

/** How electron-builder gets the runtime: a folder or archive found here, or its own download. */
type RuntimeSource = { electronDist: string } | { download: string };

/** Whether an address answers with its file: a one-byte ranged GET (some mirrors refuse HEAD). */
async function reachable(url: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    const response = await fetch(url, {
      headers: { range: 'bytes=0-0' },
      signal: AbortSignal.timeout(10_000),
    });
    await response.body?.cancel();
    return response.ok ? { ok: true } : { ok: false, reason: `HTTP ${response.status}` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return { ok: false, reason: cause?.code ?? cause?.message ?? (error as Error).message };
  }
}

async function checkRuntime(
  target: RuntimeTarget,
): Promise<{ check: Check; source?: RuntimeSource }> {
  const need = `Electron ${ELECTRON_VERSION}'s runtime for ${target.platform}-${target.arch}`;
  const unpacked = unpackedRuntime();
  if (unpacked.ok)
    return {
      check: { need, ok: true, details: [`unpacked in ${unpacked.folder}`] },
      source: { electronDist: unpacked.folder },
    };
  const cached = await cachedRuntimeZip(target, electronCacheFolders());
  if (cached.ok)
    return {
      check: { need, ok: true, details: [cached.zip] },
      source: { electronDist: cached.zip },
    };
  const url = runtimeDownloadUrl(target);
  const download = await reachable(url);
  if (download.ok)
    return {
      check: { need, ok: true, details: [`electron-builder downloads it from ${url}`] },
      source: { download: url },
    };
  return {
    check: {
      need,
      ok: false,
      details: [unpacked.reason, cached.reason, `cannot download ${url} (${download.reason})`],
    },
  };
}

/** Node's headers for Electron, which node-gyp compiles the SQLite addon (better-sqlite3-multiple-ciphers) against. */
async function checkHeaders(): Promise<Check> {
  const need = `Electron ${ELECTRON_VERSION}'s headers, to compile the SQLite addon for Electron`;
  // Where @electron/rebuild has node-gyp keep them.
  const folder = join(homedir(), '.electron-gyp', ELECTRON_VERSION);
  if (existsSync(join(folder, 'installVersion'))) return { need, ok: true, details: [folder] };
  const url = `https://www.electronjs.org/headers/v${ELECTRON_VERSION}/node-v${ELECTRON_VERSION}-headers.tar.gz`;
  const download = await reachable(url);
  return download.ok
    ? { need, ok: true, details: [`downloaded during the build from ${url}`] }
    : {
        need,
        ok: false,
        details: [`not in ${folder}`, `cannot download ${url} (${download.reason})`],
      };
}

/** The compiler node-gyp drives: each group is one tool under the names it may have. */
function checkToolchain(platform: ElectronPlatform): Check {
  const need = 'A C++ toolchain for the SQLite addon (node-gyp)';
  const groups =
    platform === 'win32' ? [['python', 'py']] : [['python3'], ['make'], ['c++', 'g++', 'clang++']];
  const runs = (command: string) =>
    spawnSync(command, ['--version'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
  const found = groups.map((names) => names.find(runs));
  const details = [found.map((name, i) => name ?? `no ${groups[i]!.join(' or ')}`).join(', ')];
  if (platform === 'win32')
    details.push('Visual Studio Build Tools ("Desktop development with C++"): not checked');
  return { need, ok: found.every(Boolean), details };
}

function explain(target: RuntimeTarget, checks: Check[]): string {
  const zip = runtimeZipName(target);
  const cache = electronCacheFolders().join(', ');
  return [
    `Cannot package ${config.productName} for ${target.platform}-${target.arch} here: nothing was built.`,
    '',
    ...checks.flatMap((c) => [
      `${c.ok ? '✓' : '✗'} ${c.need}`,
      ...c.details.map((d) => `    ${d}`),
    ]),
    '',
    'What a build needs (docs/packaging.md):',
    `- Electron's runtime, ${zip}, which becomes the app's executable. Any of:`,
    '    run where GitHub is reachable: electron-builder downloads it from github.com/electron/electron/releases;',
    '    set ELECTRON_MIRROR to a mirror of those releases, local or not (the address ends in "/");',
    `    put the archive in a folder and set ELECTRON_CACHE (or electron_config_cache) to it (now: ${cache});`,
    `    set ELECTRON_OVERRIDE_DIST_PATH to an unpacked Electron ${ELECTRON_VERSION} for this computer.`,
    "- Electron's headers (downloaded from www.electronjs.org into ~/.electron-gyp) and a C++ toolchain",
    '  to compile the SQLite addon for Electron: Python 3, make and a C++ compiler (build-essential on',
    '  Debian, the Xcode Command Line Tools on macOS, Visual Studio Build Tools on Windows).',
    "- On a first build, electron-builder's packaging tools (AppImage, fpm for the deb, NSIS), which it",
    '  downloads from GitHub (ELECTRON_BUILDER_BINARIES_MIRROR names a mirror).',
  ].join('\n');
}

/**
 * electron-builder rebuilds the SQLite addon for Electron inside node_modules; the tests and the
 * browser shell need Node's build back afterwards, whatever happened.
 */
async function keepingNodeSqlite<T>(work: () => Promise<T>): Promise<T> {
  const addon = join(root, ...SQLITE_ADDON.split('/'));
  if (!existsSync(addon)) return work();
  const saved = join(mkdtempSync(join(tmpdir(), 'earmark-dist-')), 'better_sqlite3.node');
  copyFileSync(addon, saved);
  try {
    return await work();
  } finally {
    // node-gyp's rebuild starts by deleting the build folder.
    mkdirSync(dirname(addon), { recursive: true });
    copyFileSync(saved, addon);
    rmSync(dirname(saved), { recursive: true, force: true });
  }
}

async function packageApp(
  target: RuntimeTarget,
  source: RuntimeSource,
  unpackedOnly: boolean,
): Promise<string[]> {
  const { build, Platform, Arch } = await import('electron-builder');
  const platforms = { linux: Platform.LINUX, win32: Platform.WINDOWS, darwin: Platform.MAC };
  // A download lands where the next run looks: the cache folder the environment names, if any.
  const chosenCache = process.env.ELECTRON_CACHE || process.env.electron_config_cache;
  return build({
    projectDir: root,
    publish: 'never',
    config: {
      ...config,
      ...('electronDist' in source ? { electronDist: source.electronDist } : {}),
      ...('download' in source && chosenCache ? { electronDownload: { cache: chosenCache } } : {}),
    },
    targets: platforms[target.platform].createTarget(
      unpackedOnly ? 'dir' : null,
      Arch[target.arch as keyof typeof Arch],
    ),
  });
}

async function main(): Promise<number> {
  let flags: Record<string, boolean | undefined>;
  try {
    flags = parseArgs({
      options: {
        linux: { type: 'boolean' },
        win: { type: 'boolean' },
        mac: { type: 'boolean' },
        dir: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    console.error(
      `${(error as Error).message}\nUsage: npm run dist [-- --linux | --win | --mac] [--dir]`,
    );
    return 2;
  }
  const host = hostTarget();
  const asked = Object.keys(PLATFORM_FLAGS).filter((flag) => flags[flag]);
  const platform = asked.length === 1 ? PLATFORM_FLAGS[asked[0]!]! : host.platform;
  if (asked.length > 1 || platform !== host.platform) {
    console.error(
      `This computer packages for ${OS_NAMES[host.platform]} only: the SQLite addon is compiled from source for the package, with the target system's own compiler. Build the ${asked.map((f) => OS_NAMES[PLATFORM_FLAGS[f]!]).join(' and ')} packages on ${asked.length > 1 ? 'each of those systems' : 'that system'} (for instance one CI runner per system). Nothing was built.`,
    );
    return 1;
  }

  const target = host;
  const [runtime, headers] = await Promise.all([checkRuntime(target), checkHeaders()]);
  const checks = [runtime.check, headers, checkToolchain(target.platform)];
  if (!runtime.source || checks.some((c) => !c.ok)) {
    console.error(explain(target, checks));
    return 1;
  }
  console.log(checks.map((c) => `✓ ${c.need}: ${c.details.join('; ')}`).join('\n'));

  const vite = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
  if (spawnSync(process.execPath, [vite, 'build'], { cwd: root, stdio: 'inherit' }).status !== 0)
    return 1;
  const artifacts = await keepingNodeSqlite(() =>
    packageApp(target, runtime.source!, flags.dir === true),
  );
  const made = artifacts.length
    ? artifacts.map((a) => `  ${relative(root, a)}`).join('\n')
    : `  the unpacked app, in ${config.directories!.output}/`;
  console.log(`\n${config.productName} for ${target.platform}-${target.arch}:\n${made}`);
  return 0;
}

process.exitCode = await main();

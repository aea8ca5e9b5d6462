// Electron's runtime for packaging (scripts/dist.ts) and for the real-Electron tests, found
// without downloading anything: requiring 'electron' would start a download when it is missing.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const electronPackage = join(projectRoot, 'node_modules', 'electron');

/** The Electron the app is built against: the version of node_modules/electron. */
export const ELECTRON_VERSION = (
  JSON.parse(readFileSync(join(electronPackage, 'package.json'), 'utf8')) as { version: string }
).version;

/**
 * Electron's command line for this project's app (`npm start`, the real-Electron tests): the app
 * folder itself, `electron .`, as a packaged app is loaded. Electron then takes package.json's
 * productName, version and main, app.getAppPath() is the folder holding resources/, and the
 * data goes to ~/.config/Earmark. (Given out/main/index.js instead, Electron runs the script from
 * out/main, named "Electron", with Electron's version and data folder.)
 */
export const appLaunchArgs = (args: readonly string[]): string[] => [projectRoot, ...args];

/**
 * Where `npm start` builds the SQLite addon (better-sqlite3-multiple-ciphers) for Electron's ABI,
 * beside the Node build the tests use; the real-Electron tests load it from there. Named for the
 * package, so a plain better-sqlite3 build an earlier version left beside it is never taken.
 */
export const electronSqliteAddon = (electronVersion: string): string =>
  join(projectRoot, '.earmark', 'electron', electronVersion, 'sqlite3mc', 'better_sqlite3.node');

/** The operating systems Earmark is packaged for, as Node and Electron's release files name them. */
export type ElectronPlatform = 'linux' | 'win32' | 'darwin';

export interface RuntimeTarget {
  platform: ElectronPlatform;
  /** As Electron's release files name it: x64, arm64, ia32, armv7l. */
  arch: string;
}

export const hostTarget = (): RuntimeTarget => ({
  platform: process.platform as ElectronPlatform,
  arch: process.arch === 'arm' ? 'armv7l' : process.arch,
});

/** Electron's release archive for a target, as GitHub, mirrors and caches name it. */
export const runtimeZipName = ({ platform, arch }: RuntimeTarget): string =>
  `electron-v${ELECTRON_VERSION}-${platform}-${arch}.zip`;

const EXECUTABLES: Record<ElectronPlatform, string> = {
  linux: 'electron',
  win32: 'electron.exe',
  darwin: 'Electron.app/Contents/MacOS/Electron',
};

export type Lookup<T> = ({ ok: true } & T) | { ok: false; reason: string };

/**
 * This computer's unpacked runtime: the folder ELECTRON_OVERRIDE_DIST_PATH names (Electron's own
 * variable) or else node_modules/electron/dist, holding this very version.
 */
export function unpackedRuntime(
  env: NodeJS.ProcessEnv = process.env,
): Lookup<{ folder: string; executable: string }> {
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  const folder = override || join(electronPackage, 'dist');
  const named = override ? `ELECTRON_OVERRIDE_DIST_PATH (${folder})` : folder;
  const versionFile = join(folder, 'version');
  if (!existsSync(versionFile)) return { ok: false, reason: `no Electron in ${named}` };
  const version = readFileSync(versionFile, 'utf8').trim().replace(/^v/, '');
  if (version !== ELECTRON_VERSION)
    return { ok: false, reason: `${named} holds Electron ${version}, not ${ELECTRON_VERSION}` };
  const executable = join(folder, EXECUTABLES[hostTarget().platform]);
  if (!existsSync(executable)) return { ok: false, reason: `${named} has no ${executable}` };
  return { ok: true, folder, executable };
}

/**
 * The folders Electron's downloads are cached in: ELECTRON_CACHE or electron_config_cache when
 * set (only those), else @electron/get's default, where `npm start` and electron-builder put them.
 */
export function electronCacheFolders(env: NodeJS.ProcessEnv = process.env): string[] {
  const chosen = [env.ELECTRON_CACHE, env.electron_config_cache].filter((f): f is string => !!f);
  if (chosen.length > 0) return chosen;
  switch (process.platform) {
    case 'darwin':
      return [join(homedir(), 'Library', 'Caches', 'electron')];
    case 'win32':
      return [join(env.LOCALAPPDATA || join(homedir(), 'AppData', 'Local'), 'electron', 'Cache')];
    default:
      return [join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'electron')];
  }
}

/** The SHA-256 Electron publishes for each release file (shipped in node_modules/electron). */
function publishedChecksum(file: string): string | undefined {
  const sums = JSON.parse(readFileSync(join(electronPackage, 'checksums.json'), 'utf8')) as Record<
    string,
    string
  >;
  return sums[file];
}

async function sha256(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * The target's release archive in a cache folder, at its top or in a subfolder (@electron/get
 * files each download under a hash of its address), checked against Electron's published
 * checksum: electron-builder does not check an archive it is handed.
 */
export async function cachedRuntimeZip(
  target: RuntimeTarget,
  folders: string[],
): Promise<Lookup<{ zip: string }>> {
  const name = runtimeZipName(target);
  const expected = publishedChecksum(name);
  const mismatched: string[] = [];
  for (const folder of folders) {
    const subfolders = existsSync(folder)
      ? readdirSync(folder, { withFileTypes: true }).filter((e) => e.isDirectory())
      : [];
    const candidates = [folder, ...subfolders.map((e) => join(folder, e.name))]
      .map((f) => join(f, name))
      .filter((f) => existsSync(f));
    for (const zip of candidates) {
      if (expected && (await sha256(zip)) !== expected) mismatched.push(zip);
      else return { ok: true, zip };
    }
  }
  const where = folders.join(', ');
  return {
    ok: false,
    reason: mismatched.length
      ? `${mismatched.join(', ')} does not match Electron's published checksum`
      : `no ${name} in the Electron cache (${where})`,
  };
}

/** An @electron/get setting (mirror, customDir) as it reads it: npm config first, then ELECTRON_*. */
function downloadSetting(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const snake = name.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase();
  return [
    `npm_config_electron_${name.toLowerCase()}`,
    `NPM_CONFIG_ELECTRON_${snake.toUpperCase()}`,
    `npm_config_electron_${snake}`,
    `npm_package_config_electron_${name}`,
    `npm_package_config_electron_${snake}`,
    `ELECTRON_${snake.toUpperCase()}`,
  ]
    .map((key) => env[key])
    .find(Boolean);
}

/**
 * The address electron-builder downloads the archive from (its @electron/get, same rules): GitHub's
 * release, or the mirror ELECTRON_MIRROR names (ending in "/"), in ELECTRON_CUSTOM_DIR if set.
 */
export function runtimeDownloadUrl(
  target: RuntimeTarget,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const mirror =
    downloadSetting('mirror', env) ?? 'https://github.com/electron/electron/releases/download/';
  const folder = (downloadSetting('customDir', env) ?? `v${ELECTRON_VERSION}`).replace(
    '{{ version }}',
    ELECTRON_VERSION,
  );
  return `${mirror}${folder}/${runtimeZipName(target)}`;
}

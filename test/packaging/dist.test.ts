// `npm run dist` where Electron's runtime cannot be had: it says what a build needs and stops
// before building anything. The run is real (npm, tsx, scripts/dist.ts); its runtime lookups are
// pointed at an empty folder and at a mirror on loopback that has no Electron, so it finds none
// even on a computer that has one. Its headers look-up is given a home that holds them, so the
// runtime is the one thing missing.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ELECTRON_VERSION,
  cachedRuntimeZip,
  electronCacheFolders,
  hostTarget,
  runtimeDownloadUrl,
  runtimeZipName,
  unpackedRuntime,
} from '../../scripts/electron-runtime';

const root = fileURLToPath(new URL('../..', import.meta.url));
const target = hostTarget();

let work: string;
let mirror: Server;
let mirrorUrl: string;
const mirrorRequests: string[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'earmark-dist-'));
  mirror = createServer((request, response) => {
    mirrorRequests.push(request.url!);
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => mirror.listen(0, '127.0.0.1', resolve));
  mirrorUrl = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  await new Promise((resolve) => mirror.close(resolve));
  rmSync(work, { recursive: true, force: true });
});

/** `npm run dist -- …args` with no way to Electron's runtime; its exit code and output. */
function runDist(args: string[]): Promise<{ code: number | null; output: string }> {
  const empty = mkdtempSync(join(work, 'empty-'));
  const home = mkdtempSync(join(work, 'home-'));
  mkdirSync(join(home, '.electron-gyp', ELECTRON_VERSION), { recursive: true });
  writeFileSync(join(home, '.electron-gyp', ELECTRON_VERSION, 'installVersion'), '11');
  // npm passes .npmrc settings on as npm_config_*, which would outrank ELECTRON_MIRROR.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => !/^(npm_config_electron|npm_package_config_electron|electron_)/i.test(key),
    ),
  );
  Object.assign(env, {
    ELECTRON_OVERRIDE_DIST_PATH: empty,
    ELECTRON_CACHE: empty,
    ELECTRON_MIRROR: mirrorUrl,
    HOME: home,
    USERPROFILE: home,
  });
  const child = spawn('npm', ['run', '--silent', 'dist', '--', ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, output })));
}

describe('npm run dist without an Electron runtime', () => {
  it('explains what a build needs and exits non-zero without building', async () => {
    const built = join(root, 'out', 'main', 'index.js');
    const builtAt = existsSync(built) ? statSync(built).mtimeMs : undefined;
    const distBefore = existsSync(join(root, 'dist'));

    const { code, output } = await runDist([]);

    expect(code).toBe(1);
    const zip = runtimeZipName(target);
    expect(output).toContain(`Cannot package Earmark for ${target.platform}-${target.arch} here`);
    expect(output).toContain(
      `✗ Electron ${ELECTRON_VERSION}'s runtime for ${target.platform}-${target.arch}`,
    );
    expect(output).toContain('no Electron in ELECTRON_OVERRIDE_DIST_PATH');
    expect(output).toContain(`no ${zip} in the Electron cache`);
    expect(output).toContain(`cannot download ${mirrorUrl}v${ELECTRON_VERSION}/${zip} (HTTP 404)`);
    expect(output).toContain(`✓ Electron ${ELECTRON_VERSION}'s headers`);
    for (const advice of [
      'run where GitHub is reachable',
      'set ELECTRON_MIRROR',
      'set ELECTRON_CACHE (or electron_config_cache)',
      'ELECTRON_OVERRIDE_DIST_PATH',
      'a C++ toolchain',
    ])
      expect(output).toContain(advice);
    // It asked the mirror for the runtime, once, and built nothing.
    expect(mirrorRequests).toEqual([`/v${ELECTRON_VERSION}/${zip}`]);
    expect(existsSync(join(root, 'dist'))).toBe(distBefore);
    expect(existsSync(built) ? statSync(built).mtimeMs : undefined).toBe(builtAt);
  }, 60_000);

  it("refuses another system's packages: the SQLite addon is compiled by the target's compiler", async () => {
    const other = target.platform === 'linux' ? '--win' : '--linux';
    const { code, output } = await runDist([other]);
    expect(code).toBe(1);
    expect(output).toMatch(/packages for (Linux|Windows|macOS) only/);
    expect(output).toContain('Nothing was built.');
  }, 60_000);

  it('names its flags when given another', async () => {
    const { code, output } = await runDist(['--deb']);
    expect(code).toBe(2);
    expect(output).toContain("Unknown option '--deb'");
    expect(output).toContain('Usage: npm run dist [-- --linux | --win | --mac] [--dir]');
  }, 60_000);
});

describe("finding Electron's runtime without downloading it", () => {
  it('takes an unpacked Electron of this very version from ELECTRON_OVERRIDE_DIST_PATH', () => {
    const folder = mkdtempSync(join(work, 'runtime-'));
    const env = { ELECTRON_OVERRIDE_DIST_PATH: folder };
    expect(unpackedRuntime(env)).toEqual({
      ok: false,
      reason: `no Electron in ELECTRON_OVERRIDE_DIST_PATH (${folder})`,
    });
    for (const executable of ['electron', 'electron.exe', 'Electron.app/Contents/MacOS/Electron']) {
      mkdirSync(join(folder, executable, '..'), { recursive: true });
      writeFileSync(join(folder, executable), '');
    }
    writeFileSync(join(folder, 'version'), '44.0.0');
    expect(unpackedRuntime(env)).toMatchObject({
      ok: false,
      reason: expect.stringContaining(`holds Electron 44.0.0, not ${ELECTRON_VERSION}`),
    });
    writeFileSync(join(folder, 'version'), `v${ELECTRON_VERSION}\n`);
    expect(unpackedRuntime(env)).toMatchObject({ ok: true, folder });
  });

  it('refuses a cached archive that is not the one Electron published', async () => {
    const cache = mkdtempSync(join(work, 'cache-'));
    expect(await cachedRuntimeZip(target, [cache])).toEqual({
      ok: false,
      reason: `no ${runtimeZipName(target)} in the Electron cache (${cache})`,
    });
    // @electron/get files each download under a hash of its address.
    const zip = join(cache, '4c5a1f0e', runtimeZipName(target));
    mkdirSync(join(zip, '..'));
    writeFileSync(zip, 'not Electron');
    expect(await cachedRuntimeZip(target, [cache])).toEqual({
      ok: false,
      reason: `${zip} does not match Electron's published checksum`,
    });
  });

  it('looks only in the cache folders the environment names, when it names any', () => {
    expect(electronCacheFolders({ ELECTRON_CACHE: '/srv/electron' })).toEqual(['/srv/electron']);
    expect(electronCacheFolders({ electron_config_cache: '/srv/e' })).toEqual(['/srv/e']);
    expect(electronCacheFolders({})).toHaveLength(1);
  });

  it('downloads from where electron-builder would: GitHub, or the mirror, as @electron/get reads it', () => {
    const linux = { platform: 'linux' as const, arch: 'x64' };
    const zip = `electron-v${ELECTRON_VERSION}-linux-x64.zip`;
    expect(runtimeDownloadUrl(linux, {})).toBe(
      `https://github.com/electron/electron/releases/download/v${ELECTRON_VERSION}/${zip}`,
    );
    const npmmirror = {
      ELECTRON_MIRROR: 'https://npmmirror.com/mirrors/electron/',
      ELECTRON_CUSTOM_DIR: '{{ version }}',
    };
    expect(runtimeDownloadUrl(linux, npmmirror)).toBe(
      `https://npmmirror.com/mirrors/electron/${ELECTRON_VERSION}/${zip}`,
    );
    expect(
      runtimeDownloadUrl(linux, { ...npmmirror, npm_config_electron_mirror: 'http://local/' }),
    ).toBe(`http://local/${ELECTRON_VERSION}/${zip}`);
  });
});

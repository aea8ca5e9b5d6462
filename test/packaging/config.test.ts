// electron-builder.config.ts, read by electron-builder's own loader and checked against its own
// schema, then held to what docs/packaging.md promises: targets, files, unpacked addons, fuses.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMatcher } from 'app-builder-lib/out/fileMatcher';
import { getConfig, validateConfiguration } from 'app-builder-lib/out/util/config/config';
import { DebugLogger } from 'builder-util';
import type { Configuration } from 'electron-builder';
import { beforeAll, describe, expect, it } from 'vitest';
import { APP_ID } from '../../src/main/electron/app-id';
import { SQLITE_ADDON, sqliteBinding } from '../../src/main/electron/sqlite-binding';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG_FILE = 'electron-builder.config.ts';

/** electron-builder's own filter for a list of patterns, as it applies `files` and `asarUnpack`. */
function matcher(patterns: string[]): (path: string) => boolean {
  const filter = new FileMatcher(root, root, (pattern) => pattern, patterns).createFilter();
  return (path) => filter(join(root, path), statSync(join(root, path)));
}

/** Every file of the project but node_modules: tracked or not, and the build in out/. */
function projectFiles(): string[] {
  const git = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  const out = join(root, 'out');
  const built = (existsSync(out) ? readdirSync(out, { recursive: true, encoding: 'utf8' }) : [])
    .map((path) => join('out', path))
    .filter((path) => statSync(join(root, path)).isFile());
  const listed = git.stdout
    .split('\n')
    .filter((path) => path && statSync(join(root, path), { throwIfNoEntry: false })?.isFile());
  return [...listed, ...built];
}

let config: Configuration;
beforeAll(async () => {
  config = await getConfig(root, CONFIG_FILE, null);
});

describe("electron-builder's configuration", () => {
  it('is what electron-builder loads from the file and accepts', async () => {
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    // The id the running app gives itself on Windows, and the name Electron reads from package.json.
    expect(config.appId).toBe(APP_ID);
    expect(APP_ID).toBe('app.earmark.desktop');
    const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      productName?: string;
    };
    expect(config.productName).toBe('Earmark');
    expect(packageJson.productName).toBe(config.productName);
  });

  it('builds the deb (the Linux package of record) and an AppImage, an NSIS installer on Windows, a dmg on macOS', () => {
    expect(config.linux?.target).toEqual(['deb', 'AppImage']);
    expect(config.win?.target).toEqual(['nsis']);
    expect(config.mac?.target).toEqual(['dmg']);
  });

  it('packs the electron-vite build, package.json and the demo speech, and no sources, tests or docs', () => {
    // The loader turns the list into file sets.
    const patterns = (config.files as { filter: string[] }[]).flatMap((set) => set.filter);
    const packed = matcher(patterns);
    const files = projectFiles();
    const expected = (path: string) =>
      path.startsWith('out/') ||
      path === 'package.json' ||
      /^resources\/demo-speech\/(manifest\.json|[^/]+\.(wav|m4a))$/.test(path);
    const wrong = files.filter((path) => packed(path) !== expected(path));
    expect(wrong).toEqual([]);
    for (const folder of ['src/', 'test/', 'docs/', 'scripts/', 'bench/', 'resources/build/'])
      expect(files.some((path) => path.startsWith(folder))).toBe(true);
    expect(files, 'the app is built (npm run build)').toContain('out/main/index.js');
  });

  it('unpacks the SQLite addon from the asar, where the packaged app looks for it', () => {
    const unpacked = matcher(config.asarUnpack as string[]);
    expect(unpacked(SQLITE_ADDON)).toBe(true);
    expect(unpacked('node_modules/better-sqlite3-multiple-ciphers/lib/database.js')).toBe(false);
    expect(unpacked('package.json')).toBe(false);
    const resources = join('/opt', 'Earmark', 'resources');
    expect(sqliteBinding({ isPackaged: true, resourcesPath: resources })).toBe(
      join(resources, 'app.asar.unpacked', ...SQLITE_ADDON.split('/')),
    );
  });

  it('has electron-builder compile the SQLite addon for Electron from source', () => {
    expect(config.npmRebuild).toBe(true);
    expect(config.buildDependenciesFromSource).toBe(true);
    expect(config.asar).toBe(true);
  });

  it('sets the fuses docs/packaging.md lists, and those exactly', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
      resetAdHocDarwinSignature: true,
    });
    // The doc's fuse table: | `name` | on/off | why |
    const documented = Object.fromEntries(
      [
        ...readFileSync(join(root, 'docs', 'packaging.md'), 'utf8').matchAll(
          /^\| `(\w+)` +\| (on|off) +\|/gm,
        ),
      ].map(([, name, state]) => [name, state === 'on']),
    );
    const { resetAdHocDarwinSignature, ...fuses } = config.electronFuses!;
    expect(resetAdHocDarwinSignature).toBe(true);
    expect(documented).toEqual(fuses);
  });

  it("keeps Chromium's sandbox in the deb: electron-builder's AppArmor profile and chrome-sandbox set-up", () => {
    // No script or profile of ours replaces electron-builder's, and nothing turns the sandbox off.
    expect(config.deb?.afterInstall).toBeUndefined();
    expect(config.deb?.afterRemove).toBeUndefined();
    expect(config.deb?.appArmorProfile).toBeUndefined();
    expect(JSON.stringify(config)).not.toContain('no-sandbox');
    // electron-builder's own: the profile lets the installed executable create user namespaces
    // (Ubuntu 24.04 denies them to unconfined programs), the script loads it, and makes
    // chrome-sandbox setuid only where the kernel has no user namespaces.
    const templates = join(root, 'node_modules', 'app-builder-lib', 'templates', 'linux');
    const profile = readFileSync(join(templates, 'apparmor-profile.tpl'), 'utf8');
    expect(profile).toContain(
      'profile "${executable}" "/opt/${sanitizedProductName}/${executable}" flags=(unconfined) {',
    );
    expect(profile).toMatch(/^\s*userns,$/m);
    const afterInstall = readFileSync(join(templates, 'after-install.tpl'), 'utf8');
    expect(afterInstall).toContain("APPARMOR_PROFILE_TARGET='/etc/apparmor.d/${executable}'");
    expect(afterInstall).toContain("chmod 4755 '/opt/${sanitizedProductName}/chrome-sandbox'");
    expect(readFileSync(join(templates, 'after-remove.tpl'), 'utf8')).toContain(
      'apparmor_parser --remove',
    );
  });

  it('writes the packages into a gitignored folder', () => {
    const output = config.directories?.output;
    expect(output).toBe('dist');
    const ignored = spawnSync(
      'git',
      ['check-ignore', '-q', join(output!, 'Earmark-0.1.0.AppImage')],
      { cwd: root },
    );
    expect(ignored.status).toBe(0);
  });

  it('has an icon of 1024 px in its build resources', () => {
    const folder = config.directories!.buildResources!;
    const png = readFileSync(join(root, folder, 'icon.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1024, 1024]);
  });
});

describe("the packaged app's SQLite addon", () => {
  const install = { isPackaged: true, resourcesPath: '/opt/Earmark/resources' };

  it('ignores EARMARK_SQLITE_BINDING once packaged: no environment variable loads native code', () => {
    expect(sqliteBinding(install, { EARMARK_SQLITE_BINDING: '/tmp/evil.node' })).toBe(
      sqliteBinding(install, {}),
    );
  });

  it("takes `npm start`'s Electron build unpackaged, else the package's own lookup", () => {
    const dev = { isPackaged: false, resourcesPath: '/usr/lib/electron/resources' };
    expect(sqliteBinding(dev, { EARMARK_SQLITE_BINDING: '/x/better_sqlite3.node' })).toBe(
      '/x/better_sqlite3.node',
    );
    expect(sqliteBinding(dev, {})).toBeUndefined();
  });
});

// electron-builder packs the app with electron-builder.config.ts, for real, as its deb target
// does: the unpacked app folder (what lands in app.asar, what beside it, the fuses it flips) and
// what it hands fpm for the deb (the install scripts, the AppArmor profile, where the app goes).
// Electron's runtime cannot be downloaded here, so where none is installed the build gets a
// stand-in: a file carrying Electron's fuse wire at Electron's defaults, which is all
// electron-builder reads or writes of the executable on Linux, beside Electron's chrome-sandbox.
// fpm, which electron-builder downloads from GitHub, is a stand-in too (CUSTOM_FPM_PATH): it
// records what it was given. Otherwise it differs from `npm run dist` in the native rebuild,
// left out on purpose (it compiles the SQLite addon for Electron against downloaded headers, and
// rewrites node_modules under the other tests' feet), so the addon packed here is Node's build,
// in the place Electron's goes.
import { announceSkip } from '../support/skip';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listPackage } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../../electron-builder.config';
import { ELECTRON_VERSION, unpackedRuntime } from '../../scripts/electron-runtime';
import { sqliteBinding } from '../../src/main/electron/sqlite-binding';

const root = fileURLToPath(new URL('../..', import.meta.url));

const FUSE_SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
// Electron's fuses as it ships them, in wire order (@electron/fuses' FuseV1Options), "1" = on.
const SHIPPED_FUSES = '10110001';

/** Electron's unpacked layout on Linux, with a stand-in executable holding a version-1 fuse wire. */
function standInRuntime(folder: string): string {
  mkdirSync(join(folder, 'resources'), { recursive: true });
  writeFileSync(join(folder, 'resources', 'default_app.asar'), '');
  writeFileSync(join(folder, 'version'), ELECTRON_VERSION);
  const wire = Buffer.concat([
    Buffer.from('#!/bin/sh\n'),
    Buffer.from(FUSE_SENTINEL),
    Buffer.from([1, SHIPPED_FUSES.length]),
    Buffer.from(SHIPPED_FUSES),
  ]);
  writeFileSync(join(folder, 'electron'), wire);
  chmodSync(join(folder, 'electron'), 0o755);
  writeFileSync(join(folder, 'chrome-sandbox'), '');
  return folder;
}

/** What electron-builder handed fpm: its arguments, and the scripts they name, read at the time. */
interface FpmCall {
  args: string[];
  afterInstall: string;
  afterRemove: string;
}

/** An fpm that records its call into `record` and makes an empty package where it was asked to. */
function standInFpm(folder: string, record: string): string {
  mkdirSync(folder, { recursive: true });
  const script = join(folder, 'fpm');
  writeFileSync(
    script,
    `#!${process.execPath}
const { readFileSync, writeFileSync } = require('node:fs');
const args = process.argv.slice(2);
const after = (flag) => args[args.indexOf(flag) + 1];
writeFileSync(${JSON.stringify(record)}, JSON.stringify({
  args,
  afterInstall: readFileSync(after('--after-install'), 'utf8'),
  afterRemove: readFileSync(after('--after-remove'), 'utf8'),
}));
writeFileSync(after('--package'), '');
`,
  );
  chmodSync(script, 0o755);
  return script;
}

const problem = announceSkip(
  'the packaging build test',
  process.platform !== 'linux'
    ? 'the stand-in runtime has the Linux layout'
    : !existsSync(join(root, 'out', 'main', 'index.js'))
      ? 'the app is not built (npm run build)'
      : undefined,
);

describe.skipIf(problem !== undefined)('the app electron-builder packs', () => {
  let work: string;
  let appDir: string;
  let packed: string[];
  let fpm: FpmCall;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'earmark-pack-'));
    const installed = unpackedRuntime();
    const record = join(work, 'fpm-call.json');
    const savedFpm = process.env.CUSTOM_FPM_PATH;
    process.env.CUSTOM_FPM_PATH = standInFpm(join(work, 'fpm'), record);
    const { build, Platform, Arch } = await import('electron-builder');
    await build({
      projectDir: root,
      publish: 'never',
      config: {
        ...config,
        npmRebuild: false,
        electronDist: installed.ok ? installed.folder : standInRuntime(join(work, 'electron')),
        directories: { ...config.directories, output: join(work, 'dist') },
      },
      targets: Platform.LINUX.createTarget('deb', Arch.x64),
    }).finally(() => {
      if (savedFpm === undefined) delete process.env.CUSTOM_FPM_PATH;
      else process.env.CUSTOM_FPM_PATH = savedFpm;
    });
    fpm = JSON.parse(readFileSync(record, 'utf8')) as FpmCall;
    appDir = join(work, 'dist', 'linux-unpacked');
    packed = listPackage(join(appDir, 'resources', 'app.asar'), { isPack: false }).map((p) =>
      p.replaceAll('\\', '/'),
    );
  }, 240_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('holds the electron-vite build, package.json, the demo speech and the production dependencies', () => {
    for (const file of [
      '/out/main/index.js',
      '/out/main/cache-worker.js',
      '/out/main/audio-worker.js',
      '/out/preload/index.cjs',
      '/out/renderer/index.html',
      '/package.json',
      '/resources/demo-speech/manifest.json',
      '/node_modules/fastify/package.json',
      '/node_modules/better-sqlite3-multiple-ciphers/lib/database.js',
    ])
      expect(packed).toContain(file);
    const speech = readdirSync(join(root, 'resources', 'demo-speech')).filter((f) =>
      /\.(wav|m4a)$/.test(f),
    );
    expect(speech.filter((f) => !packed.includes(`/resources/demo-speech/${f}`))).toEqual([]);
  });

  it('leaves out sources, tests, docs, dev dependencies, C sources and Electron’s default app', () => {
    const outside = packed.filter((p) =>
      /^\/(src|test|docs|scripts|bench|resources\/build|node_modules\/(electron|vitest|svelte|electron-builder|playwright-core)|node_modules\/better-sqlite3-multiple-ciphers\/(deps|src))(\/|$)/.test(
        p,
      ),
    );
    expect(outside).toEqual([]);
    expect(packed.some((p) => p.endsWith('test_extension.node'))).toBe(false);
    expect(existsSync(join(appDir, 'resources', 'default_app.asar'))).toBe(false);
  });

  it('puts the SQLite addon beside the archive, where the packaged app loads it', () => {
    const binding = sqliteBinding({ isPackaged: true, resourcesPath: join(appDir, 'resources') })!;
    expect(existsSync(binding)).toBe(true);
    expect(readFileSync(binding).subarray(1, 4).toString('latin1')).toBe('ELF');
  });

  it('flips the fuses as configured', async () => {
    const wire = await getCurrentFuseWire(join(appDir, config.linux!.executableName!));
    const fuses = config.electronFuses!;
    const expected: [FuseV1Options, boolean | undefined][] = [
      [FuseV1Options.RunAsNode, fuses.runAsNode],
      [FuseV1Options.EnableCookieEncryption, fuses.enableCookieEncryption],
      [
        FuseV1Options.EnableNodeOptionsEnvironmentVariable,
        fuses.enableNodeOptionsEnvironmentVariable,
      ],
      [FuseV1Options.EnableNodeCliInspectArguments, fuses.enableNodeCliInspectArguments],
      [
        FuseV1Options.EnableEmbeddedAsarIntegrityValidation,
        fuses.enableEmbeddedAsarIntegrityValidation,
      ],
      [FuseV1Options.OnlyLoadAppFromAsar, fuses.onlyLoadAppFromAsar],
      [FuseV1Options.GrantFileProtocolExtraPrivileges, fuses.grantFileProtocolExtraPrivileges],
    ];
    // "1" (49) on, "0" (48) off.
    expect(expected.map(([index]) => String.fromCharCode(wire[index]!))).toEqual(
      expected.map(([, on]) => (on ? '1' : '0')),
    );
  });

  it('installs the deb in /opt/Earmark with the AppArmor profile that lets its sandbox start', () => {
    // The app folder becomes /opt/Earmark, the executable /opt/Earmark/earmark.
    const executable = config.linux!.executableName!;
    expect(fpm.args).toContain(`${appDir}/=/opt/Earmark`);
    expect(existsSync(join(appDir, executable))).toBe(true);
    expect(existsSync(join(appDir, 'chrome-sandbox'))).toBe(true);
    expect(fpm.args.slice(fpm.args.indexOf('-t'), fpm.args.indexOf('-t') + 2)).toEqual([
      '-t',
      'deb',
    ]);
    // The profile, shipped in the app's resources, names that executable and grants it userns.
    const profile = readFileSync(join(appDir, 'resources', 'apparmor-profile'), 'utf8');
    expect(profile).toContain(
      `profile "${executable}" "/opt/Earmark/${executable}" flags=(unconfined) {`,
    );
    expect(profile).toMatch(/^\s*userns,$/m);
    // After installing, the profile is put in place and loaded; chrome-sandbox is made setuid
    // only where the kernel has no user namespaces at all.
    expect(fpm.afterInstall).toContain(
      "APPARMOR_PROFILE_SOURCE='/opt/Earmark/resources/apparmor-profile'",
    );
    expect(fpm.afterInstall).toContain(`APPARMOR_PROFILE_TARGET='/etc/apparmor.d/${executable}'`);
    expect(fpm.afterInstall).toContain('apparmor_parser --replace');
    expect(fpm.afterInstall).toContain("chmod 4755 '/opt/Earmark/chrome-sandbox'");
    expect(fpm.afterRemove).toContain(`APPARMOR_PROFILE_DEST='/etc/apparmor.d/${executable}'`);
    expect(`${fpm.afterInstall}${fpm.afterRemove}${profile}`).not.toContain('no-sandbox');
  });
});

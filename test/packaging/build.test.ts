// electron-builder packs the app with electron-builder.config.ts, for real, into an unpacked app
// folder (its "dir" target): what lands in app.asar, what beside it, and the fuses it flips.
// Electron's runtime cannot be downloaded here, so where none is installed the build gets a
// stand-in: a file carrying Electron's fuse wire at Electron's defaults, which is all electron-builder
// reads or writes of the executable on Linux. Two things differ from `npm run dist`, on purpose:
// no installers (their tools are downloaded from GitHub) and no native rebuild (it compiles
// better-sqlite3 for Electron against downloaded headers, and rewrites node_modules under the
// other tests' feet), so the addon packed here is Node's build, in the place Electron's goes.
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
  return folder;
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

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'earmark-pack-'));
    const installed = unpackedRuntime();
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
      targets: Platform.LINUX.createTarget('dir', Arch.x64),
    });
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
      '/node_modules/better-sqlite3/lib/database.js',
    ])
      expect(packed).toContain(file);
    const speech = readdirSync(join(root, 'resources', 'demo-speech')).filter((f) =>
      /\.(wav|m4a)$/.test(f),
    );
    expect(speech.filter((f) => !packed.includes(`/resources/demo-speech/${f}`))).toEqual([]);
  });

  it('leaves out sources, tests, docs, dev dependencies, C sources and Electron’s default app', () => {
    const outside = packed.filter((p) =>
      /^\/(src|test|docs|scripts|bench|resources\/build|node_modules\/(electron|vitest|svelte|electron-builder|playwright-core)|node_modules\/better-sqlite3\/(deps|src))(\/|$)/.test(
        p,
      ),
    );
    expect(outside).toEqual([]);
    expect(packed.some((p) => p.endsWith('test_extension.node'))).toBe(false);
    expect(existsSync(join(appDir, 'resources', 'default_app.asar'))).toBe(false);
  });

  it("puts better-sqlite3's addon beside the archive, where the packaged app loads it", () => {
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
});

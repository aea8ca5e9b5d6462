// `npm start`: Earmark in Electron where its runtime is available (fetching it on first run where
// the network allows), otherwise the browser shell, saying why. `--demo` opens the demo clinic.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { appLaunchArgs, electronSqliteAddon } from './electron-runtime';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const run = (command: string, argv: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(command, argv, { cwd: root, stdio: 'inherit', env });

const electronPackage = join(root, 'node_modules', 'electron');

/**
 * The Electron executable, found where its package records it. Not `require('electron')`: that
 * starts a download of its own, printing a stack trace to the terminal whenever it fails.
 */
function installedElectron(): string | undefined {
  const pathFile = join(electronPackage, 'path.txt');
  if (!existsSync(pathFile)) return undefined;
  const executable = join(electronPackage, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(executable) ? executable : undefined;
}

/** The Electron executable, or why there is none, in one sentence. */
function electronRuntime(): { path: string } | { missing: string } {
  const found = installedElectron();
  if (found) return { path: found };
  // Electron's postinstall is denied (package.json allowScripts): fetch the runtime now, once,
  // with its output kept back; only the reason it failed is shown.
  process.stderr.write("Electron's runtime is not installed; downloading it…\n");
  const install = spawnSync(process.execPath, [join(electronPackage, 'install.js')], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
  });
  const installed = installedElectron();
  if (installed) return { path: installed };
  return {
    missing: `Electron's runtime could not be downloaded (${downloadFailure(install)}).`,
  };
}

/** Why the download failed, from its output: the error's message, not its stack trace. */
function downloadFailure(install: ReturnType<typeof spawnSync>): string {
  if (install.error) return install.error.message;
  const output = `${String(install.stderr ?? '')}\n${String(install.stdout ?? '')}`;
  const error = /^\s*(?:\w*Error|Error):\s*(.+)$/m.exec(output)?.[1]?.trim();
  if (error === 'fetch failed') return 'the download site could not be reached';
  return error ?? `the installer exited with code ${install.status ?? 'unknown'}`;
}

/** The SQLite addon (better-sqlite3-multiple-ciphers) built for Electron's ABI, from source. */
function electronSqliteBinding(electronVersion: string): string | undefined {
  const target = electronSqliteAddon(electronVersion);
  if (existsSync(target)) return target;
  const work = join(root, '.earmark', 'electron', 'build-sqlite3mc');
  cpSync(join(root, 'node_modules', 'better-sqlite3-multiple-ciphers'), work, { recursive: true });
  const built = run('npx', [
    '--yes',
    'node-gyp',
    'rebuild',
    `--target=${electronVersion}`,
    '--dist-url=https://electronjs.org/headers',
    `--directory=${work}`,
  ]);
  if (built.status !== 0) return undefined;
  mkdirSync(join(target, '..'), { recursive: true });
  cpSync(join(work, 'build', 'Release', 'better_sqlite3.node'), target);
  return target;
}

const runtime = electronRuntime();
if ('path' in runtime) {
  if (run(bin('electron-vite'), ['build']).status !== 0) process.exit(1);
  const version = spawnSync(runtime.path, ['--version'], { encoding: 'utf8' })
    .stdout.trim()
    .replace(/^v/, '');
  const binding = electronSqliteBinding(version);
  if (!binding)
    process.stderr.write(
      'Could not build the SQLite addon (better-sqlite3-multiple-ciphers) for Electron; the demo clinic and the offline cache will not open.\n',
    );
  const env = { ...process.env, ...(binding ? { EARMARK_SQLITE_BINDING: binding } : {}) };
  spawn(runtime.path, appLaunchArgs(args), {
    cwd: root,
    stdio: 'inherit',
    env,
  }).on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write(
    `${runtime.missing} Opening Earmark in the browser shell instead (the same app, served only to this computer).\n`,
  );
  spawn(bin('tsx'), [join(root, 'src', 'main', 'web', 'cli.ts'), ...args], {
    cwd: root,
    stdio: 'inherit',
  }).on('exit', (code) => process.exit(code ?? 0));
}

// `npm start`: Earmark in Electron where its runtime is available (fetching it on first run where
// the network allows), otherwise the browser shell, saying why. `--demo` opens the demo clinic.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const run = (command: string, argv: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(command, argv, { cwd: root, stdio: 'inherit', env });

/** The Electron executable, or why there is none. */
function electronRuntime(): { path: string } | { missing: string } {
  const require = createRequire(import.meta.url);
  const locate = (): string | undefined => {
    try {
      const path = require('electron') as unknown as string;
      return existsSync(path) ? path : undefined;
    } catch {
      return undefined;
    }
  };
  const found = locate();
  if (found) return { path: found };
  // Electron's postinstall is denied (package.json allowScripts): fetch the runtime now.
  const install = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'electron', 'install.js')],
    {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    },
  );
  const retried = locate();
  if (retried) return { path: retried };
  const reason = (install.stderr || install.stdout || install.error?.message || 'no output')
    .trim()
    .split('\n')
    .slice(-1)[0];
  return {
    missing: `Electron's runtime is not installed and could not be downloaded (${reason}).`,
  };
}

/** better-sqlite3 built for Electron's ABI, beside the Node build the tests use. */
function electronSqliteBinding(electronVersion: string): string | undefined {
  const target = join(root, '.earmark', 'electron', electronVersion, 'better_sqlite3.node');
  if (existsSync(target)) return target;
  const work = join(root, '.earmark', 'electron', 'build-better-sqlite3');
  cpSync(join(root, 'node_modules', 'better-sqlite3'), work, { recursive: true });
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
      'Could not build better-sqlite3 for Electron; the demo clinic will not open.\n',
    );
  const env = { ...process.env, ...(binding ? { EARMARK_SQLITE_BINDING: binding } : {}) };
  spawn(runtime.path, [join(root, 'out', 'main', 'index.js'), ...args], {
    cwd: root,
    stdio: 'inherit',
    env,
  }).on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write(`${runtime.missing}\nStarting the browser shell instead.\n`);
  spawn(bin('tsx'), [join(root, 'src', 'main', 'web', 'cli.ts'), ...args], {
    cwd: root,
    stdio: 'inherit',
  }).on('exit', (code) => process.exit(code ?? 0));
}

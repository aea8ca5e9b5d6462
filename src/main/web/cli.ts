import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createCore } from '../core';
import { DAILY_CLEANUP } from '../retention/runner';
import { defaultDataDir } from '../base/paths';
import { guardProcess } from '../shell/process-guard';
import { keepFilesPrivate } from '../../node-common/private-files';
import { browserProfileDir, forgetCachedMedia } from './browser-profile';
import { findChromium } from './chromium';
import {
  browserArguments,
  removeStaleLaunchPage,
  writeLaunchPage,
  type LaunchPage,
} from './launch-page';
import { MediaCapabilities } from './media-capability';
import { startWebShell } from './server';
import { systemOpener } from './system-open';

const USAGE = `Usage: npm run --silent web -- [--demo] [--demo-dialect seed|field] [--port N]
    [--no-open] [--data DIR]

Starts Earmark's browser shell: the app's core in Node and its window in a browser, on this
machine only. The first line of stdout is one JSON object: {"url": "<address with token>"}.
--demo-dialect field runs the demo clinic as the service behaves in the field
(docs/reference-service.md, "Dialects"); seed, the default, as the seed describes it.`;

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const rendererDir = join(repoRoot, 'out', 'renderer');

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

/** Builds the renderer when there is no build yet; the build's output goes to stderr. */
function ensureRendererBuilt(): void {
  if (existsSync(join(rendererDir, 'index.html'))) return;
  process.stderr.write('Building the renderer (first run)…\n');
  const build = spawnSync(join(repoRoot, 'node_modules', '.bin', 'electron-vite'), ['build'], {
    cwd: repoRoot,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (build.status !== 0) fail('The renderer build failed (see above).');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      demo: { type: 'boolean', default: false },
      'demo-dialect': { type: 'string', default: 'seed' },
      port: { type: 'string', default: '0' },
      'no-open': { type: 'boolean', default: false },
      data: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) return void process.stdout.write(`${USAGE}\n`);
  if (!/^\d+$/.test(values.port)) fail(`--port must be a whole number, not "${values.port}".`);
  const demoDialect = values['demo-dialect'];
  if (demoDialect !== 'seed' && demoDialect !== 'field')
    fail(`--demo-dialect must be seed or field, not "${demoDialect}".`);
  keepFilesPrivate();
  const dataDir = resolve(values.data ?? defaultDataDir());
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const profileDir = browserProfileDir(dataDir);
  removeStaleLaunchPage(dataDir);
  ensureRendererBuilt();

  const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  // Without xdg-open (a server, CI) links and folders are not opened, and the app says so.
  const open = systemOpener();
  guardProcess((message) => process.stderr.write(`${message}\n`));
  const media = new MediaCapabilities();
  const core = createCore({
    dataDir,
    shell: 'browser',
    version,
    openExternal: open,
    openFolder: open,
    demoDialect,
    mediaUrl: media.urlOf,
    cleanupSchedule: DAILY_CLEANUP,
    forgetAccount: async () => {
      await forgetCachedMedia(profileDir);
    },
  });
  if (values.demo) {
    const opened = await core.rpc.invoke('accounts.openDemo', {});
    if (!opened.ok) process.stderr.write(`The demo clinic did not open: ${opened.error.message}\n`);
  }
  let launchPage: LaunchPage | undefined;
  // The launch page has done its work once the browser has come to the app: it goes at once.
  const shell = await startWebShell({
    core,
    media,
    rendererDir,
    port: Number(values.port),
    opened: () => launchPage?.remove(),
  });
  process.stdout.write(`${JSON.stringify({ url: shell.url })}\n`);

  if (!values['no-open']) {
    const chromium = findChromium();
    if (chromium) {
      launchPage = writeLaunchPage(dataDir, shell.url);
      spawn(chromium, browserArguments(launchPage.url, profileDir), {
        stdio: 'ignore',
        detached: true,
      }).unref();
    } else {
      process.stderr.write(`Open ${shell.url} in your browser.\n`);
    }
  }

  const stop = async () => {
    launchPage?.remove();
    await shell.close();
    await core.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('SIGHUP', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});

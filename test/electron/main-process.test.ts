// The Electron main process (src/main/index.ts) on a fake Electron (its runtime cannot run
// here) around the real core: launched as `npm start` launches it, quitting, a failed start, a
// second launch, the permissions and the system's certificate store. The fake models Electron's
// launch rules (test/support/fake-electron.ts); the core, its SQLite, the demo clinic and the
// reference service behind a TLS-inspecting proxy are real.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as NodeTls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import config from '../../electron-builder.config';
import { appLaunchArgs } from '../../scripts/electron-runtime';
import type { AccountSummary, AppInfo, IpcResult } from '../../src/shared/ipc';
import { ELECTRON_INVOKE_CHANNEL } from '../../src/shared/ipc';
import { startService } from '../service/harness';
import { app, launch, type Launch } from '../support/fake-electron';
import { startTlsProxy } from '../support/tls-proxy';

vi.mock('electron', () => import('../support/fake-electron'));

// Node's tls as Electron 45 has it: tls.getCACertificates, whose 'system' store is what a test
// puts here (Node 20, here, cannot read the real store).
const systemStore = vi.hoisted(() => ({ authorities: [] as string[] }));
vi.mock('node:tls', async (importOriginal) => {
  const tls = await importOriginal<typeof NodeTls>();
  const getCACertificates = (type: string) =>
    type === 'system' ? systemStore.authorities : [...tls.rootCertificates];
  return { ...tls, getCACertificates, default: { ...tls, getCACertificates } };
});

const root = fileURLToPath(new URL('../..', import.meta.url));
const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
};
const ENTRY = join(root, 'src', 'main', 'index.ts');
let launches = 0;
const APP_PAGE = { senderFrame: { url: 'earmark://app/index.html', parent: null } };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * Starts src/main/index.ts as Electron would for `electron ...args`, in a home folder of its
 * own; quits it (and removes the folder) after the test.
 */
async function start(args: string[], options: Parameters<typeof launch>[2] = {}) {
  const home = mkdtempSync(join(tmpdir(), 'earmark-main-'));
  const launched = launch(args, home, options);
  const saved = { argv: process.argv, umask: process.umask() };
  const guards = {
    uncaughtException: process.listeners('uncaughtException'),
    unhandledRejection: process.listeners('unhandledRejection'),
  };
  cleanups.push(async () => {
    if (!launched.quit && launched.exitCode === undefined) {
      app.quit();
      await vi.waitFor(() => expect(launched.quit).toBe(true), { timeout: 10_000 });
    }
    process.argv = saved.argv;
    process.umask(saved.umask);
    // The process guard the entry installs: this test process keeps its own.
    for (const listener of process.listeners('uncaughtException'))
      if (!guards.uncaughtException.includes(listener)) process.off('uncaughtException', listener);
    for (const listener of process.listeners('unhandledRejection'))
      if (!guards.unhandledRejection.includes(listener))
        process.off('unhandledRejection', listener);
    rmSync(home, { recursive: true, force: true });
  });
  process.argv = [join(home, 'electron'), ...args];
  // A fresh instance of the entry module for each launch (its imports stay loaded).
  await import(/* @vite-ignore */ `${ENTRY}?launch=${++launches}`);
  return { launched, home };
}

/** Waits for the window to have loaded the app's page. */
const loaded = (launched: Launch) =>
  vi.waitFor(() => expect(launched.windows[0]?.loadedUrl).toBe('earmark://app/index.html'), {
    timeout: 60_000,
    interval: 50,
  });

/** A call from the app's page, through the IPC the shell registered. */
function invoke<T>(launched: Launch, channel: string, input: unknown) {
  const handler = launched.ipcHandlers.get(ELECTRON_INVOKE_CHANNEL)!;
  return handler(APP_PAGE, channel, input) as Promise<IpcResult<T>>;
}

describe('the Electron app, launched as npm start launches it', () => {
  it('is the app folder: named and versioned by package.json, data in ~/.config/Earmark, the demo clinic open', async () => {
    const { launched, home } = await start(appLaunchArgs(['--demo']));
    await loaded(launched);
    // The demo clinic found its recorded speech under the app folder's resources/.
    const accounts = await invoke<AccountSummary[]>(launched, 'accounts.list', {});
    expect(accounts).toMatchObject({ ok: true, value: [{ demo: true }] });
    const info = await invoke<AppInfo>(launched, 'app.info', {});
    expect(info).toMatchObject({ ok: true, value: { version: packageJson.version } });
    expect(app.name).toBe('Earmark');
    expect(readFileSync(join(home, '.config', 'Earmark', 'accounts.json'), 'utf8')).toContain(
      (accounts as { value: AccountSummary[] }).value[0]!.id,
    );
    expect(launched.appPath).toBe(root.replace(/\/$/, ''));
  }, 90_000);
});

describe('quitting', () => {
  it('waits for the core to close — every SQLite database closed — before the app quits', async () => {
    const { launched, home } = await start(appLaunchArgs(['--demo']));
    await loaded(launched);
    // An open WAL database has its -wal file beside it; closing folds it back and removes it.
    const userData = join(home, '.config', 'Earmark');
    const openDatabases = () =>
      readdirSync(userData, { recursive: true, encoding: 'utf8' }).filter((f) =>
        f.endsWith('-wal'),
      );
    expect(openDatabases()).toContain(join('demo-service', 'service.sqlite-wal'));
    let openAtQuit: string[] | undefined;
    app.on('quit', () => (openAtQuit = openDatabases()));

    app.quit();
    app.quit(); // a second Quit while the first is closing
    await vi.waitFor(() => expect(launched.quit).toBe(true), { timeout: 10_000 });
    expect(openAtQuit).toEqual([]);
    expect(launched.events).toEqual([
      'before-quit (held)',
      'before-quit (held)',
      'before-quit',
      'will-quit',
      'quit',
    ]);
  }, 90_000);
});

describe('a start that fails', () => {
  it('says so in a dialog with what to do, releases the lock and exits non-zero', async () => {
    const { launched } = await start(appLaunchArgs([]), {
      failLoad: new Error('ERR_FILE_NOT_FOUND (-6) loading earmark://app/index.html'),
    });
    await vi.waitFor(() => expect(launched.exitCode).toBe(1), { timeout: 30_000 });
    expect(launched.errorBoxes).toEqual([
      {
        title: 'Earmark could not start',
        content: expect.stringMatching(
          /^ERR_FILE_NOT_FOUND \(-6\) loading earmark:\/\/app\/index\.html\n\nOpen Earmark again\./,
        ),
      },
    ]);
    expect(launched.lockReleased).toBe(true);
  }, 60_000);

  it('names the demo clinic when it cannot open (its speech not found from out/main)', async () => {
    // Electron given the script instead of the app folder runs it from out/main.
    const { launched } = await start([join(root, 'out', 'main', 'index.js'), '--demo']);
    await vi.waitFor(() => expect(launched.exitCode).toBe(1), { timeout: 30_000 });
    expect(launched.errorBoxes[0]?.content).toMatch(/^The demo clinic could not be opened/);
    expect(launched.lockReleased).toBe(true);
  }, 60_000);
});

describe('a second launch', () => {
  it('brings the first instance forward', async () => {
    const { launched } = await start(appLaunchArgs([]));
    await loaded(launched);
    const window = launched.windows[0]!;
    window.minimized = true;
    app.emit('second-instance', {}, ['electron', '.'], root);
    expect(window).toMatchObject({ minimized: false, focused: true });
  }, 60_000);

  it('exits at once itself, starting nothing', async () => {
    const { launched } = await start(appLaunchArgs([]), { hasLock: false });
    expect(launched.exitCode).toBe(0);
    expect(launched.events).toEqual(['exit:0']);
    expect(launched.readyAwaited).toBe(false);
  });
});

describe('permissions', () => {
  it("lets the app's page show notifications, and no frame inside it", async () => {
    const { launched } = await start(appLaunchArgs([]));
    await loaded(launched);
    const request = (isMainFrame: boolean) =>
      new Promise((resolve) =>
        launched.permissionRequest!(null, 'notifications', resolve, {
          requestingUrl: 'earmark://app/index.html',
          isMainFrame,
        }),
      );
    expect(await request(true)).toBe(true);
    expect(await request(false)).toBe(false);
    const check = (origin: string) =>
      launched.permissionCheck!(null, 'notifications', origin, { isMainFrame: true });
    expect(check('earmark://app')).toBe(true);
    expect(check('https://evil.example')).toBe(false);
  }, 60_000);

  it("carries the installer's app id on Windows, which toasts need", async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'win32' });
    try {
      const { launched } = await start(appLaunchArgs([]));
      expect(launched.appUserModelId).toBe(config.appId);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  }, 60_000);
});

describe("the system's certificate store", () => {
  it("is trusted: an account behind the clinic's TLS-inspecting proxy can be added", async () => {
    const service = await startService();
    const proxy = await startTlsProxy(service.baseUrl, 'Clinic inspection CA');
    cleanups.push(() => service.dispose());
    cleanups.push(() => proxy.close());
    systemStore.authorities = [proxy.authority];
    cleanups.push(() => void (systemStore.authorities = []));

    const { launched } = await start(appLaunchArgs([]));
    await loaded(launched);
    const added = await invoke<AccountSummary>(launched, 'accounts.add', {
      baseUrl: `${proxy.origin}${new URL(service.baseUrl).pathname}`,
      apiKey: service.credentials.primary.apiKey,
      sessionOnly: true,
    });
    expect(added).toMatchObject({
      ok: true,
      value: { organizationId: service.credentials.primary.organizationId },
    });
  }, 60_000);
});

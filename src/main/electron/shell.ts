// The Electron shell: window, earmark:// protocol, IPC, menu and the process's life around the
// core of src/main/core.ts (which the browser shell hosts too). It takes Electron's modules as an
// argument: src/main/index.ts passes the real ones, the tests a fake.
import type * as Electron from 'electron';
import { join } from 'node:path';
import { createCore, type Core } from '../core';
import { DAILY_CLEANUP } from '../retention/runner';
import { connectService } from '../service-client/connect';
import { APP_ID } from './app-id';
import { folderDialog, folderOpener } from './folders';
import { registerIpc } from './ipc';
import { closeBeforeQuit, claimSingleInstance, failStartup } from './lifecycle';
import { menuTemplate } from './menu';
import { APP_ORIGIN, APP_SCHEME_PRIVILEGES, registerAppProtocol } from './protocol';
import { hardenWebContents, restrictPermissions } from './security';
import { sqliteBinding } from './sqlite-binding';
import { systemCertificateTrust, type CertificateTrust } from './system-ca';
import { loadWindowState, saveWindowState, windowOptions } from './window';

/** The parts of Electron's main-process API the shell uses. */
export type ElectronMain = Pick<
  typeof Electron,
  | 'app'
  | 'BrowserWindow'
  | 'dialog'
  | 'ipcMain'
  | 'Menu'
  | 'protocol'
  | 'screen'
  | 'session'
  | 'shell'
>;

export interface ShellOptions {
  /** The built renderer folder and preload bundle. */
  rendererDir: string;
  preload: string;
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  log: (message: string) => void;
}

/**
 * Starts the app: one instance (a second launch ends at once and brings the first forward), a
 * start-up failure shown in a dialog before the process exits non-zero, and a quit that waits
 * for the core's clean-up. Resolves once the window is loaded, or the start-up has failed.
 */
export async function startElectronShell(
  electron: ElectronMain,
  options: ShellOptions,
): Promise<void> {
  const { app, BrowserWindow, dialog, ipcMain, Menu, protocol, screen, session, shell } = electron;
  const { log } = options;

  protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
  // Tests and portable installs may point the data folder elsewhere.
  if (options.env.EARMARK_DATA_DIR) app.setPath('userData', options.env.EARMARK_DATA_DIR);
  let window: Electron.BrowserWindow | undefined;
  if (!claimSingleInstance(app, () => window)) return;
  if (options.platform === 'win32') app.setAppUserModelId(APP_ID);

  // Read once, for the first service reached over HTTPS: the store may take a while to read
  // (and parsing the authorities some 30 ms), which the demo clinic (plain HTTP on loopback)
  // never needs.
  let trust: CertificateTrust | undefined;
  const systemTrust = (baseUrl: string) => {
    if (!/^https:/i.test(baseUrl)) return {};
    if (!trust) {
      trust = systemCertificateTrust();
      if (!trust.ok) log(trust.reason);
    }
    return trust.ok ? { secureContext: trust.secureContext } : {};
  };

  let core: Core | undefined;
  try {
    await app.whenReady();
    const dataDir = app.getPath('userData');
    const stateFile = join(dataDir, 'window-state.json');
    const openExternal = (url: string) => shell.openExternal(url);
    const opened = createCore({
      dataDir,
      shell: 'electron',
      // package.json's, when Electron is given the app folder (`electron .`, or packaged).
      version: app.getVersion(),
      openExternal,
      chooseFolder: folderDialog(dialog, () => window),
      openFolder: folderOpener(shell),
      resourcesDir: join(app.getAppPath(), 'resources'),
      cleanupSchedule: DAILY_CLEANUP,
      sqliteBinding: sqliteBinding({
        isPackaged: app.isPackaged,
        resourcesPath: process.resourcesPath,
      }),
      connect: (baseUrl, apiKey) => connectService(baseUrl, apiKey, systemTrust(baseUrl)),
    });
    core = opened;
    const unregister = registerIpc(ipcMain, opened, () => BrowserWindow.getAllWindows());
    closeBeforeQuit(
      app,
      async () => {
        unregister();
        await opened.close();
      },
      log,
    );

    restrictPermissions(session.defaultSession);
    registerAppProtocol(protocol, options.rendererDir, (request, labelId) =>
      opened.media(request, labelId),
    );
    Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(options.platform, app.name)));

    const state = loadWindowState(
      stateFile,
      screen.getAllDisplays().map((d) => d.workArea),
    );
    const created = new BrowserWindow(windowOptions(options.preload, state));
    window = created;
    hardenWebContents(created.webContents, openExternal);
    if (state?.maximized) created.maximize();
    created.once('ready-to-show', () => created.show());
    created.on('close', () =>
      saveWindowState(stateFile, {
        bounds: created.getNormalBounds(),
        maximized: created.isMaximized(),
      }),
    );
    app.on('window-all-closed', () => app.quit());

    if (options.argv.includes('--demo')) {
      const demo = await opened.rpc.invoke('accounts.openDemo', {});
      if (!demo.ok) throw new Error(`The demo clinic could not be opened: ${demo.error.message}`);
    }
    await created.loadURL(`${APP_ORIGIN}/index.html`);
  } catch (error) {
    const started = core;
    await failStartup(app, dialog, error, log, started && (() => started.close()));
  }
}

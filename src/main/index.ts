// The Electron shell: the only main-side entry that imports 'electron'. Everything it hosts is
// the core of src/main/core.ts, which the browser shell hosts too.
import {
  BrowserWindow,
  Menu,
  app,
  dialog,
  ipcMain,
  protocol,
  screen,
  session,
  shell,
} from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCore } from './core';
import { guardProcess } from './shell/process-guard';
import { keepFilesPrivate } from './shell/private-files';
import { folderDialog, folderOpener } from './electron/folders';
import { registerIpc } from './electron/ipc';
import { menuTemplate } from './electron/menu';
import { APP_ORIGIN, APP_SCHEME_PRIVILEGES, registerAppProtocol } from './electron/protocol';
import { denyPermissions, hardenWebContents } from './electron/security';
import { sqliteBinding } from './electron/sqlite-binding';
import { loadWindowState, saveWindowState, windowOptions } from './electron/window';

const here = fileURLToPath(new URL('.', import.meta.url));
const rendererDir = join(here, '../renderer');
const preload = join(here, '../preload/index.cjs');

protocol.registerSchemesAsPrivileged([APP_SCHEME_PRIVILEGES]);
// Tests and portable installs may point the data folder elsewhere.
if (process.env.EARMARK_DATA_DIR) app.setPath('userData', process.env.EARMARK_DATA_DIR);
if (!app.requestSingleInstanceLock()) app.quit();

guardProcess((message) => process.stderr.write(`${message}\n`));
keepFilesPrivate();

app.whenReady().then(async () => {
  const dataDir = app.getPath('userData');
  const stateFile = join(dataDir, 'window-state.json');
  const openExternal = (url: string) => shell.openExternal(url);
  const resourcesDir = join(app.getAppPath(), 'resources');
  const core = createCore({
    dataDir,
    shell: 'electron',
    version: app.getVersion(),
    openExternal,
    chooseFolder: folderDialog(dialog, () => BrowserWindow.getAllWindows()[0]),
    openFolder: folderOpener(shell),
    resourcesDir,
    sqliteBinding: sqliteBinding({
      isPackaged: app.isPackaged,
      resourcesPath: process.resourcesPath,
    }),
  });

  denyPermissions(session.defaultSession);
  registerAppProtocol(protocol, rendererDir, (request, labelId) => core.media(request, labelId));
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(process.platform, app.name)));
  const unregister = registerIpc(ipcMain, core, () => BrowserWindow.getAllWindows());

  const state = loadWindowState(
    stateFile,
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const window = new BrowserWindow(windowOptions(preload, state));
  hardenWebContents(window.webContents, openExternal);
  if (state?.maximized) window.maximize();
  window.once('ready-to-show', () => window.show());
  window.on('close', () =>
    saveWindowState(stateFile, {
      bounds: window.getNormalBounds(),
      maximized: window.isMaximized(),
    }),
  );
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  if (process.argv.includes('--demo')) await core.rpc.invoke('accounts.openDemo', {});
  await window.loadURL(`${APP_ORIGIN}/index.html`);

  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', () => {
    unregister();
    void core.close();
  });
});

// The Electron shell's entry: the only main-side module that imports 'electron'. Electron runs
// it as package.json's `main` when given the app folder (`electron .`, as `npm start` does) or
// when packaged; src/main/electron/shell.ts does the work.
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
import { startElectronShell } from './electron/shell';
import { guardProcess } from './shell/process-guard';
import { keepFilesPrivate } from '../node-common/private-files';

const here = fileURLToPath(new URL('.', import.meta.url));
const log = (message: string) => process.stderr.write(`${message}\n`);

guardProcess(log);
keepFilesPrivate();
void startElectronShell(
  { app, BrowserWindow, dialog, ipcMain, Menu, protocol, screen, session, shell },
  {
    rendererDir: join(here, '../renderer'),
    preload: join(here, '../preload/index.cjs'),
    argv: process.argv,
    env: process.env,
    platform: process.platform,
    log,
  },
);

// A fake of Electron's main-process modules, for the shell's tests (Electron's runtime cannot run
// here): `vi.mock('electron', () => import('../support/fake-electron'))`. Each `launch` starts a
// fresh Electron as the command line given would: like Electron's default app
// (default_app/main.ts, loadApplicationPackage), the first argument that is not a switch is the
// app; a folder holding package.json is the app folder (app.getAppPath()), named by its
// productName (else name) with its version; a script is run from its own folder, and the app
// keeps Electron's name and version. userData is appData/<name> unless the app sets it.
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export const ELECTRON_NAME = 'Electron';
export const FAKE_ELECTRON_VERSION = '45.4.1';

type Handler = (...args: unknown[]) => unknown;

/** What a launched fake Electron did, for the tests to read. */
export interface Launch {
  /** The command line after the executable, as the test gave it. */
  args: string[];
  appPath: string;
  hasLock: boolean;
  lockReleased: boolean;
  /** Whether the app waited for 'ready' (app.whenReady): it started its work. */
  readyAwaited: boolean;
  /** The code app.exit() was called with, if it was. */
  exitCode?: number;
  /** Whether the app got as far as quitting (the 'quit' event). */
  quit: boolean;
  /** What happened, in order: 'before-quit' (prevented or not), 'will-quit', 'quit', 'exit:N'. */
  events: string[];
  errorBoxes: { title: string; content: string }[];
  appUserModelId?: string;
  windows: FakeWindow[];
  ipcHandlers: Map<string, Handler>;
  permissionRequest?: Handler;
  permissionCheck?: Handler;
  /** Makes the window's page fail to load, as a missing renderer does. */
  failLoad?: Error;
}

let current: Launch;
let paths: Map<string, string>;
let identity: { name: string; version: string };

class FakeApp extends EventEmitter {
  isPackaged = false;
  get name() {
    return identity.name;
  }
  getName = () => identity.name;
  getVersion = () => identity.version;
  getAppPath = () => current.appPath;
  getPath = (name: string) => {
    const path = paths.get(name);
    if (!path) throw new Error(`Failed to get '${name}' path`);
    return path;
  };
  setPath = (name: string, path: string) => void paths.set(name, path);
  whenReady = () => {
    current.readyAwaited = true;
    return Promise.resolve();
  };
  requestSingleInstanceLock = () => current.hasLock;
  releaseSingleInstanceLock = () => {
    current.lockReleased = true;
  };
  setAppUserModelId = (id: string) => {
    current.appUserModelId = id;
  };
  exit = (code = 0) => {
    current.exitCode = code;
    current.events.push(`exit:${code}`);
  };
  /** As Electron: 'before-quit' (which a listener may prevent), then the windows, then 'will-quit'. */
  quit = () => {
    let prevented = false;
    this.emit('before-quit', { preventDefault: () => (prevented = true) });
    current.events.push(prevented ? 'before-quit (held)' : 'before-quit');
    if (prevented) return;
    this.emit('will-quit', { preventDefault: () => undefined });
    current.events.push('will-quit');
    current.quit = true;
    this.emit('quit', {}, 0);
    current.events.push('quit');
  };
}

export const app = new FakeApp();

export class FakeWindow extends EventEmitter {
  loadedUrl?: string;
  shown = false;
  minimized = false;
  focused = false;
  readonly webContents = {
    send: () => undefined,
    setWindowOpenHandler: () => undefined,
    on: () => undefined,
  };
  constructor(readonly options: Record<string, unknown>) {
    super();
    current.windows.push(this);
  }
  async loadURL(url: string) {
    if (current.failLoad) throw current.failLoad;
    this.loadedUrl = url;
    this.emit('ready-to-show');
  }
  show = () => void (this.shown = true);
  maximize = () => undefined;
  isMinimized = () => this.minimized;
  restore = () => void (this.minimized = false);
  focus = () => void (this.focused = true);
  isMaximized = () => false;
  getNormalBounds = () => ({ x: 0, y: 0, width: 1280, height: 820 });
  static getAllWindows = () => current.windows;
}
export { FakeWindow as BrowserWindow };

export const dialog = {
  showErrorBox: (title: string, content: string) => current.errorBoxes.push({ title, content }),
  showOpenDialog: () => Promise.resolve({ canceled: true, filePaths: [] }),
};
export const ipcMain = {
  handle: (channel: string, handler: Handler) => current.ipcHandlers.set(channel, handler),
  removeHandler: (channel: string) => current.ipcHandlers.delete(channel),
};
export const Menu = {
  buildFromTemplate: (template: unknown) => template,
  setApplicationMenu: () => undefined,
};
export const protocol = {
  registerSchemesAsPrivileged: () => undefined,
  handle: () => undefined,
};
export const screen = {
  getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }],
};
export const session = {
  defaultSession: {
    setPermissionRequestHandler: (handler: Handler) => (current.permissionRequest = handler),
    setPermissionCheckHandler: (handler: Handler) => (current.permissionCheck = handler),
  },
};
export const shell = {
  openExternal: () => Promise.resolve(),
  openPath: () => Promise.resolve(''),
};

/**
 * A fresh Electron started as `electron ...args`, with its per-user folders under `home`:
 * the app it loads, its name, version and paths. The app's module is the caller's to import.
 */
export function launch(
  args: string[],
  home: string,
  options: { hasLock?: boolean; failLoad?: Error } = {},
): Launch {
  app.removeAllListeners();
  const target = resolve(args.find((arg) => !arg.startsWith('-'))!);
  const packageJson = join(target, 'package.json');
  let appPath = dirname(target);
  identity = { name: ELECTRON_NAME, version: FAKE_ELECTRON_VERSION };
  if (existsSync(packageJson)) {
    const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as Record<string, string>;
    identity = {
      name: pkg.productName ?? pkg.name ?? ELECTRON_NAME,
      version: pkg.version ?? FAKE_ELECTRON_VERSION,
    };
    appPath = target;
  }
  paths = new Map([
    ['home', home],
    ['appData', join(home, '.config')],
    ['userData', join(home, '.config', identity.name)],
    ['downloads', join(home, 'Downloads')],
    ['temp', join(home, 'tmp')],
  ]);
  current = {
    args,
    appPath,
    hasLock: options.hasLock ?? true,
    lockReleased: false,
    readyAwaited: false,
    quit: false,
    events: [],
    errorBoxes: [],
    windows: [],
    ipcHandlers: new Map(),
    failLoad: options.failLoad,
  };
  return current;
}

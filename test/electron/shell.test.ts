// The Electron shell, with a mocked 'electron' module (its runtime cannot run here): window
// options, the app protocol and its CSP, navigation and permission locks, IPC registration.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '../../src/main/core';
import { ELECTRON_EVENT_CHANNEL, ELECTRON_INVOKE_CHANNEL } from '../../src/shared/ipc';

const electron = vi.hoisted(() => {
  const handlers = new Map<string, (...args: unknown[]) => unknown>();
  return {
    handlers,
    ipcMain: {
      handle: vi.fn((channel: string, handler: (...args: unknown[]) => unknown) =>
        handlers.set(channel, handler),
      ),
      removeHandler: vi.fn((channel: string) => handlers.delete(channel)),
    },
  };
});
vi.mock('electron', () => ({ ipcMain: electron.ipcMain }));

const { createAppProtocolHandler, APP_ORIGIN } = await import('../../src/main/electron/protocol');
const { hardenWebContents, restrictPermissions, isAppUrl } =
  await import('../../src/main/electron/security');
const { registerIpc, isTrustedSender } = await import('../../src/main/electron/ipc');
const { windowOptions, loadWindowState, saveWindowState, MIN_SIZE } =
  await import('../../src/main/electron/window');
const { menuTemplate } = await import('../../src/main/electron/menu');

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'earmark-electron-'));
  mkdirSync(join(folder, 'renderer', 'assets'), { recursive: true });
  writeFileSync(join(folder, 'renderer', 'index.html'), '<!doctype html><title>Earmark</title>');
  writeFileSync(join(folder, 'renderer', 'assets', 'app.js'), 'void 0');
  writeFileSync(join(folder, 'secret.txt'), 'outside');
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the window', () => {
  it('isolates, sandboxes and denies Node to the renderer', () => {
    const options = windowOptions('/app/out/preload/index.cjs', undefined);
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
    expect(options).toMatchObject({ minWidth: 1024, minHeight: 700 });
  });

  it('remembers its size and place, and forgets a place no display shows any more', () => {
    const path = join(folder, 'window-state.json');
    const displays = [{ x: 0, y: 0, width: 1920, height: 1080 }];
    saveWindowState(path, { bounds: { x: 100, y: 80, width: 1300, height: 900 }, maximized: true });
    expect(loadWindowState(path, displays)).toEqual({
      bounds: { x: 100, y: 80, width: 1300, height: 900 },
      maximized: true,
    });
    expect(windowOptions('p', loadWindowState(path, displays))).toMatchObject({
      x: 100,
      y: 80,
      width: 1300,
      height: 900,
    });
    saveWindowState(path, {
      bounds: { x: 4000, y: 80, width: 1300, height: 900 },
      maximized: false,
    });
    expect(loadWindowState(path, displays)).toBeUndefined();
    saveWindowState(path, {
      bounds: { x: 0, y: 0, width: MIN_SIZE.width - 1, height: 900 },
      maximized: false,
    });
    expect(loadWindowState(path, displays)).toBeUndefined();
    writeFileSync(path, '{not json');
    expect(loadWindowState(path, displays)).toBeUndefined();
  });

  it('has a native menu with the usual roles', () => {
    const roles = JSON.stringify(menuTemplate('linux', 'Earmark'));
    for (const role of [
      'copy',
      'paste',
      'selectAll',
      'undo',
      'reload',
      'zoomIn',
      'togglefullscreen',
      'quit',
    ]) {
      expect(roles).toContain(`"role":"${role}"`);
    }
    expect(JSON.stringify(menuTemplate('darwin', 'Earmark'))).toContain('"label":"Earmark"');
  });
});

describe('the app protocol', () => {
  const handle = () => createAppProtocolHandler(join(folder, 'renderer'));

  it('serves the renderer with the CSP header', async () => {
    const response = await handle()(new Request(`${APP_ORIGIN}/index.html`));
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>Earmark</title>');
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/unsafe-eval|script-src[^;]*unsafe-inline/);
  });

  it.each([
    `${APP_ORIGIN}/../secret.txt`,
    `${APP_ORIGIN}/%2e%2e/secret.txt`,
    `${APP_ORIGIN}/assets/..%2f..%2fsecret.txt`,
    'earmark://other/index.html',
    `${APP_ORIGIN}/missing.js`,
  ])('refuses %s', async (url) => {
    const response = await handle()(new Request(url));
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain('outside');
  });
});

describe('navigation and permissions', () => {
  function contents() {
    const listeners = new Map<string, (...args: unknown[]) => void>();
    let openHandler: ((details: { url: string }) => { action: string }) | undefined;
    return {
      listeners,
      open: (url: string) => openHandler!({ url }),
      setWindowOpenHandler: (handler: typeof openHandler) => (openHandler = handler),
      on: (event: string, listener: (...args: unknown[]) => void) => listeners.set(event, listener),
    };
  }

  it('denies new windows and opens only http(s) links in the system browser', () => {
    const opened: string[] = [];
    const target = contents();
    hardenWebContents(target as never, (url) => opened.push(url));
    expect(target.open('https://example.com/help')).toEqual({ action: 'deny' });
    expect(target.open('file:///etc/passwd')).toEqual({ action: 'deny' });
    expect(target.open('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.com/help']);
  });

  it('keeps the window on the app and refuses webviews', () => {
    const target = contents();
    hardenWebContents(target as never, () => undefined);
    const prevented = (event: string, url?: string) => {
      const e = { preventDefault: vi.fn() };
      target.listeners.get(event)!(e, url);
      return e.preventDefault.mock.calls.length > 0;
    };
    expect(prevented('will-navigate', 'https://evil.example/')).toBe(true);
    expect(prevented('will-navigate', `${APP_ORIGIN}/index.html#recordings`)).toBe(false);
    expect(prevented('will-attach-webview')).toBe(true);
    expect(isAppUrl('earmark://app.evil/x')).toBe(false);
  });

  function permissionHandlers() {
    type Request = (
      contents: unknown,
      permission: string,
      callback: (granted: boolean) => void,
      details: { requestingUrl: string; isMainFrame: boolean },
    ) => void;
    type Check = (
      contents: unknown,
      permission: string,
      origin: string,
      details: { isMainFrame: boolean },
    ) => boolean;
    let request: Request | undefined;
    let check: Check | undefined;
    restrictPermissions({
      setPermissionRequestHandler: (h: Request) => (request = h),
      setPermissionCheckHandler: (h: Check) => (check = h),
    } as never);
    return {
      request: (permission: string, requestingUrl: string, isMainFrame = true) =>
        new Promise<boolean>((resolve) =>
          request!(null, permission, resolve, { requestingUrl, isMainFrame }),
        ),
      check: (permission: string, origin: string, isMainFrame = true) =>
        check!(null, permission, origin, { isMainFrame }),
    };
  }
  const page = `${APP_ORIGIN}/index.html`;

  it("grants notifications and clipboard writes to the app's top frame, and to nothing else", async () => {
    const { request, check } = permissionHandlers();
    for (const permission of ['notifications', 'clipboard-sanitized-write']) {
      expect(await request(permission, page)).toBe(true);
      expect(check(permission, APP_ORIGIN)).toBe(true);
      // A frame inside the app's page, or another origin, gets neither.
      expect(await request(permission, page, false)).toBe(false);
      expect(check(permission, APP_ORIGIN, false)).toBe(false);
      expect(await request(permission, 'https://evil.example/')).toBe(false);
      expect(check(permission, 'https://evil.example')).toBe(false);
      expect(check(permission, 'earmark://app.evil')).toBe(false);
    }
  });

  it('denies every other permission, even to the app', async () => {
    const { request, check } = permissionHandlers();
    for (const permission of [
      'media',
      'geolocation',
      'clipboard-read',
      'display-capture',
      'openExternal',
      'fullscreen',
      'unknown',
    ]) {
      expect(await request(permission, page)).toBe(false);
      expect(check(permission, APP_ORIGIN)).toBe(false);
    }
  });
});

describe('IPC registration', () => {
  const invoked: unknown[] = [];
  const listeners = new Map<string, (payload: unknown) => void>();
  const core = {
    rpc: {
      invoke: async (channel: unknown, input: unknown) => (
        invoked.push([channel, input]),
        { ok: true, value: 'pong' }
      ),
    },
    on: (event: string, listener: (payload: unknown) => void) => (
      listeners.set(event, listener),
      () => listeners.delete(event)
    ),
  } as unknown as Core;
  const sent: unknown[] = [];
  const window = { webContents: { send: (...args: unknown[]) => sent.push(args) } };
  const frame = (url: string, parent: unknown = null) => ({ senderFrame: { url, parent } });

  it('answers calls from the app frame only and forwards events to windows', async () => {
    const unregister = registerIpc(electron.ipcMain as never, core, () => [window as never]);
    const handler = electron.handlers.get(ELECTRON_INVOKE_CHANNEL)!;
    expect(await handler(frame(`${APP_ORIGIN}/index.html`), 'app.info', {})).toEqual({
      ok: true,
      value: 'pong',
    });
    expect(await handler(frame('https://evil.example/'), 'app.info', {})).toMatchObject({
      ok: false,
      error: { kind: 'forbidden' },
    });
    expect(await handler(frame(`${APP_ORIGIN}/index.html`, {}), 'app.info', {})).toMatchObject({
      ok: false,
      error: { kind: 'forbidden' },
    });
    expect(await handler({ senderFrame: null }, 'app.info', {})).toMatchObject({ ok: false });
    expect(invoked).toEqual([['app.info', {}]]);
    listeners.get('accounts.changed')!([]);
    expect(sent).toEqual([[ELECTRON_EVENT_CHANNEL, { event: 'accounts.changed', payload: [] }]]);
    unregister();
    expect(electron.handlers.has(ELECTRON_INVOKE_CHANNEL)).toBe(false);
    expect(listeners.size).toBe(0);
    expect(isTrustedSender(frame(`${APP_ORIGIN}/x`) as never)).toBe(true);
  });
});

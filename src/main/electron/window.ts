import type { BrowserWindowConstructorOptions, Rectangle } from 'electron';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '../base/atomic-write';

export interface WindowState {
  bounds: Rectangle;
  maximized: boolean;
}

const DEFAULT_BOUNDS = { width: 1280, height: 820 };
export const MIN_SIZE = { width: 1024, height: 700 };

/** The renderer's security settings: isolated, sandboxed, no Node, web security on. */
export function windowOptions(
  preload: string,
  state: WindowState | undefined,
): BrowserWindowConstructorOptions {
  return {
    ...(state?.bounds ?? DEFAULT_BOUNDS),
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Earmark',
    backgroundColor: '#1d1f23',
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}

const isRectangle = (value: unknown): value is Rectangle =>
  typeof value === 'object' &&
  value !== null &&
  ['x', 'y', 'width', 'height'].every((key) =>
    Number.isFinite((value as Record<string, unknown>)[key]),
  );

/**
 * The saved window state, if it is readable and still lies on one of `displays` (a monitor may
 * have been unplugged since); otherwise undefined and the window opens at its default place.
 */
export function loadWindowState(path: string, displays: Rectangle[]): WindowState | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const state = JSON.parse(readFileSync(path, 'utf8')) as Partial<WindowState>;
    if (!isRectangle(state.bounds)) return undefined;
    const { x, y, width, height } = state.bounds;
    const visible = displays.some(
      (d) => x < d.x + d.width && x + width > d.x && y < d.y + d.height && y + height > d.y,
    );
    if (!visible || width < MIN_SIZE.width || height < MIN_SIZE.height) return undefined;
    return { bounds: state.bounds, maximized: state.maximized === true };
  } catch {
    return undefined;
  }
}

export function saveWindowState(path: string, state: WindowState): void {
  writeFileAtomicSync(path, JSON.stringify(state));
}

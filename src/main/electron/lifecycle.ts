// The Electron shell's process life: one instance, a start-up failure the user sees, and a quit
// that lets the core finish its clean-up. Takes Electron's objects as arguments (no import of
// 'electron' at run time), so the tests drive it with a fake app.
import type { App, BrowserWindow, Dialog, Event } from 'electron';

/** How long quitting waits for the core's clean-up before it quits anyway. */
const CLOSE_TIME_LIMIT_MS = 5_000;

/**
 * Takes the single-instance lock, or answers false after ending this process at once: a second
 * launch hands over to the first (Electron emits 'second-instance' there) and must start
 * nothing itself — app.quit() would first wait for 'ready' and run whatever is queued on it.
 * The first instance brings its window forward when another launch is attempted.
 */
export function claimSingleInstance(
  app: Pick<App, 'requestSingleInstanceLock' | 'exit' | 'on'>,
  mainWindow: () => BrowserWindow | undefined,
): boolean {
  if (!app.requestSingleInstanceLock()) {
    app.exit(0);
    return false;
  }
  app.on('second-instance', () => {
    const window = mainWindow();
    if (!window) return;
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  return true;
}

/**
 * Runs `close`, giving up after `limitMs`: whether it finished, and why not. It never rejects:
 * what is left undone is logged by the caller, and the app quits either way.
 */
async function closeWithin(
  close: () => Promise<void>,
  limitMs: number,
): Promise<{ closed: true } | { closed: false; reason: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<{ closed: false; reason: string }>((resolve) => {
    timer = setTimeout(
      () => resolve({ closed: false, reason: `it took longer than ${limitMs / 1000} s` }),
      limitMs,
    );
  });
  try {
    return await Promise.race([
      close().then(
        () => ({ closed: true }) as const,
        (error: unknown) => ({ closed: false, reason: `it failed: ${describe(error)}` }) as const,
      ),
      timeUp,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Quitting waits for `close` (the core: exports cancelled, the cache's workers and SQLite
 * closed, the demo clinic stopped), at most `limitMs`: the first 'before-quit' is held back
 * while it runs, later ones during it are too (without closing twice), and once it has finished
 * or timed out the app quits for real. (In 'will-quit' an async clean-up is cut off.)
 */
export function closeBeforeQuit(
  app: Pick<App, 'on' | 'quit'>,
  close: () => Promise<void>,
  log: (message: string) => void,
  limitMs = CLOSE_TIME_LIMIT_MS,
): void {
  let state: 'running' | 'closing' | 'closed' = 'running';
  app.on('before-quit', (event: Event) => {
    if (state === 'closed') return;
    event.preventDefault();
    if (state === 'closing') return;
    state = 'closing';
    void closeWithin(close, limitMs).then((outcome) => {
      if (!outcome.closed) log(`Earmark quit before its clean-up was done: ${outcome.reason}.`);
      state = 'closed';
      app.quit();
    });
  });
}

const STARTUP_FAILURE_TITLE = 'Earmark could not start';
const WHAT_TO_DO =
  'Open Earmark again. If this message comes back, restart the computer and try once more. ' +
  'If it still appears, send this message to whoever looks after Earmark at your clinic.';

/**
 * A start-up that failed: the user is told why and what to do (the window may never have been
 * shown), the single-instance lock is released so that the next launch is not handed to this
 * dying process, and the process ends with a non-zero code. What had started is closed first,
 * within the time limit.
 */
export async function failStartup(
  app: Pick<App, 'releaseSingleInstanceLock' | 'exit'>,
  dialog: Pick<Dialog, 'showErrorBox'>,
  error: unknown,
  log: (message: string) => void,
  close?: () => Promise<void>,
): Promise<void> {
  log(
    `${STARTUP_FAILURE_TITLE}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  dialog.showErrorBox(STARTUP_FAILURE_TITLE, `${describe(error)}\n\n${WHAT_TO_DO}`);
  if (close) {
    const outcome = await closeWithin(close, CLOSE_TIME_LIMIT_MS);
    if (!outcome.closed)
      log(`Earmark's clean-up after the failed start was cut short: ${outcome.reason}.`);
  }
  app.releaseSingleInstanceLock();
  app.exit(1);
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

// The quit sequence and the start-up failure of src/main/electron/lifecycle.ts on a fake app
// (Electron's runtime cannot run here): the close awaited, bounded in time, never run twice.
import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { closeBeforeQuit, failStartup } from '../../src/main/electron/lifecycle';

/** An app that quits as Electron's does: 'before-quit' first, which a listener may prevent. */
function fakeApp() {
  const app = Object.assign(new EventEmitter(), {
    quits: 0,
    quit: vi.fn(() => {
      let prevented = false;
      app.emit('before-quit', { preventDefault: () => (prevented = true) });
      if (!prevented) app.quits += 1;
    }),
  });
  return app;
}

describe('quitting', () => {
  it('holds the quit until the close has finished, then quits once', async () => {
    const app = fakeApp();
    let finish!: () => void;
    const close = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    closeBeforeQuit(app as never, close, () => undefined);

    app.quit();
    app.quit(); // Quit again while closing: held, and the close is not run twice.
    expect(close).toHaveBeenCalledTimes(1);
    expect(app.quits).toBe(0);

    finish();
    await vi.waitFor(() => expect(app.quits).toBe(1));
    expect(close).toHaveBeenCalledTimes(1);
    // Once closed, a quit goes straight through.
    app.quit();
    expect(app.quits).toBe(2);
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('quits anyway when the close outlasts the time limit, and says so', async () => {
    const app = fakeApp();
    const log = vi.fn();
    const close = vi.fn(() => new Promise<void>(() => undefined)); // never settles
    closeBeforeQuit(app as never, close, log, 100);
    const started = Date.now();
    app.quit();
    await vi.waitFor(() => expect(app.quits).toBe(1));
    expect(Date.now() - started).toBeGreaterThanOrEqual(90);
    expect(log).toHaveBeenCalledWith(
      'Earmark quit before its clean-up was done: it took longer than 0.1 s.',
    );
  });

  it('quits when the close fails, and logs why', async () => {
    const app = fakeApp();
    const log = vi.fn();
    closeBeforeQuit(app as never, () => Promise.reject(new Error('disk gone')), log);
    app.quit();
    await vi.waitFor(() => expect(app.quits).toBe(1));
    expect(log).toHaveBeenCalledWith(
      'Earmark quit before its clean-up was done: it failed: disk gone.',
    );
  });
});

describe('a failed start', () => {
  it('shows the reason and what to do, closes what had started, releases the lock, exits with 1', async () => {
    const calls: string[] = [];
    const app = {
      releaseSingleInstanceLock: () => calls.push('release lock'),
      exit: (code: number) => calls.push(`exit ${code}`),
    };
    const dialog = {
      showErrorBox: (title: string, content: string) => calls.push(`${title}|${content}`),
    };
    const log = vi.fn();
    await failStartup(
      app as never,
      dialog as never,
      new Error('No space left on device'),
      log,
      async () => {
        calls.push('closed');
      },
    );
    expect(calls).toEqual([
      expect.stringMatching(
        /^Earmark could not start\|No space left on device\n\nOpen Earmark again\. .*restart the computer/,
      ),
      'closed',
      'release lock',
      'exit 1',
    ]);
    expect(log).toHaveBeenCalledWith(
      expect.stringContaining('Earmark could not start: Error: No space left on device'),
    );
  });
});

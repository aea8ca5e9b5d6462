import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium, driven by Playwright (never a Playwright browser download). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumProblem = (): string | undefined =>
  existsSync(CHROMIUM_PATH)
    ? undefined
    : `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export interface ShellProcess {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  stop(): Promise<void>;
}

/** Starts `npm run web` (the browser shell) and waits for its first line: {"url": ...}. */
export function startShellProcess(args: string[]): Promise<ShellProcess> {
  const child = spawn(
    join('node_modules', '.bin', 'tsx'),
    ['src/main/web/cli.ts', '--port', '0', '--no-open', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => {
      try {
        resolve({
          url: (JSON.parse(line) as { url: string }).url,
          child,
          stderr: () => stderr,
          stop,
        });
      } catch {
        reject(new Error(`The browser shell printed ${line}\n${stderr}`));
      }
    });
    child.once('exit', (code) =>
      reject(new Error(`The browser shell exited with ${code}:\n${stderr}`)),
    );
  });
}

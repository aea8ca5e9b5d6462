import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import WebSocket from 'ws';

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

/**
 * Calls the app's IPC over the browser shell's WebSocket, as the renderer does, with the cookie
 * the browser context holds. Events main pushes on the same socket are skipped: the answer is the
 * message carrying this call's id.
 */
export async function invokeOverShell<T>(
  context: BrowserContext,
  shellUrl: string,
  channel: string,
  input: unknown,
): Promise<T> {
  const cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const origin = new URL(shellUrl).origin;
  const ws = new WebSocket(`${origin.replace('http', 'ws')}/rpc`, { headers: { cookie, origin } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const id = 1;
  const answer = new Promise<{ ok: boolean; value?: unknown; error?: unknown }>((resolve) => {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number;
        result?: { ok: boolean; value?: unknown };
      };
      if (message.id === id && message.result) resolve(message.result);
    });
  });
  ws.send(JSON.stringify({ id, channel, input }));
  const result = await answer;
  ws.close();
  if (!result.ok) throw new Error(`${channel} failed: ${JSON.stringify(result)}`);
  return result.value as T;
}

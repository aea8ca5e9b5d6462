import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A TypeScript entry point run with tsx, as `npm run …` runs it. */
export interface Launched {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<Exit>;
  /** Resolves with the first match of `pattern` in the stream; rejects on exit or time-out. */
  waitFor(stream: 'stdout' | 'stderr', pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  /** Signals tsx and the node process it starts (their own process group); waits for the exit. */
  kill(signal?: NodeJS.Signals): Promise<Exit>;
}

export function launch(
  script: string,
  args: string[],
  /** More of the environment (a test's key, say: never in the arguments a process list shows). */
  env: Record<string, string> = {},
): Launched {
  const child = spawn(TSX, [script, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  const exited = new Promise<Exit>((resolve) =>
    // 'close', not 'exit': by then the output streams have ended, so what it printed is all there.
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  for (const stream of ['stdout', 'stderr'] as const) {
    child[stream]!.setEncoding('utf8');
    child[stream]!.on('data', (chunk: string) => (output[stream] += chunk));
  }
  return {
    child,
    output,
    exited,
    waitFor(stream, pattern, ms = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(output[stream]);
          if (!match) return;
          cleanup();
          resolve(match);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} on ${stream} within ${ms} ms; stderr: ${output.stderr}`));
        }, ms);
        const onExit = (code: number | null) => {
          cleanup();
          reject(new Error(`exited (${code}) before ${pattern}; stderr: ${output.stderr}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          child[stream]!.off('data', check);
          child.off('exit', onExit);
        };
        child[stream]!.on('data', check);
        child.once('exit', onExit);
        check();
      });
    },
    async kill(signal = 'SIGKILL') {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // Already gone.
      }
      return exited;
    },
  };
}

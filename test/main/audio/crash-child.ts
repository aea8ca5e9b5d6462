import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** A script under test/main run in a process group of its own, to be killed as a crash would. */
export interface Child {
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its stdout, one JSON object a line. */
  lines: Record<string, unknown>[];
  kill(signal: NodeJS.Signals): void;
}

export function startChild(script: string, env: Record<string, string>): Child {
  const child = spawn(join('node_modules', '.bin', 'tsx'), [join('test', 'main', script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
    // A process group of its own: tsx runs the script in a child node process, and the kill
    // must take both, as a crash of the app would.
    detached: true,
  });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = rest + chunk.toString('utf8');
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) if (part) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  return {
    lines,
    exited: new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal })),
    ),
    kill: (signal) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // the group has exited already
      }
    },
  };
}

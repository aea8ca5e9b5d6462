// The reference service for a benchmark, in a child process (its CPU is not the measured
// process's), seeded with `scale:N` labels and, unless a benchmark measures it, its rate limit
// lifted: the default, 3000 requests a minute, would make the limit the figure.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { repoRoot } from './paths';

export interface ScaleService {
  /** The API root, e.g. http://127.0.0.1:PORT/api. */
  baseUrl: string;
  apiKey: string;
  organizationId: string;
  /** A member who signs in with e-mail and password (the session login). */
  admin: { email: string; password: string };
  /** CPU time (user + system) the service's processes have used so far; null without /proc. */
  cpuMs(): number | null;
  stop(): void;
}

/** User + system CPU of a process and its descendants, from /proc (Linux); null elsewhere. */
function treeCpuMs(root: number): number | null {
  const stats = new Map<number, string[]>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const text = readFileSync(`/proc/${name}/stat`, 'utf8');
        // Fields after the command name, which may hold spaces: state, ppid, … utime(12) stime(13).
        stats.set(Number(name), text.slice(text.lastIndexOf(')') + 2).split(' '));
      } catch {
        // Gone meanwhile.
      }
    }
  } catch {
    return null;
  }
  const ticks = (pid: number): number => {
    const fields = stats.get(pid);
    const own = fields ? Number(fields[11]) + Number(fields[12]) : 0;
    let children = 0;
    for (const [child, f] of stats) if (Number(f[1]) === pid) children += ticks(child);
    return own + children;
  };
  // Linux reports these in clock ticks of 10 ms (USER_HZ = 100).
  return ticks(root) * 10;
}

export interface ScaleServiceOptions {
  /** `--rate-limit N/S`; lifted (a million a second) unless given. */
  rateLimit?: string;
  dialect?: 'seed' | 'field';
}

export async function startScaleService(
  dataDir: string,
  labels: number,
  { rateLimit = '1000000/1', dialect = 'seed' }: ScaleServiceOptions = {},
): Promise<ScaleService> {
  const child = spawn(
    join(repoRoot, 'node_modules', '.bin', 'tsx'),
    [
      join(repoRoot, 'src', 'service', 'cli.ts'),
      '--data',
      dataDir,
      '--seed',
      `scale:${labels}`,
      '--rate-limit',
      rateLimit,
      '--dialect',
      dialect,
    ],
    // Its own process group, so stop() ends tsx and the service it runs.
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], detached: true },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the service exited (${code}) before it listened`)),
    );
  });
  const { baseUrl, credentials } = JSON.parse(line) as {
    baseUrl: string;
    credentials: {
      primary: { apiKey: string; organizationId: string };
      admin: { email: string; password: string };
    };
  };
  return {
    baseUrl,
    ...credentials.primary,
    admin: credentials.admin,
    cpuMs: () => treeCpuMs(child.pid!),
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
    },
  };
}

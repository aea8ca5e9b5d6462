// The reference service for a benchmark, in a child process (its CPU is not the measured
// process's), seeded with `scale:N` labels and, unless a benchmark measures it, its rate limit
// lifted: the default, 3000 requests a minute, would make the limit the figure.
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createApiClient } from '../../src/main/service-client/client';
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

/** A process and its descendants, from /proc (Linux): their CPU used and their memory now. */
export interface ProcessTree {
  /** User + system CPU, ms. */
  cpuMs: number;
  /** Resident memory, MB. */
  rssMB: number;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function procStats(): Map<number, string[]> | null {
  const stats = new Map<number, string[]>();
  try {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const text = readFileSync(`/proc/${name}/stat`, 'utf8');
        // state(0), ppid(1), … utime(11), stime(12), … rss in pages(21).
        stats.set(Number(name), text.slice(text.lastIndexOf(')') + 2).split(' '));
      } catch {
        // Gone meanwhile.
      }
    }
  } catch {
    return null;
  }
  return stats;
}

/** CPU and resident memory of `root` and its descendants; null without /proc. */
export function processTree(root: number): ProcessTree | null {
  const stats = procStats();
  if (!stats) return null;
  const sum = (pid: number, field: (f: string[]) => number): number => {
    const fields = stats.get(pid);
    let total = fields ? field(fields) : 0;
    for (const [child, f] of stats) if (Number(f[1]) === pid) total += sum(child, field);
    return total;
  };
  return {
    // Linux reports CPU in clock ticks of 10 ms (USER_HZ = 100) and memory in 4 KiB pages.
    cpuMs: sum(root, (f) => Number(f[11]) + Number(f[12])) * 10,
    rssMB: (sum(root, (f) => Number(f[21])) * 4096) / 1e6,
  };
}

const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');

/** Runs bench/lib/scale-folder.ts (its own process): how long it took and the records it made. */
function scaleFolder(args: string[]): Promise<{ ms: number; records: number }> {
  return new Promise((resolve, reject) => {
    execFile(
      tsx,
      [join(repoRoot, 'bench', 'lib', 'scale-folder.ts'), ...args],
      { cwd: repoRoot, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error)
          return reject(new Error(`scale-folder ${args[0]} failed: ${stderr || error.message}`));
        resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as { ms: number; records: number });
      },
    );
  });
}

/**
 * Seeds `dataDir` with `scale:N`, its last `withheldDays` days left out, in a process of its own;
 * startScaleService then serves it. Resolves with the seconds the seed took.
 */
export async function seedScaleFolder(
  dataDir: string,
  labels: number,
  withheldDays = 0,
): Promise<number> {
  const { ms } = await scaleFolder(['seed', dataDir, String(labels), String(withheldDays)]);
  return ms / 1000;
}

/** Adds a scale seed's first withheld day to its folder (the service may be serving it). */
export function appendWithheldDay(dataDir: string): Promise<{ ms: number; records: number }> {
  return scaleFolder(['append', dataDir]);
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
    tsx,
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
    cpuMs: () => processTree(child.pid!)?.cpuMs ?? null,
    stop: () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // Already gone.
      }
    },
  };
}

/**
 * The service's ceiling in a run: the requests of a first sync (every listing page, then every
 * label's detail, 8 at a time) with nothing stored. Resolves with its milliseconds.
 */
export async function fetchEverything(service: ScaleService): Promise<number> {
  const api = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  const started = performance.now();
  const ids: string[] = [];
  for await (const page of api.labels.pages(service.organizationId, { limit: 1000 }))
    ids.push(...page.items.map((label) => label.id));
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < ids.length) await api.labels.get(ids[next++]!);
    }),
  );
  const ms = performance.now() - started;
  await api.close();
  return ms;
}

import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { API_PREFIX, DEFAULT_PROCESSING_MS, createService } from './app';
import { readMeta, writeMeta } from './db/database';
import { seedDemo } from './demo/demo-seed';
import type { DemoCredentials } from './demo/identity-seed';
import { seedScale } from './demo/scale-seed';
import { HubSimulator } from './hub/live-simulator';

const USAGE = `Usage: npm run --silent service -- [--port N] [--host 127.0.0.1] [--data DIR] [--seed demo|scale:N] [--processing-ms N]

Starts the reference clinic service. The first line of stdout is one JSON object:
{"baseUrl": "...", "credentials": {...}}; it then serves until SIGINT or SIGTERM.`;

const CREDENTIALS_FILE = 'credentials.json';
const SEED_KEY = 'seed';

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function wholeNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number, not "${value}".`);
  return Number(value);
}

/** The seed to build: `demo` or `scale:N`. */
function parseSeed(
  value: string | undefined,
): { kind: 'demo' } | { kind: 'scale'; count: number } | undefined {
  if (value === undefined) return undefined;
  if (value === 'demo') return { kind: 'demo' };
  const scale = /^scale:(\d+)$/.exec(value);
  if (scale && Number(scale[1]) > 0) return { kind: 'scale', count: Number(scale[1]) };
  fail(`--seed must be "demo" or "scale:N" (N > 0), not "${value}".`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: '.earmark/service' },
      seed: { type: 'string' },
      'processing-ms': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = wholeNumber(values.port, 'port', 0);
  const processingMs = wholeNumber(values['processing-ms'], 'processing-ms', DEFAULT_PROCESSING_MS);
  const seed = parseSeed(values.seed);
  const dataDir = resolve(values.data);

  const service = createService({ dataDir, processingMs });
  const seeded = readMeta(service.db, SEED_KEY);
  const credentialsPath = join(dataDir, CREDENTIALS_FILE);
  let credentials: DemoCredentials | Record<string, never> = {};
  if (seed && seeded === undefined) {
    const now = Date.now();
    credentials =
      seed.kind === 'demo' ? seedDemo(service, now) : seedScale(service, seed.count, now);
    // The sandbox's own demo keys, kept (owner-only) so a restart can print them again.
    writeFileSync(`${credentialsPath}.tmp`, JSON.stringify(credentials), { mode: 0o600 });
    renameSync(`${credentialsPath}.tmp`, credentialsPath);
    writeMeta(service.db, SEED_KEY, values.seed!);
  } else {
    if (seed && seeded !== values.seed) {
      fail(
        `${dataDir} already holds the "${seeded}" seed; use another --data folder for "${values.seed}".`,
      );
    }
    if (existsSync(credentialsPath))
      credentials = JSON.parse(readFileSync(credentialsPath, 'utf8')) as DemoCredentials;
  }

  const simulator = new HubSimulator(service.db, service.hub, service.clips, service.now);
  simulator.start();

  const address = await service.app.listen({ port, host: values.host });
  process.stdout.write(`${JSON.stringify({ baseUrl: `${address}${API_PREFIX}`, credentials })}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    simulator.stop();
    await service.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  const code = (error as { code?: string }).code;
  process.stderr.write(
    code === 'EADDRINUSE'
      ? `The port is already in use: ${(error as Error).message}\n`
      : `${(error as Error).stack ?? String(error)}\n`,
  );
  process.exit(1);
});

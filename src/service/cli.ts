import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { keepFilesPrivate, makeOwnerOnly } from '../node-common/private-files';
import { DEFAULT_PROCESSING_MS } from './app';
import { DEFAULT_RATE_LIMIT, parseRateLimit, type RateLimit } from './http/rate-limit';
import { openSandbox, SeedMismatchError, type Sandbox, type SeedSpec } from './sandbox';
import { DEFAULT_WEBHOOK_BACKOFF_MS, DEFAULT_WEBHOOK_TIMEOUT_MS } from './webhooks/dispatcher';

const USAGE = `Usage: npm run --silent service -- [--port N] [--host 127.0.0.1] [--data DIR] [--seed demo|scale:N] [--processing-ms N]
    [--rate-limit N/S] [--webhook-backoff-ms a,b,c,d,e] [--webhook-timeout-ms N] [--hide-conversation-ranges]
    [--dialect seed|field] [--allow-local-webhooks] [--clock ISO-8601]

Starts the reference clinic service. The first line of stdout is one JSON object:
{"baseUrl": "...", "credentials": {...}}; it then serves until SIGINT or SIGTERM.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function wholeNumber(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a whole number, not "${value}".`);
  return Number(value);
}

function rateLimit(value: string | undefined): RateLimit {
  if (value === undefined) return DEFAULT_RATE_LIMIT;
  const limit = parseRateLimit(value);
  if (!limit)
    fail(`--rate-limit must be N/S (N requests per S seconds, both > 0), not "${value}".`);
  return limit;
}

/** The five retry waits of webhook delivery, "a,b,c,d,e" in milliseconds. */
function backoff(value: string | undefined): readonly number[] {
  if (value === undefined) return DEFAULT_WEBHOOK_BACKOFF_MS;
  const waits = value.split(',').map((part) => part.trim());
  if (waits.length !== DEFAULT_WEBHOOK_BACKOFF_MS.length || !waits.every((w) => /^\d+$/.test(w))) {
    fail(
      `--webhook-backoff-ms must be ${DEFAULT_WEBHOOK_BACKOFF_MS.length} whole numbers of milliseconds separated by commas, not "${value}".`,
    );
  }
  return waits.map(Number);
}

/** The seed to build: `demo` or `scale:N`. */
function parseSeed(value: string | undefined): SeedSpec | undefined {
  if (value === undefined) return undefined;
  if (value === 'demo') return { kind: 'demo' };
  const scale = /^scale:(\d+)$/.exec(value);
  if (scale && Number(scale[1]) > 0) return { kind: 'scale', count: Number(scale[1]) };
  fail(`--seed must be "demo" or "scale:N" (N > 0), not "${value}".`);
}

async function main(): Promise<void> {
  // Its database holds clinical data and webhook secrets: readable by this user only.
  keepFilesPrivate();
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: '.earmark/service' },
      seed: { type: 'string' },
      'processing-ms': { type: 'string' },
      'rate-limit': { type: 'string' },
      'webhook-backoff-ms': { type: 'string' },
      'webhook-timeout-ms': { type: 'string' },
      'hide-conversation-ranges': { type: 'boolean', default: false },
      dialect: { type: 'string', default: 'seed' },
      'allow-local-webhooks': { type: 'boolean', default: false },
      clock: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const port = wholeNumber(values.port, 'port', 0);
  if (port > 65_535) fail(`--port must be at most 65535, not ${port}.`);
  const processingMs = wholeNumber(values['processing-ms'], 'processing-ms', DEFAULT_PROCESSING_MS);
  const seed = parseSeed(values.seed);
  const dataDir = resolve(values.data);
  if (values.dialect !== 'seed' && values.dialect !== 'field')
    fail(`--dialect must be seed or field, not "${values.dialect}".`);
  const dialect = values.dialect;

  const webhookTimeoutMs = wholeNumber(
    values['webhook-timeout-ms'],
    'webhook-timeout-ms',
    DEFAULT_WEBHOOK_TIMEOUT_MS,
  );
  if (webhookTimeoutMs === 0) fail('--webhook-timeout-ms must be above 0.');

  // What an earlier version made before it set the umask: owner-only too.
  await makeOwnerOnly(dataDir);
  // A sandbox's clock may start elsewhere in time and run on from there: a demo's working day
  // at any hour, and tests that need a consult to end while they watch.
  let now: (() => number) | undefined;
  if (values.clock !== undefined) {
    const startMs = Date.parse(values.clock);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(values.clock) || Number.isNaN(startMs))
      fail(
        `--clock must be an ISO 8601 date and time (2026-11-23T10:00:00Z), not "${values.clock}".`,
      );
    const launchedMs = Date.now();
    now = () => startMs + (Date.now() - launchedMs);
  }

  let sandbox: Sandbox;
  try {
    sandbox = await openSandbox({
      dataDir,
      processingMs,
      seed,
      port,
      host: values.host,
      rateLimit: rateLimit(values['rate-limit']),
      webhookBackoffMs: backoff(values['webhook-backoff-ms']),
      webhookTimeoutMs,
      conversationRanges: !values['hide-conversation-ranges'],
      dialect,
      webhookDestinations: values['allow-local-webhooks'] ? 'any' : 'public',
      now,
    });
  } catch (error) {
    if (error instanceof SeedMismatchError) fail(error.message);
    throw error;
  }
  process.stdout.write(
    `${JSON.stringify({ baseUrl: sandbox.baseUrl, credentials: sandbox.credentials })}\n`,
  );

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await sandbox.close();
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

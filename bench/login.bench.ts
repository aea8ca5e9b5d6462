// The reference service's login (issue 19, "Hardening"): an unknown e-mail must cost what a
// known one costs (or the answer's time tells which e-mails have accounts), and hashing must not
// hold up the other requests.
//
//   npx tsx bench/login.bench.ts        (or: npm run bench -- login)
//
// The service runs in a child process (`src/service/cli.ts --seed scale:1`, bench/lib/service.ts).
// Figures:
// - median time of a refused login, a known e-mail with a wrong password ÷ an unknown e-mail
//   (whichever is slower over the other): target ≤ 1.2×. Each side gets SAMPLES tries,
//   alternating, within the service's limits (20 failures per address in 15 minutes; a known
//   e-mail's count is cleared by signing in every 4 failures). Baseline: the same two checks
//   (`verifyPassword` against the member's hash, and against none) in this process.
// - p99 of `GET /auth/me` while logins run back to back, as many at once as the service lets
//   run for one e-mail (LOGIN_FAILURES_PER_EMAIL: a login counts against it until it succeeds):
//   target 50 ms; baseline: the same requests with no login running.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword, verifyPassword } from '../src/service/db/identity-store';
import { LOGIN_FAILURES_PER_EMAIL } from '../src/service/routes/auth';
import { machine, median, quantile, report } from './lib/report';
import { startScaleService, type ScaleService } from './lib/service';

const SAMPLES = 9;
const FAILURES_BEFORE_CLEARING = 4;
const ME_REQUESTS = 200;
const FLOOD = LOGIN_FAILURES_PER_EMAIL.requests;
const TARGET_RATIO = 1.2;
const TARGET_ME_P99_MS = 50;

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

function login(service: ScaleService, email: string, password: string): Promise<Response> {
  return fetch(`${service.baseUrl}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
}

async function refused(service: ScaleService, email: string): Promise<number> {
  let status = 0;
  const ms = await timed(async () => {
    const response = await login(service, email, 'not the password');
    status = response.status;
    await response.arrayBuffer();
  });
  if (status !== 401) throw new Error(`a wrong password for ${email} got ${status}, not 401`);
  return ms;
}

async function mePercentile(service: ScaleService): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < ME_REQUESTS; i++)
    samples.push(
      await timed(async () => {
        const response = await fetch(`${service.baseUrl}/auth/me`, {
          headers: { authorization: `Bearer ${service.apiKey}` },
        });
        if (response.status !== 200) throw new Error(`/auth/me answered ${response.status}`);
        await response.arrayBuffer();
      }),
    );
  return quantile(samples, 0.99)!;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine();
  const dir = mkdtempSync(join(tmpdir(), 'earmark-login-bench-'));
  const service = await startScaleService(join(dir, 'service'), 1);
  try {
    const { email, password } = service.admin;
    // Warm-up: signing in (a success gives back what it counted).
    for (let i = 0; i < 3; i++) await (await login(service, email, password)).arrayBuffer();

    // First, while no failure has used the address's limit: each login under way counts on it.
    const idleP99 = await mePercentile(service);
    let flooding = true;
    const flood = Promise.all(
      Array.from({ length: FLOOD }, async () => {
        while (flooding) {
          const response = await login(service, email, password);
          await response.arrayBuffer();
          if (response.status !== 200) {
            flooding = false;
            throw new Error(`a login in the flood got ${response.status}`);
          }
        }
      }),
    );
    // Its failure is awaited below, once the /auth/me requests are done.
    flood.catch(() => undefined);
    const floodP99 = await mePercentile(service);
    flooding = false;
    await flood;

    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      known.push(await refused(service, email));
      unknown.push(await refused(service, `nobody-${i}-${Date.now()}@example.com`));
      if ((i + 1) % FAILURES_BEFORE_CLEARING === 0)
        await (await login(service, email, password)).arrayBuffer();
    }
    const knownMs = median(known)!;
    const unknownMs = median(unknown)!;

    // The same two checks in this process: the work alone, no HTTP.
    const stored = hashPassword(password);
    const localKnown: number[] = [];
    const localUnknown: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      localKnown.push(await timed(() => verifyPassword('not the password', stored)));
      localUnknown.push(await timed(() => verifyPassword('not the password', null)));
    }
    const ratio = (a: number, b: number) => Math.max(a, b) / Math.min(a, b);

    process.stdout.write(
      `refused login, median: known e-mail ${knownMs.toFixed(1)} ms, unknown ${unknownMs.toFixed(1)} ms\n`,
    );
    report(
      'login',
      startedAt,
      machineInfo,
      [
        {
          figure: 'refused login, known ÷ unknown e-mail (median, slower over faster)',
          unit: '×',
          measured: ratio(knownMs, unknownMs),
          target: TARGET_RATIO,
          baseline: ratio(median(localKnown)!, median(localUnknown)!),
          baselineIs: 'the same two password checks in this process, no HTTP',
          samples: SAMPLES * 2,
        },
        {
          figure: `GET /auth/me p99 while ${FLOOD} logins run`,
          unit: 'ms',
          measured: floodP99,
          target: TARGET_ME_P99_MS,
          baseline: idleP99,
          baselineIs: 'the same requests with no login running',
          samples: ME_REQUESTS,
        },
      ],
      { knownMs: known, unknownMs: unknown, localKnown, localUnknown, idleP99, floodP99 },
    );
  } finally {
    service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

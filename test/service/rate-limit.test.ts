import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../../src/service/app';
import { seedIdentity } from '../../src/service/demo/identity-seed';
import { MAX_CALLERS, parseRateLimit, RateLimiter } from '../../src/service/http/rate-limit';
import { launch } from './child-process';
import { problemOf, startService, type RunningService } from './harness';

let svc: RunningService;
let clockOffsetMs = 0;

beforeAll(async () => {
  svc = await startService({
    rateLimit: { requests: 3, perSeconds: 60 },
    now: () => Date.now() + clockOffsetMs,
  });
});
afterAll(() => svc.dispose());

describe('rate limits: a token bucket per key', () => {
  it('answers 429 with Retry-After once the bucket is empty, and refills over time', async () => {
    const key = svc.credentials.primary.apiKey;
    for (let i = 0; i < 3; i++) expect((await svc.call('/auth/me', { key })).status).toBe(200);
    const limited = await svc.call('/devices', { key });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('20'); // one token per 20 s
    const problem = await problemOf(limited);
    expect(problem.code).toBe('rate_limited');
    expect(problem.detail).toContain('3 requests in 60 s');

    // Another key has its own bucket; a refused credential costs none.
    for (let i = 0; i < 5; i++) await svc.call('/auth/me', { key: 'csk_unknown' });
    expect((await svc.call('/auth/me', { key: svc.credentials.secondary.apiKey })).status).toBe(
      200,
    );

    clockOffsetMs += 10_000;
    const halfway = await svc.call('/auth/me', { key });
    expect(halfway.headers.get('retry-after')).toBe('10');
    clockOffsetMs += 10_000;
    expect((await svc.call('/auth/me', { key })).status).toBe(200);
    expect((await svc.call('/auth/me', { key })).status).toBe(429);
  });

  it('remembers a bounded number of callers, and still limits the ones it keeps', () => {
    let nowMs = 0;
    const limiter = new RateLimiter({ requests: 2, perSeconds: 60 }, () => nowMs);
    limiter.take('steady');
    limiter.take('steady');
    // A flood of new callers (e-mails, addresses) in the same minute.
    for (let i = 0; i < 3 * MAX_CALLERS; i++) {
      limiter.take(`caller ${i}`);
      if (i % 1000 === 0) expect(limiter.take('steady')).toBeGreaterThan(0);
    }
    expect(limiter.size).toBeLessThanOrEqual(MAX_CALLERS);
    // An hour later every bucket is full again: the next sweep drops them all.
    nowMs += 3_600_000;
    for (let i = 0; i <= MAX_CALLERS; i++) limiter.take(`later ${i}`);
    expect(limiter.size).toBeLessThanOrEqual(MAX_CALLERS);
    expect(limiter.size).toBeGreaterThan(0);
  });

  it('parses N/S', () => {
    expect(parseRateLimit('600/60')).toEqual({ requests: 600, perSeconds: 60 });
    for (const bad of ['0/60', '10/0', '10', '10/s', '-1/5', '1.5/2']) {
      expect(parseRateLimit(bad)).toBeUndefined();
    }
  });
});

describe('the command-line flags', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-rate-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('--rate-limit N/S sets the bucket', async () => {
    const seeding = createService({ dataDir });
    const { primary } = seedIdentity(seeding, Date.now()).credentials;
    await seeding.close();
    const cli = launch('src/service/cli.ts', ['--data', dataDir, '--rate-limit', '2/60']);
    try {
      const [line] = await cli.waitFor('stdout', /^.*\n/);
      const { baseUrl } = JSON.parse(line) as { baseUrl: string };
      const me = () =>
        fetch(`${baseUrl}/auth/me`, { headers: { authorization: `Bearer ${primary.apiKey}` } });
      expect([(await me()).status, (await me()).status]).toEqual([200, 200]);
      const limited = await me();
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('30');
    } finally {
      await cli.kill();
    }
  });

  it('exits 2 naming a bad --rate-limit, --webhook-backoff-ms or --webhook-timeout-ms', async () => {
    const cases: [string[], string][] = [
      [['--rate-limit', '100'], '--rate-limit'],
      [['--webhook-backoff-ms', '1,2,3'], '--webhook-backoff-ms'],
      [['--webhook-backoff-ms', '1,2,3,4,x'], '--webhook-backoff-ms'],
      [['--webhook-timeout-ms', '0'], '--webhook-timeout-ms'],
    ];
    await Promise.all(
      cases.map(async ([args, flag]) => {
        const cli = launch('src/service/cli.ts', ['--data', dataDir, ...args]);
        expect((await cli.exited).code).toBe(2);
        expect(cli.output.stderr).toContain(flag);
      }),
    );
  });
});

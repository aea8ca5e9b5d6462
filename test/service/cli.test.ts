import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { problemOf } from './harness';

/** The command-line contract: `npm run service -- ...` (src/service/cli.ts). */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const SPAWN_TIMEOUT_MS = 60_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface OrganizationCredentials {
  apiKey: string;
  organizationId: string;
  organizationName: string;
}

interface Banner {
  baseUrl: string;
  credentials: {
    primary: OrganizationCredentials;
    secondary: OrganizationCredentials;
    noHub: OrganizationCredentials;
    expired: { apiKey: string };
    revoked: { apiKey: string };
    admin: { email: string; password: string; organizationId: string };
  };
}

interface Identity {
  email: string;
  authMethod: string;
  organizationId: string;
  organizationName: string;
  entitlements: { vet: boolean; call: boolean; hub: boolean } | null;
  apiKey: { organizationId: string } | null;
}

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running `tsx src/service/cli.ts`: its first stdout line, its exit and what it wrote. */
interface Cli {
  child: ChildProcess;
  firstLine: Promise<string>;
  exited: Promise<Exit>;
  stdout(): string;
  stderr(): string;
}

const running = new Set<Cli>();

function launch(args: string[]): Cli {
  // Its own process group, so clean-up reaches the node process tsx starts as well.
  const child = spawn(TSX, ['src/service/cli.ts', ...args], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8');
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const firstLine = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no first line within ${SPAWN_TIMEOUT_MS} ms; stderr: ${err}`)),
      SPAWN_TIMEOUT_MS,
    );
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      const end = out.indexOf('\n');
      if (end >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, end));
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`exited (${code ?? signal}) before its first line; stderr: ${err}`));
    });
  });
  firstLine.catch(() => undefined);
  const cli: Cli = { child, firstLine, exited, stdout: () => out, stderr: () => err };
  running.add(cli);
  void exited.then(() => running.delete(cli));
  return cli;
}

const bannerOf = async (cli: Cli) => JSON.parse(await cli.firstLine) as Banner;

/** Resolves with the exit, or undefined when the process is still running after `ms`. */
const exitWithin = (cli: Cli, ms: number) =>
  Promise.race([cli.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);

/** Kills every child still running (and its tsx-started node process) and waits for it. */
async function killAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (cli) => {
      try {
        process.kill(-cli.child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
      await cli.exited;
    }),
  );
}

async function api(baseUrl: string, path: string, init: RequestInit & { key?: string } = {}) {
  const { key, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (key) headers.set('authorization', `Bearer ${key}`);
  return fetch(`${baseUrl}${path}`, { ...rest, headers });
}

async function identity(baseUrl: string, key: string): Promise<Identity> {
  const response = await api(baseUrl, '/auth/me', { key });
  expect(response.status).toBe(200);
  return (await response.json()) as Identity;
}

async function labelTotal(baseUrl: string, org: OrganizationCredentials): Promise<number> {
  const response = await api(baseUrl, `/organizations/${org.organizationId}/labels?limit=1`, {
    key: org.apiKey,
  });
  expect(response.status).toBe(200);
  const header = response.headers.get('x-total-count');
  expect(header).toMatch(/^\d+$/);
  return Number(header);
}

const tempDirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'earmark-cli-'));
  tempDirs.push(dir);
  return dir;
};

afterAll(async () => {
  await killAll();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

describe('--seed demo', () => {
  let dataDir: string;
  let first: Cli;
  let banner: Banner;
  const args = () => ['--port', '0', '--data', dataDir, '--seed', 'demo', '--processing-ms', '500'];

  beforeAll(async () => {
    dataDir = freshDir();
    first = launch(args());
    banner = await bannerOf(first);
  }, SPAWN_TIMEOUT_MS + 5_000);

  afterAll(killAll);

  it('prints the base URL and the credentials as JSON on the first line', () => {
    expect(banner.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
    expect(Number(new URL(banner.baseUrl).port)).toBeGreaterThan(0);
    const { primary, secondary, noHub, expired, revoked, admin } = banner.credentials;
    for (const org of [primary, secondary, noHub]) {
      expect(org.apiKey).toMatch(/^\S{20,}$/);
      expect(org.organizationId).toMatch(UUID);
      expect(org.organizationName).not.toBe('');
    }
    expect(new Set([primary, secondary, noHub].map((o) => o.organizationId)).size).toBe(3);
    expect(new Set([primary, secondary, noHub].map((o) => o.organizationName)).size).toBe(3);
    const keys = [primary, secondary, noHub, expired, revoked].map((o) => o.apiKey);
    expect(new Set(keys).size).toBe(5);
    for (const key of keys) expect(key).toMatch(/^\S{20,}$/);
    expect(admin.email).toMatch(/^[^@\s]+@[^@\s]+$/);
    expect(admin.password.length).toBeGreaterThanOrEqual(8);
    expect(admin.organizationId).toBe(primary.organizationId);
  });

  it('keeps the credentials file readable by its owner only', () => {
    expect(statSync(join(dataDir, 'credentials.json')).mode & 0o777).toBe(0o600);
  });

  it("answers /auth/me with each key's own organization", async () => {
    const { baseUrl, credentials } = banner;
    for (const org of [credentials.primary, credentials.secondary, credentials.noHub]) {
      const me = await identity(baseUrl, org.apiKey);
      expect(me.authMethod).toBe('ApiKey');
      expect(me.organizationId).toBe(org.organizationId);
      expect(me.organizationName).toBe(org.organizationName);
      expect(me.apiKey?.organizationId).toBe(org.organizationId);
    }
    expect((await identity(baseUrl, credentials.primary.apiKey)).entitlements?.hub).toBe(true);
    const noHub = await identity(baseUrl, credentials.noHub.apiKey);
    expect(noHub.entitlements?.hub).toBe(false);
    expect(noHub.entitlements?.vet).toBe(true);
  });

  it('rejects the expired and the revoked key with 401 and their codes', async () => {
    const { baseUrl, credentials } = banner;
    for (const [key, code] of [
      [credentials.expired.apiKey, 'key_expired'],
      [credentials.revoked.apiKey, 'key_revoked'],
    ] as const) {
      const response = await api(baseUrl, '/auth/me', { key });
      expect(response.status).toBe(401);
      expect((await problemOf(response)).code).toBe(code);
    }
  });

  it('signs the admin in with a session cookie', async () => {
    const { baseUrl, credentials } = banner;
    const login = await api(baseUrl, '/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        email: credentials.admin.email,
        password: credentials.admin.password,
      }),
    });
    expect(login.status).toBe(200);
    const body = (await login.json()) as Identity;
    expect(body.authMethod).toBe('Cookie');
    expect(body.organizationId).toBe(credentials.admin.organizationId);
    const setCookie = login.headers.getSetCookie();
    expect(setCookie).toHaveLength(1);
    const cookie = setCookie[0]!.split(';')[0]!;
    expect(cookie).toMatch(/^[^=\s]+=\S+$/);

    const me = await api(baseUrl, '/auth/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    const session = (await me.json()) as Identity;
    expect(session.authMethod).toBe('Cookie');
    expect(session.email).toBe(credentials.admin.email);
    expect(session.organizationId).toBe(credentials.admin.organizationId);
    expect(session.apiKey).toBeNull();

    const wrong = await api(baseUrl, '/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: credentials.admin.email, password: 'not-the-password' }),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.getSetCookie()).toEqual([]);
  });

  it(
    'stops on SIGTERM with code 0 and restarts over the same data with the same credentials',
    async () => {
      const { baseUrl, credentials } = banner;
      const total = await labelTotal(baseUrl, credentials.primary);
      expect(total).toBeGreaterThan(100);

      first.child.kill('SIGTERM');
      const exit = await exitWithin(first, 5_000);
      expect(exit, `still running 5 s after SIGTERM; stderr: ${first.stderr()}`).toEqual({
        code: 0,
        signal: null,
      });
      await expect(fetch(`${baseUrl}/auth/me`)).rejects.toThrow();

      const second = launch(args());
      const again = await bannerOf(second);
      expect(again.credentials).toEqual(credentials);
      expect(again.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api$/);
      expect(await labelTotal(again.baseUrl, again.credentials.primary)).toBe(total);
      const me = await identity(again.baseUrl, credentials.primary.apiKey);
      expect(me.organizationId).toBe(credentials.primary.organizationId);
      const expired = await api(again.baseUrl, '/auth/me', { key: credentials.expired.apiKey });
      expect(expired.status).toBe(401);

      second.child.kill('SIGTERM');
      expect(await exitWithin(second, 5_000)).toEqual({ code: 0, signal: null });
    },
    2 * SPAWN_TIMEOUT_MS + 20_000,
  );
});

describe('--seed scale:N', () => {
  afterEach(killAll);

  it.each(['seed', 'field'])(
    'seeds a hospital of N labels and ten hub devices for the primary organization (%s dialect)',
    async (dialect) => {
      const dataDir = freshDir();
      const args = ['--port', '0', '--data', dataDir, '--seed', 'scale:2000', '--dialect', dialect];
      const cli = launch(args);
      const { baseUrl, credentials } = await bannerOf(cli);
      expect(await labelTotal(baseUrl, credentials.primary)).toBe(2000);
      expect(await labelTotal(baseUrl, credentials.secondary)).toBe(0);
      const devices = await api(
        baseUrl,
        `/devices?organizationId=${credentials.primary.organizationId}`,
        { key: credentials.primary.apiKey },
      );
      const hubs = ((await devices.json()) as { value: string; deviceType?: string }[]).filter(
        (device) => (device.deviceType ?? 'HUB') === 'HUB',
      );
      expect(hubs).toHaveLength(10);
      cli.child.kill('SIGTERM');
      expect(await exitWithin(cli, 5_000)).toEqual({ code: 0, signal: null });

      // Started again on the same folder, it serves the same records.
      const again = launch(args);
      const restarted = await bannerOf(again);
      expect(await labelTotal(restarted.baseUrl, restarted.credentials.primary)).toBe(2000);
      again.child.kill('SIGTERM');
      expect(await exitWithin(again, 5_000)).toEqual({ code: 0, signal: null });
    },
    2 * SPAWN_TIMEOUT_MS + 10_000,
  );
});

describe('invalid flags', () => {
  afterEach(killAll);

  it.each([
    [['--seed', 'bogus'], '"bogus"'],
    [['--seed', 'scale:0'], '"scale:0"'],
    [['--port', 'abc'], '"abc"'],
    [['--processing-ms', '1.5'], '"1.5"'],
    [['--clock', 'yesterday'], '"yesterday"'],
  ])(
    '%j exits non-zero naming the bad value',
    async (flags, named) => {
      const dataDir = freshDir();
      const cli = launch(['--data', dataDir, ...flags]);
      const exit = await exitWithin(cli, SPAWN_TIMEOUT_MS);
      expect(exit, 'still running').toBeDefined();
      expect(exit!.code).not.toBe(0);
      expect(exit!.code).not.toBeNull();
      expect(cli.stderr()).toContain(named);
      expect(cli.stderr()).toContain(`--${flags[0]!.slice(2)}`);
      expect(cli.stdout()).toBe('');
    },
    SPAWN_TIMEOUT_MS + 5_000,
  );

  it(
    'refuses a data folder seeded with another seed',
    async () => {
      const dataDir = freshDir();
      const seeded = launch(['--port', '0', '--data', dataDir, '--seed', 'scale:10']);
      await bannerOf(seeded);
      seeded.child.kill('SIGTERM');
      expect(await exitWithin(seeded, 5_000)).toEqual({ code: 0, signal: null });

      const other = launch(['--port', '0', '--data', dataDir, '--seed', 'demo']);
      const exit = await exitWithin(other, SPAWN_TIMEOUT_MS);
      expect(exit?.code).not.toBe(0);
      expect(exit?.code).not.toBeNull();
      expect(other.stderr()).toContain('"scale:10"');
      expect(other.stdout()).toBe('');
    },
    2 * SPAWN_TIMEOUT_MS,
  );
});

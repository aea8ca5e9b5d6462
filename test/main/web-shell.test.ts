import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect as netConnect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Core } from '../../src/main/core';
import { Value } from '@sinclair/typebox/value';
import {
  IPC_CHANNELS,
  SHELL_RPC_PROTOCOL,
  SHELL_TOKEN_PROTOCOL_PREFIX,
} from '../../src/shared/ipc';
import { MediaCapabilities } from '../../src/main/web/media-capability';
import { MAX_MESSAGE_BYTES, startWebShell, type WebShell } from '../../src/main/web/server';
import { testCore } from '../support/core';

let folder: string;
let core: Core;
let media: MediaCapabilities;
let shell: WebShell;
let token: string;

/** A raw request, so Host and Origin can be anything (fetch would refuse to set them). */
function get(
  path: string,
  headers: Record<string, string> = {},
): Promise<{
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: shell.port,
        path,
        headers: { host: `127.0.0.1:${shell.port}`, ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/**
 * Opens the RPC WebSocket, offering `offered` as the page does (a subprotocol; none when
 * null); resolves with the socket, or the HTTP status it was refused with.
 */
function connect(
  headers: Record<string, string>,
  offered: string | null = token,
): Promise<WebSocket | number> {
  return new Promise((resolve) => {
    const protocols = [SHELL_RPC_PROTOCOL];
    if (offered !== null) protocols.push(`${SHELL_TOKEN_PROTOCOL_PREFIX}${offered}`);
    const ws = new WebSocket(`ws://127.0.0.1:${shell.port}/rpc`, protocols, { headers });
    ws.on('open', () => resolve(ws));
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

/** Whether a TCP connection to `address`:`port` opens (false when it is refused or fails). */
const reaches = (address: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = netConnect({ host: address, port, timeout: 2000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });

/** Sends a request and resolves with the answer carrying its id (events on the socket are skipped). */
const call = (ws: WebSocket, message: { id: number; channel: string; input: unknown }) =>
  new Promise<unknown>((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const answer = JSON.parse(String(data)) as { id?: number };
      if (answer.id !== message.id) return;
      ws.off('message', onMessage);
      resolve(answer);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify(message));
  });

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'earmark-shell-'));
  const rendererDir = join(folder, 'renderer');
  mkdirSync(join(rendererDir, 'assets'), { recursive: true });
  writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Earmark</title>');
  writeFileSync(join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(folder, 'secret.txt'), 'outside the renderer');
  core = testCore({
    dataDir: join(folder, 'data'),
    version: '0.0.0-test',
    mediaUrl: (labelId) => media.urlOf(labelId),
  });
  media = new MediaCapabilities();
  shell = await startWebShell({ core, media, rendererDir });
  token = new URL(shell.url).searchParams.get('token')!;
});
afterAll(async () => {
  await shell.close();
  await core.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('the browser shell', () => {
  it('listens on loopback only, with a long random token in its address', async () => {
    const url = new URL(shell.url);
    expect(url.hostname).toBe('127.0.0.1');
    expect(url.searchParams.get('token')!.length).toBeGreaterThanOrEqual(43);
    // The socket itself: bound to 127.0.0.1, not to every address. 127.0.0.2 is this machine
    // too, and reaches a server on the wildcard address; so do the machine's network addresses.
    const elsewhere = Object.values(networkInterfaces())
      .flat()
      .flatMap((found) => (found && !found.internal ? [found.address] : []));
    expect(await reaches('127.0.0.1', shell.port)).toBe(true);
    for (const address of ['127.0.0.2', ...elsewhere])
      expect(await reaches(address, shell.port), address).toBe(false);
  });

  it('sets no cookie (every server on 127.0.0.1 would receive it): the page keeps the token', async () => {
    const response = await get(`/?token=${token}`);
    expect(response.status).toBe(200);
    expect(response.body).toContain('<title>Earmark</title>');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('serves the app’s code without the token (it holds no data), and refuses a wrong token at once', async () => {
    expect((await get('/')).status).toBe(200);
    expect((await get('/assets/app.js')).status).toBe(200);
    expect((await get('/?token=wrong')).status).toBe(401);
  });

  it('serves the renderer with the strict CSP and no CORS', async () => {
    const response = await get('/');
    expect(response.status).toBe(200);
    expect(response.body).toContain('<title>Earmark</title>');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${shell.port}`);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([
    '/../secret.txt',
    '/%2e%2e/secret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/..%5csecret.txt',
  ])('refuses the traversal %s', async (path) => {
    const response = await get(path);
    expect(response.status).toBe(404);
    expect(response.body).not.toContain('outside the renderer');
  });

  it('refuses another Host (DNS rebinding), even with the token', async () => {
    expect((await get(`/?token=${token}`, { host: `evil.example:${shell.port}` })).status).toBe(
      403,
    );
    expect((await get('/', { host: '127.0.0.1:1' })).status).toBe(403);
  });

  it('refuses WebSockets from a foreign Origin, without the token, or with another Host', async () => {
    const own = `http://127.0.0.1:${shell.port}`;
    expect(await connect({ origin: 'http://evil.example' })).toBe(403);
    expect(await connect({ origin: `http://127.0.0.1:${shell.port + 1}` })).toBe(403);
    expect(await connect({})).toBe(403);
    expect(await connect({ origin: own }, null)).toBe(401);
    expect(await connect({ origin: own }, 'nope')).toBe(401);
    // The token where the old shell took it, as a cookie, opens nothing.
    expect(await connect({ origin: own, cookie: `earmark_shell=${token}` }, null)).toBe(401);
  });

  it('refuses a WebSocket with the right Origin and token but another Host, or an opaque or https Origin', async () => {
    const own = `http://127.0.0.1:${shell.port}`;
    expect(await connect({ origin: own, host: `evil.example:${shell.port}` })).toBe(403);
    expect(await connect({ origin: 'null' })).toBe(403);
    expect(await connect({ origin: `https://127.0.0.1:${shell.port}` })).toBe(403);
  });

  it('carries the IPC contract over the WebSocket, validated', async () => {
    const ws = await connect({ origin: `http://127.0.0.1:${shell.port}` });
    if (typeof ws === 'number') throw new Error(`refused with ${ws}`);
    expect(await call(ws, { id: 1, channel: 'app.info', input: {} })).toEqual({
      id: 1,
      result: {
        ok: true,
        value: {
          version: '0.0.0-test',
          shell: 'browser',
          platform: process.platform,
          // No native folder dialog in a browser: exports go to a typed folder.
          folderChoice: 'path',
          defaultExportFolder: expect.any(String) as string,
        },
      },
    });
    expect(await call(ws, { id: 2, channel: 'accounts.list', input: { extra: 1 } })).toMatchObject({
      id: 2,
      result: { ok: false, error: { kind: 'invalid_input' } },
    });
    expect(await call(ws, { id: 3, channel: 'shell.exec', input: {} })).toMatchObject({
      id: 3,
      result: { ok: false, error: { kind: 'unknown_channel' } },
    });
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send('not json');
    expect(await closed).toBe(1007);
  });
});

/** A raw HTTP/1.1 request, byte for byte: resolves with its status line. */
function raw(request: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect(shell.port, '127.0.0.1', () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('end', () => resolve(answer.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

describe('the browser shell under hostile input (issue 19)', () => {
  const origin = () => `http://127.0.0.1:${shell.port}`;
  const stillServes = async () => {
    const ws = await connect({ origin: origin() });
    if (typeof ws === 'number') throw new Error(`refused with ${ws}`);
    expect(await call(ws, { id: 7, channel: 'app.info', input: {} })).toMatchObject({
      result: { ok: true },
    });
    ws.close();
  };

  it('answers a request target that is no URL with 400, token or not, and goes on', async () => {
    const host = `Host: 127.0.0.1:${shell.port}`;
    expect(await raw(`GET //[ HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`)).toBe(
      'HTTP/1.1 400 Bad Request',
    );
    expect(
      await raw(`GET //[?token=${token} HTTP/1.1\r\n${host}\r\nConnection: close\r\n\r\n`),
    ).toBe('HTTP/1.1 400 Bad Request');
    await stillServes();
  });

  it('refuses a token of other characters (same length, other bytes) with 401, and goes on', async () => {
    // As long as the token in UTF-16 units, longer in bytes: "é" is one unit and two bytes.
    const offered = `é${token.slice(1)}`;
    const upgrade = [
      'GET /rpc HTTP/1.1',
      `Host: 127.0.0.1:${shell.port}`,
      `Origin: ${origin()}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      `Sec-WebSocket-Protocol: ${SHELL_RPC_PROTOCOL}, ${SHELL_TOKEN_PROTOCOL_PREFIX}${offered}`,
      '',
      '',
    ].join('\r\n');
    // The header goes out as Latin-1, as Node reads it: "é" arrives as one character.
    expect(await raw(Buffer.from(upgrade, 'latin1'))).toBe('HTTP/1.1 401 Unauthorized');
    expect((await get(`/?token=${encodeURIComponent(offered)}`)).status).toBe(401);
    await stillServes();
  });

  it('closes only the socket of a message over the cap, or of a text frame that is not UTF-8', async () => {
    const bystander = await connect({ origin: origin() });
    if (typeof bystander === 'number') throw new Error(`refused with ${bystander}`);
    const closedWith = async (send: (ws: WebSocket) => void) => {
      const ws = await connect({ origin: origin() });
      if (typeof ws === 'number') throw new Error(`refused with ${ws}`);
      ws.on('error', () => undefined);
      const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
      send(ws);
      return closed;
    };
    expect(await closedWith((ws) => ws.send('x'.repeat(MAX_MESSAGE_BYTES + 1)))).toBe(1009);
    expect(await closedWith((ws) => ws.send(Buffer.from([0xc3, 0x28]), { binary: false }))).toBe(
      1007,
    );
    expect(await call(bystander, { id: 8, channel: 'app.info', input: {} })).toMatchObject({
      result: { ok: true },
    });
    bystander.close();
    await stillServes();
  });

  it('lets the largest input the contract allows through the cap', () => {
    const longest = (n: number) => 'a'.repeat(n);
    const item = {
      title: longest(300),
      groupKey: longest(200),
      fields: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`f${i}${'a'.repeat(36)}`, longest(2000)]),
      ),
      linkUrl: longest(2000),
      description: longest(10_000),
      assignee: longest(200),
      dueDate: longest(40),
      statusId: longest(40),
    };
    const input = { boardId: '00000000-0000-4000-8000-000000000000', items: [item] };
    const schema = IPC_CHANNELS['followUps.addTasks'].input;
    // Each limit taken to the full: the contract accepts it, and 100 of them fit the cap.
    expect(Value.Check(schema, input)).toBe(true);
    const largest = { ...input, items: Array.from({ length: 100 }, () => item) };
    expect(Value.Check(schema, largest)).toBe(true);
    expect(Value.Check(schema, { ...largest, items: [...largest.items, item] })).toBe(false);
    const message = JSON.stringify({ id: 1, channel: 'followUps.addTasks', input: largest });
    expect(Buffer.byteLength(message)).toBeLessThan(MAX_MESSAGE_BYTES);
  });

  it('answers media asked for with no account with 401 and a reason, and goes on', async () => {
    const answer = await get(`/${media.urlOf('00000000-0000-4000-8000-000000000000')}`);
    expect(answer.status).toBe(401);
    expect(answer.body).toContain('No clinic is connected yet');
    await stillServes();
  });
});

describe('media capabilities (issue 19)', () => {
  const one = '00000000-0000-4000-8000-000000000001';
  const other = '00000000-0000-4000-8000-000000000002';
  const refused = 'does not open that recording';

  it('open only the label they were made for, and nothing without one', async () => {
    const url = media.urlOf(one);
    expect(url).toMatch(new RegExp(`^media/${one}\\?cap=[A-Za-z0-9_-]{43}$`));
    expect(url).not.toContain(token);
    const capability = new URL(url, 'http://x').searchParams.get('cap')!;
    expect((await get(`/media/${one}`)).body).toContain(refused);
    expect((await get(`/media/${other}?cap=${capability}`)).body).toContain(refused);
    expect((await get(`/media/${one}?cap=${capability.slice(1)}`)).body).toContain(refused);
    // The session token is not a media capability either.
    expect((await get(`/media/${one}?cap=${token}`)).body).toContain(refused);
    // Its own: past the capability, to the core (no account here).
    expect((await get(`/${url}`)).body).toContain('No clinic is connected yet');
  });

  it('are made for this launch: another launch’s do not open anything here', async () => {
    const elsewhere = new MediaCapabilities().urlOf(one);
    expect((await get(`/${elsewhere}`)).body).toContain(refused);
  });
});

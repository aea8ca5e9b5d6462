import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  EVENT_NAMES,
  MEDIA_PATH_PREFIX,
  SHELL_RPC_PROTOCOL,
  SHELL_TOKEN_PROTOCOL_PREFIX,
  type WireMessage,
  type WireRequest,
} from '../../shared/ipc';
import { sendMedia } from '../audio/media';
import type { Core } from '../core';
import { contentSecurityPolicy, rendererHeaders } from '../shell/csp';
import { readStatic } from '../shell/static-files';
import { CAPABILITY_PARAM, type MediaCapabilities } from './media-capability';
import { sameSecret } from './same-secret';

const RPC_PATH = '/rpc';
/**
 * The largest WebSocket message taken. The contract's largest valid input (followUps.addTasks:
 * 100 tasks with every field at its limit) is about 11.5 MB of JSON; a test keeps the cap above
 * it. A bigger message closes that socket with 1009, and nothing else.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface WebShellOptions {
  core: Core;
  /** The media URLs' capabilities: the same the core was given to make them (`mediaUrl`). */
  media: MediaCapabilities;
  /** Where what went wrong with one request or socket is written (stderr by default). */
  log?: (message: string) => void;
  /** The built renderer (out/renderer). */
  rendererDir: string;
  port?: number;
  /** Called once, when a page first comes with this launch's token (the app has been opened). */
  opened?: () => void;
}

export interface WebShell {
  /** The address that opens the app, token included. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The token the page offers among its WebSocket subprotocols (`earmark-token.<token>`). */
function offeredToken(request: IncomingMessage): string | undefined {
  for (const protocol of (request.headers['sec-websocket-protocol'] ?? '').split(',')) {
    const trimmed = protocol.trim();
    if (trimmed.startsWith(SHELL_TOKEN_PROTOCOL_PREFIX))
      return trimmed.slice(SHELL_TOKEN_PROTOCOL_PREFIX.length);
  }
  return undefined;
}

function deny(response: ServerResponse, status: number, message: string) {
  response
    .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    .end(`${message}\n`);
}

function refuseUpgrade(socket: Duplex, status: string) {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

const isWireRequest = (value: unknown): value is WireRequest =>
  typeof value === 'object' &&
  value !== null &&
  Number.isSafeInteger((value as WireRequest).id) &&
  typeof (value as WireRequest).channel === 'string';

/**
 * The browser shell: the built renderer and the IPC contract (over a WebSocket) on 127.0.0.1
 * only. A random token per launch is the capability to drive the app: the page takes it from the
 * address it was opened at into localStorage (per origin, so per port) and offers it
 * as a WebSocket subprotocol; it is never a cookie (cookies ignore ports: every server on
 * 127.0.0.1 would receive it). Media URLs carry a capability for their one label
 * (media-capability.ts). The renderer's files are the app's code, no data: served to any page
 * of this origin. Host and Origin must name this server (DNS rebinding); no CORS headers at all.
 * docs/browser-shell.md, "Capabilities".
 */
export async function startWebShell(options: WebShellOptions): Promise<WebShell> {
  const token = randomBytes(32).toString('base64url');
  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  const hostAllowed = (request: IncomingMessage) => allowedHosts().has(request.headers.host ?? '');
  const authorized = (request: IncomingMessage) => {
    const offered = offeredToken(request);
    return offered !== undefined && sameSecret(offered, token);
  };

  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  let openedOnce = false;
  const opened = () => {
    if (openedOnce) return;
    openedOnce = true;
    options.opened?.();
  };

  // One request's failure answers that request only: the process (core, sync, exports) goes on.
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`web shell: ${request.method} failed: ${error instanceof Error ? error.message : error}`);
      if (!response.headersSent) deny(response, 500, 'Earmark could not answer this request.');
      else response.destroy();
    });
  });
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    if (!hostAllowed(request)) return deny(response, 403, 'Forbidden host.');
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return deny(response, 405, 'Method not allowed.');
    let url: URL;
    try {
      // The Host was checked above: parse the target against this server, never a header.
      url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
    } catch {
      return deny(response, 400, 'Bad request target.');
    }
    // The page takes the token from its address (bridge.ts); a wrong one is said at once.
    const offered = url.searchParams.get('token');
    if (offered !== null && !sameSecret(offered, token))
      return deny(response, 401, 'Wrong token. Open Earmark from the address it printed.');
    if (offered !== null) opened();
    if (url.pathname.startsWith(`/${MEDIA_PATH_PREFIX}`)) {
      const labelId = url.pathname.slice(MEDIA_PATH_PREFIX.length + 1);
      if (!options.media.allows(labelId, url.searchParams.get(CAPABILITY_PARAM)))
        return deny(
          response,
          401,
          'This address does not open that recording (it was made for another run of Earmark).',
        );
      // The player giving the request up (a seek, the record closed) ends a waiting answer.
      const gone = new AbortController();
      response.once('close', () => gone.abort());
      return sendMedia(
        response,
        await options.core.media(
          { method: request.method, headers: request.headers, signal: gone.signal },
          labelId,
        ),
      );
    }
    const file = await readStatic(options.rendererDir, url.pathname);
    if (!file) return deny(response, 404, 'Not found.');
    const csp = contentSecurityPolicy([`ws://127.0.0.1:${port}`, `ws://localhost:${port}`]);
    response.writeHead(200, {
      ...rendererHeaders(csp),
      'content-type': file.contentType,
      'cache-control':
        url.pathname === '/' || url.pathname.endsWith('.html')
          ? 'no-store'
          : 'private, max-age=3600',
    });
    response.end(request.method === 'HEAD' ? undefined : file.body);
  }

  const sockets = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    // The token was checked before the upgrade; the socket speaks the one protocol there is.
    handleProtocols: (protocols) =>
      protocols.has(SHELL_RPC_PROTOCOL) ? SHELL_RPC_PROTOCOL : false,
  });
  server.on('upgrade', (request, socket, head) => {
    const origin = request.headers.origin ?? '';
    if (!hostAllowed(request) || !allowedHosts().has(origin.replace(/^http:\/\//, '')))
      return refuseUpgrade(socket, '403 Forbidden');
    if (!authorized(request)) return refuseUpgrade(socket, '401 Unauthorized');
    if (new URL(request.url ?? '/', 'http://x').pathname !== RPC_PATH)
      return refuseUpgrade(socket, '404 Not Found');
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws));
  });

  const send = (ws: WebSocket, message: WireMessage) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  sockets.on('connection', (ws: WebSocket) => {
    // A protocol error (a message over the cap, a text frame that is not UTF-8) closes this
    // socket only; ws has already sent the close code that says why.
    ws.on('error', (error) => {
      log(`web shell: a WebSocket closed on an error: ${error.message}`);
      ws.terminate();
    });
    ws.on('message', async (data) => {
      let request: unknown;
      try {
        request = JSON.parse(String(data));
      } catch {
        return ws.close(1007, 'Messages must be JSON.');
      }
      if (!isWireRequest(request)) return ws.close(1007, 'Messages must be {id, channel, input}.');
      send(ws, {
        id: request.id,
        result: await options.core.rpc.invoke(request.channel, request.input),
      });
    });
  });
  const unsubscribe = EVENT_NAMES.map((event) =>
    options.core.on(event, (payload) => {
      for (const ws of sockets.clients) send(ws, { event, payload });
    }),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    port,
    async close() {
      unsubscribe.forEach((stop) => stop());
      for (const ws of sockets.clients) ws.terminate();
      sockets.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

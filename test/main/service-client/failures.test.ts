import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { KEY_REFUSAL_KINDS } from '../../../src/shared/ipc/constants';
import { API_ERROR_KINDS, ApiError } from '../../../src/main/service-client/errors';
import {
  classify,
  isTransient,
  isUnreachable,
  kindOfNetworkFailure,
  type FailureClass,
} from '../../../src/main/service-client/failures';
import { createHttpClient } from '../../../src/main/service-client/http';
import { retryDelayMs } from '../../../src/main/service-client/retry';
import { closedPortUrl } from './helpers';

/**
 * The one classification of failures (src/main/service-client/failures.ts): what a failure on the wire
 * becomes (an ApiError kind), which class that kind is, and so what every part of main does
 * with it. Real failures on loopback where this machine can make them; the error codes of the
 * rest (a far network, a certificate) as Node and undici throw them.
 */

const servers: (Server | HttpServer)[] = [];
const sockets = new Set<Socket>();
afterAll(async () => {
  // Some connections were left stalled on purpose: end them, or close() would wait for them.
  for (const socket of sockets) socket.destroy();
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

async function listening<S extends Server | HttpServer>(server: S): Promise<number> {
  servers.push(server);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** An HTTP server answering every request with `status`, a problem body and `headers`. */
async function answering(status: number, body = '{}', headers: Record<string, string> = {}) {
  const port = await listening(
    createHttpServer((_, response) => {
      response.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
      response.end(body);
    }),
  );
  return `http://127.0.0.1:${port}/api`;
}

/** Resets each connection (TCP RST) as soon as the request arrives. */
async function resetting(): Promise<string> {
  const port = await listening(
    createTcpServer((socket) => socket.once('data', () => socket.resetAndDestroy())),
  );
  return `http://127.0.0.1:${port}/api`;
}

/** Sends the headers and part of the body, then `then`: closes the connection, or stalls. */
async function partialBody(then: 'close' | 'stall'): Promise<string> {
  const port = await listening(
    createHttpServer((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      response.write('{"id":');
      if (then === 'close') setTimeout(() => response.socket?.destroy(), 20);
    }),
  );
  return `http://127.0.0.1:${port}/api`;
}

/** Accepts connections and never answers. */
async function silent(): Promise<string> {
  const port = await listening(createTcpServer(() => undefined));
  return `http://127.0.0.1:${port}/api`;
}

/** The ApiError one GET (no retries, a 300 ms time-out) to `baseUrl` fails with. */
async function failureOfGet(baseUrl: string, signal?: AbortSignal): Promise<ApiError> {
  const http = createHttpClient({ baseUrl, apiKey: 'k', maxRetries: 0, timeoutMs: 300 });
  try {
    const error: unknown = await http
      .json({ method: 'GET', path: '/x', signal }, (body) => body)
      .then(
        () => expect.fail('expected the request to fail'),
        (reason: unknown) => reason,
      );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  } finally {
    await http.close();
  }
}

const aborted = () => {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
};

/** What each part of main does with a failure of this class (docs/faults.md). */
const CONSEQUENCES: Record<
  FailureClass,
  { unreachable: boolean; transient: boolean; getRetried: boolean; postRetried: boolean }
> = {
  cancelled: { unreachable: false, transient: false, getRetried: false, postRetried: false },
  unreachable: { unreachable: true, transient: true, getRetried: true, postRetried: false },
  busy: { unreachable: false, transient: true, getRetried: true, postRetried: false },
  key_refused: { unreachable: false, transient: false, getRetried: false, postRetried: false },
  answered: { unreachable: false, transient: false, getRetried: false, postRetried: false },
  local: { unreachable: false, transient: false, getRetried: false, postRetried: false },
};

/** A 429 is the one kind retried for a POST too: the service refused it before doing anything. */
const expectedFor = (error: ApiError) =>
  error.kind === 'rate_limited'
    ? { ...CONSEQUENCES.busy, postRetried: true }
    : CONSEQUENCES[classify(error)];

const policy = { maxRetries: 3, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 };
const consequencesOf = (error: ApiError) => ({
  unreachable: isUnreachable(error),
  transient: isTransient(error),
  getRetried: retryDelayMs(error, 'GET', 0, policy, () => 0.5) !== undefined,
  postRetried: retryDelayMs(error, 'POST', 0, policy, () => 0.5) !== undefined,
});

describe('real failures on loopback: the kind they become, and their class', () => {
  it.each([
    ['a closed port (ECONNREFUSED)', 'offline', 'unreachable', closedPortUrl],
    ['a connection reset before any answer (ECONNRESET)', 'offline', 'unreachable', resetting],
    ['a connection closed mid-body', 'offline', 'unreachable', () => partialBody('close')],
    ['no answer within the time-out', 'timeout', 'unreachable', silent],
    ['a body that stalls past the time-out', 'timeout', 'unreachable', () => partialBody('stall')],
    [
      'a name that does not resolve (DNS)',
      'offline',
      'unreachable',
      () => Promise.resolve('http://earmark-failures-test.invalid/api'),
    ],
    [
      'a TLS handshake that fails (https to a plain HTTP server)',
      'offline',
      'unreachable',
      async () => (await answering(200)).replace('http:', 'https:'),
    ],
    ['HTTP 401 without a code', 'key_invalid', 'key_refused', () => answering(401)],
    [
      'HTTP 401 key_revoked',
      'key_revoked',
      'key_refused',
      () => answering(401, '{"code":"key_revoked"}'),
    ],
    [
      'HTTP 401 key_expired',
      'key_expired',
      'key_refused',
      () => answering(401, '{"code":"key_expired"}'),
    ],
    [
      'HTTP 403 scope_missing',
      'scope_missing',
      'answered',
      () => answering(403, '{"code":"scope_missing"}'),
    ],
    [
      'HTTP 403 organization_mismatch',
      'organization_mismatch',
      'answered',
      () => answering(403, '{"code":"organization_mismatch"}'),
    ],
    ['HTTP 404', 'not_found', 'answered', () => answering(404)],
    ['HTTP 409', 'conflict', 'answered', () => answering(409)],
    ['HTTP 400', 'bad_request', 'answered', () => answering(400)],
    ['HTTP 429', 'rate_limited', 'busy', () => answering(429)],
    ['HTTP 500', 'server_error', 'busy', () => answering(500)],
    ['HTTP 502', 'server_error', 'busy', () => answering(502)],
    ['HTTP 503', 'server_error', 'busy', () => answering(503)],
    ['HTTP 504', 'server_error', 'busy', () => answering(504)],
    [
      'a 200 that is not JSON',
      'invalid_response',
      'answered',
      () => answering(200, '<html>captive portal</html>'),
    ],
  ] as const)('%s → %s, %s', async (_, kind, failureClass, serve) => {
    const error = await failureOfGet(await serve());
    expect(error.kind).toBe(kind);
    expect(classify(error)).toBe(failureClass);
    expect(consequencesOf(error)).toEqual(expectedFor(error));
  });

  it('a request the caller aborted → cancelled, never retried', async () => {
    const error = await failureOfGet(await silent(), aborted());
    expect(error.kind).toBe('cancelled');
    expect(classify(error)).toBe('cancelled');
    expect(consequencesOf(error)).toEqual(CONSEQUENCES.cancelled);
  });
});

describe('network errors this machine cannot make, by the code Node or undici throws', () => {
  const thrown = (code: string, onCause = false) => {
    const error = Object.assign(new Error(code), { code });
    return onCause ? Object.assign(new Error('fetch failed'), { cause: error }) : error;
  };

  it.each([
    ['ETIMEDOUT', 'timeout'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['ECONNREFUSED', 'offline'],
    ['ECONNRESET', 'offline'],
    ['ECONNABORTED', 'offline'],
    ['EPIPE', 'offline'],
    ['ENOTFOUND', 'offline'],
    ['EAI_AGAIN', 'offline'],
    ['ENETUNREACH', 'offline'],
    ['EHOSTUNREACH', 'offline'],
    ['UND_ERR_SOCKET', 'offline'],
    ['UND_ERR_CLOSED', 'offline'],
    ['UND_ERR_ABORTED', 'offline'],
    ['EPROTO', 'offline'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'offline'],
    ['CERT_HAS_EXPIRED', 'offline'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'offline'],
    ['SELF_SIGNED_CERT_IN_CHAIN', 'offline'],
    ['UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'offline'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'offline'],
  ] as const)('%s → %s (on the error or on its cause)', (code, kind) => {
    expect(kindOfNetworkFailure(thrown(code))).toBe(kind);
    expect(kindOfNetworkFailure(thrown(code, true))).toBe(kind);
    expect(classify(new ApiError(kind))).toBe('unreachable');
  });

  it.each([
    ['a request built wrong (UND_ERR_INVALID_ARG)', thrown('UND_ERR_INVALID_ARG')],
    ['a bad argument (ERR_INVALID_ARG_TYPE)', thrown('ERR_INVALID_ARG_TYPE')],
    ['an error without a code (a bug)', new TypeError('x is not a function')],
  ])('%s is not the network: passed on as it is', (_, error) => {
    expect(kindOfNetworkFailure(error)).toBeUndefined();
    expect(classify(error)).toBe('local');
    expect(isUnreachable(error)).toBe(false);
    expect(isTransient(error)).toBe(false);
  });
});

describe('every kind has one class', () => {
  it.each(API_ERROR_KINDS)('%s', (kind) => {
    const error = new ApiError(kind);
    expect(consequencesOf(error)).toEqual(expectedFor(error));
  });

  it('the key refusals are the contract’s (the renderer says “Key revoked” for the same kinds)', () => {
    const refused = API_ERROR_KINDS.filter(
      (kind) => classify(new ApiError(kind)) === 'key_refused',
    );
    expect([...refused].sort()).toEqual([...KEY_REFUSAL_KINDS].sort());
  });
});

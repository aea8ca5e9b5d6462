import {
  Agent,
  createServer,
  request as forwardRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does to one request instead of simply forwarding it. */
type Fault =
  /** Answers with this status itself (the service never sees the request); a problem body by default. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  /** Answers 200 with a body that is not JSON. */
  | { kind: 'malformed-json' }
  /** Forwards after a pause (a slow service). */
  | { kind: 'delay'; ms: number }
  /** Forwards, sends the headers and half the body, then closes the connection. */
  | { kind: 'drop-mid-body' }
  /** Closes the connection without answering, as a crashed or refusing server does. */
  | { kind: 'reset' }
  /** Forwards and rewrites the JSON body of the answer (whatever its status). */
  | { kind: 'rewrite'; transform: (body: unknown) => unknown }
  /** Forwards untouched: lets a number of matching requests through before the faults queued after it. */
  | { kind: 'pass' };

/** Which requests a queued fault applies to (all when omitted). */
export interface FaultTarget {
  method?: string;
  /** The path below the base URL: exactly this string, or any path the pattern matches. */
  path?: string | RegExp;
}

interface SeenRequest {
  method: string;
  /** The path below the base URL, e.g. /auth/me. */
  path: string;
  /** The raw query string, without '?', exactly as it came over the wire. */
  query: string;
  /** The request's headers as received (Range, If-Range, …). */
  headers: IncomingHttpHeaders;
}

export interface FaultProxy {
  /** The target's base URL with the proxy's origin: give it to the client. */
  baseUrl: string;
  /** Every request the proxy received, in order, faulted or not. */
  requests: SeenRequest[];
  /** The requests received that match `target`, in order. */
  seen(target: FaultTarget): SeenRequest[];
  /**
   * Applies `fault` to the next `times` requests that match `target` (every request by
   * default), after the faults already queued for them.
   */
  inject(fault: Fault, times?: number, target?: FaultTarget): void;
  /** Forgets the log and any fault still queued. */
  reset(): void;
  close(): Promise<void>;
}

const readAll = async (stream: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

const problemBody = (status: number) =>
  JSON.stringify({
    type: 'about:blank',
    title: 'Injected fault',
    status,
    detail: `The fault proxy answered ${status}.`,
  });

/** Response headers worth passing on, with the length of the body actually sent. */
function responseHeaders(upstream: IncomingHttpHeaders, length: number): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(upstream)) {
    if (value === undefined || ['transfer-encoding', 'connection', 'keep-alive'].includes(name))
      continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  headers['content-length'] = String(length);
  return headers;
}

const targets = ({ method, path }: FaultTarget, request: SeenRequest): boolean =>
  (method === undefined || method === request.method) &&
  (path === undefined ||
    (typeof path === 'string' ? path === request.path : path.test(request.path)));

/**
 * A loopback HTTP proxy in front of the service that misbehaves on request: each request takes
 * the next queued fault, if any, and the proxy logs what it saw.
 */
export async function startFaultProxy(targetBaseUrl: string): Promise<FaultProxy> {
  const target = new URL(targetBaseUrl);
  const basePath = target.pathname.replace(/\/+$/, '');
  const agent = new Agent({ keepAlive: false });
  const faults: { fault: Fault; target: FaultTarget }[] = [];
  const requests: SeenRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  async function forward(request: IncomingMessage, body: Buffer) {
    const upstream = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = forwardRequest(
        {
          host: target.hostname,
          port: target.port,
          method: request.method,
          path: request.url,
          headers: { ...request.headers, host: target.host },
          agent,
        },
        resolve,
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    return { upstream, payload: await readAll(upstream) };
  }

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://proxy');
    const seen: SeenRequest = {
      method: request.method ?? 'GET',
      path: url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname,
      query: url.search.replace(/^\?/, ''),
      headers: request.headers,
    };
    requests.push(seen);
    const queued = faults.findIndex(({ target }) => targets(target, seen));
    const fault = queued === -1 ? undefined : faults.splice(queued, 1)[0]!.fault;
    const body = await readAll(request);

    if (fault?.kind === 'reset') return request.socket.destroy();
    if (fault?.kind === 'status') {
      const payload = fault.body ?? problemBody(fault.status);
      response.writeHead(fault.status, {
        'content-type': 'application/problem+json',
        ...fault.headers,
        'content-length': String(Buffer.byteLength(payload)),
      });
      return response.end(payload);
    }
    if (fault?.kind === 'malformed-json') {
      response.writeHead(200, { 'content-type': 'application/json' });
      return response.end('{"items": [{"id": tru');
    }
    if (fault?.kind === 'delay') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, fault.ms);
        timers.add(timer);
      });
      if (request.socket.destroyed) return;
    }

    const { upstream, payload: original } = await forward(request, body);
    const payload =
      fault?.kind === 'rewrite'
        ? Buffer.from(JSON.stringify(fault.transform(JSON.parse(original.toString('utf8')))))
        : original;
    response.writeHead(
      upstream.statusCode ?? 502,
      responseHeaders(upstream.headers, payload.length),
    );
    if (fault?.kind === 'drop-mid-body') {
      const half = payload.subarray(0, Math.max(1, Math.floor(payload.length / 2)));
      return response.write(half, () => response.socket?.destroy());
    }
    response.end(payload);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: Error) => {
      if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`fault proxy: ${error.message}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}${basePath}`,
    requests,
    seen: (target) => requests.filter((request) => targets(target, request)),
    inject(fault, times = 1, target = {}) {
      for (let i = 0; i < times; i++) faults.push({ fault, target });
    },
    reset() {
      faults.length = 0;
      requests.length = 0;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { SecureContext } from 'node:tls';
import { setTimeout as delay } from 'node:timers/promises';
import { Pool, type Dispatcher } from 'undici';
import { ApiError, type ApiErrorKind } from './errors';
import { kindOfErrorResponse, kindOfNetworkFailure } from './failures';
import { forbiddenCause, readKeyStanding } from './forbidden';
import { ShapeError } from './read';
import { parseRetryAfter, retryDelayMs, type RetryPolicy } from './retry';

type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PATCH' | 'DELETE';

/** A query parameter: arrays are sent repeated (`types=A&types=B`), never as `types[]=`. */
type QueryValue = string | number | boolean | readonly string[] | undefined;

/** What every endpoint function accepts last. */
export interface CallOptions {
  /** Cancels the request, its retries and the wait between them ('cancelled', never retried). */
  signal?: AbortSignal;
  /** Overrides the client's per-attempt time-out. */
  timeoutMs?: number;
  /**
   * Who waits out a 429: the client, retrying after Retry-After (the default), or the caller,
   * who gets the error at once (the sync, whose gate paces all its requests by what the 429s say).
   */
  rateLimits?: 'client' | 'caller';
}

export interface ApiRequest extends CallOptions {
  method: HttpMethod;
  /** The path below the base URL, its parameters already encoded (see `pathOf`). */
  path: string;
  query?: Readonly<Record<string, QueryValue>>;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Readonly<Record<string, string>>;
}

interface ApiResponse<T> {
  status: number;
  headers: IncomingHttpHeaders;
  data: T;
}

interface StreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body as it arrives; the caller's signal still aborts it. */
  body: Readable;
}

/** Tuning of the request core; everything time-related is injectable for tests. */
export interface HttpTuning extends Partial<RetryPolicy> {
  /** Per attempt: until the whole JSON body is read, or until the headers of a stream. */
  timeoutMs?: number;
  /** Keep-alive connections to the service. */
  connections?: number;
  /**
   * The TLS context of its connections, for the certificate authorities they trust: the
   * Electron shell's trusts the system's store too (src/main/electron/system-ca.ts).
   */
  secureContext?: SecureContext;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export interface HttpOptions extends HttpTuning {
  /** The API root, e.g. https://clinic.example/api. */
  baseUrl: string;
  apiKey: string;
}

export interface HttpClient {
  /** Sends a request and reads its JSON body (undefined when empty) with `read`. */
  json<T>(request: ApiRequest, read: (body: unknown) => T): Promise<ApiResponse<T>>;
  /** `json` for the callers that need only the data. */
  data<T>(request: ApiRequest, read: (body: unknown) => T): Promise<T>;
  /** Sends a request whose answer the seed does not show: success is the 2xx itself. */
  send(request: ApiRequest): Promise<void>;
  /** Sends a request and hands over the body unread (audio). */
  stream(request: ApiRequest): Promise<StreamResponse>;
  /** How many keep-alive connections the pool holds at most. */
  readonly connections: number;
  close(): Promise<void>;
}

const DEFAULT_TUNING = {
  maxRetries: 3,
  baseDelayMs: 300,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
  timeoutMs: 30_000,
  connections: 6,
} as const;

/**
 * Builds a path from literal segments and parameters, each parameter percent-encoded. A
 * parameter that is "." or ".." is refused: encoding leaves dots alone, and a URL resolves such a
 * segment as a step of the path, so `/labels/..` would reach another route.
 */
export const pathOf = (strings: TemplateStringsArray, ...params: string[]): string =>
  strings.reduce((path, literal, index) => {
    const param = params[index - 1];
    if (param === '.' || param === '..')
      throw new RangeError(`"${param}" cannot be an id in a path: it would reach another path.`);
    return path + (param === undefined ? '' : encodeURIComponent(param)) + literal;
  });

export function queryString(query: ApiRequest['query']): string {
  const pairs: string[] = [];
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    const values: readonly (string | number | boolean)[] = Array.isArray(value) ? value : [value];
    for (const item of values) {
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(String(item))}`);
    }
  }
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

export const headerOf = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

/** Members of a problem body that are not extensions (RFC 9457 §3.1, and `code`). */
const PROBLEM_MEMBERS = new Set([
  'type',
  'title',
  'status',
  'detail',
  'instance',
  'code',
  'errors',
]);

/** The problem `code`, the service's own message and any extension members, from an error body of any form. */
function problemOf(
  text: string,
  contentType: string,
): { code?: string; detail?: string; extensions?: Record<string, unknown> } {
  try {
    const body = JSON.parse(text) as unknown;
    if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
      const problem = body as Record<string, unknown>;
      const detail = [problem.detail, problem.message, problem.title, problem.error].find(
        (value): value is string => typeof value === 'string' && value !== '',
      );
      const extensions = Object.entries(problem).filter(([name]) => !PROBLEM_MEMBERS.has(name));
      return {
        ...(typeof problem.code === 'string' ? { code: problem.code } : {}),
        detail,
        ...(extensions.length > 0 ? { extensions: Object.fromEntries(extensions) } : {}),
      };
    }
  } catch {
    // Not JSON: a plain-text body is the service's message; an HTML error page is not.
  }
  const plain = contentType.startsWith('text/plain') ? text.trim() : '';
  return plain ? { detail: plain } : {};
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ShapeError(`the body is not JSON (${text.length} bytes)`);
  }
}

/** The attempts in flight that each caller's signal must abort. */
const attemptsBySignal = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * Makes `signal` abort `attempt` until the returned function is called. One 'abort' listener per
 * caller's signal, however many attempts share it (a sync's signal is shared by thousands):
 * `AbortSignal.any` per attempt cost 40–100 µs each in Node 20 (its cost grows with the signals
 * made from the same parent), and a listener per attempt makes Node warn of a leak past 10 at once.
 */
function follow(signal: AbortSignal, attempt: AbortController): () => void {
  const attempts = attemptsBySignal.get(signal) ?? attemptsAbortedBy(signal);
  attempts.add(attempt);
  return () => attempts.delete(attempt);
}

function attemptsAbortedBy(signal: AbortSignal): Set<AbortController> {
  const attempts = new Set<AbortController>();
  const abortAll = () => {
    for (const attempt of attempts) attempt.abort(signal.reason);
  };
  signal.addEventListener('abort', abortAll, { once: true });
  attemptsBySignal.set(signal, attempts);
  return attempts;
}

/** The undici request core: one keep-alive pool, retries, time-outs, cancellation, typed errors. */
export function createHttpClient(options: HttpOptions): HttpClient {
  const { baseUrl, apiKey, now = Date.now, random = Math.random, sleep, ...policy } = options;
  const tuning = { ...DEFAULT_TUNING, ...withoutUndefined(policy) };
  const pause = sleep ?? ((ms, signal) => delay(ms, undefined, { signal }));
  const root = new URL(baseUrl);
  const basePath = root.pathname.replace(/\/+$/, '');
  const pool = new Pool(root.origin, {
    connections: tuning.connections,
    ...(tuning.secureContext && { connect: { secureContext: tuning.secureContext } }),
  });

  // Whatever a server or the network says goes into errors and logs: keep the key out of it.
  const redact = (text: string | undefined) =>
    text !== undefined && apiKey !== '' ? text.replaceAll(apiKey, '[API key]') : text;

  const cancelled = (cause?: unknown) => new ApiError('cancelled', { cause });

  /** Turns whatever an attempt threw into an ApiError, or rethrows a programming error. */
  function failureOf(error: unknown, request: ApiRequest, timedOut: boolean): ApiError {
    if (error instanceof ApiError) return error;
    if (request.signal?.aborted) return cancelled(error);
    if (error instanceof ShapeError) {
      return new ApiError('invalid_response', { detail: error.message });
    }
    // Our own timer aborted the attempt; otherwise what the network said (failures.ts).
    const kind = timedOut ? 'timeout' : kindOfNetworkFailure(error);
    if (!kind) throw error;
    return new ApiError(kind, {
      detail: redact(error instanceof Error ? error.message : String(error)),
      cause: error,
    });
  }

  /** A 403 without a code the client knows: ask /auth/me which cause it is. */
  async function forbiddenKind(request: ApiRequest): Promise<ApiErrorKind> {
    const refused = { path: request.path, query: new URLSearchParams(queryString(request.query)) };
    if (request.path === '/auth/me') return forbiddenCause(refused, undefined);
    try {
      const me = await json(
        { method: 'GET', path: '/auth/me', signal: request.signal },
        readKeyStanding,
      );
      return forbiddenCause(refused, me.data);
    } catch (error) {
      if (error instanceof ApiError && error.kind === 'cancelled') throw error;
      return forbiddenCause(refused, undefined);
    }
  }

  async function errorOfResponse(
    request: ApiRequest,
    response: Dispatcher.ResponseData,
  ): Promise<ApiError> {
    const { statusCode: status, headers } = response;
    const text = await response.body.text();
    if (status < 400) {
      return new ApiError('invalid_response', { status, detail: `unexpected HTTP ${status}` });
    }
    const problem = problemOf(text, headerOf(headers, 'content-type') ?? '');
    const detail = redact(problem.detail);
    const retryAfterMs =
      status === 429 ? parseRetryAfter(headerOf(headers, 'retry-after'), now()) : undefined;
    const kind = kindOfErrorResponse(status, problem.code) ?? (await forbiddenKind(request));
    return new ApiError(kind, { status, detail, retryAfterMs, extensions: problem.extensions });
  }

  /**
   * One attempt: the time-out covers what `handle` reads of the body. A body handed over unread
   * (`bodyOutlivesAttempt`) stays cancellable by the caller's signal until it closes.
   */
  async function attempt<R>(
    request: ApiRequest,
    handle: (response: Dispatcher.ResponseData) => Promise<R>,
    bodyOutlivesAttempt = false,
  ): Promise<R> {
    if (request.signal?.aborted) throw cancelled(request.signal.reason);
    const timeoutMs = request.timeoutMs ?? tuning.timeoutMs;
    // One controller per attempt, aborted by its timer or by the caller's signal.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const unfollow = request.signal ? follow(request.signal, controller) : undefined;
    let body: Readable | undefined;
    try {
      const hasBody = request.body !== undefined;
      const response = await pool.request({
        method: request.method,
        path: basePath + request.path + queryString(request.query),
        headers: {
          accept: 'application/json',
          ...request.headers,
          authorization: `Bearer ${apiKey}`,
          ...(hasBody ? { 'content-type': 'application/json' } : {}),
        },
        body: hasBody ? JSON.stringify(request.body) : null,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      if (response.statusCode < 200 || response.statusCode >= 300) {
        throw await errorOfResponse(request, response);
      }
      const result = await handle(response);
      if (bodyOutlivesAttempt) body = response.body;
      return result;
    } catch (error) {
      throw failureOf(error, request, timedOut);
    } finally {
      clearTimeout(timer);
      if (unfollow && body && !body.closed) body.once('close', unfollow);
      else unfollow?.();
    }
  }

  async function withRetries<R>(
    request: ApiRequest,
    handle: (response: Dispatcher.ResponseData) => Promise<R>,
    bodyOutlivesAttempt = false,
  ): Promise<R> {
    for (let retry = 0; ; retry++) {
      try {
        return await attempt(request, handle, bodyOutlivesAttempt);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.kind === 'rate_limited' && request.rateLimits === 'caller') throw error;
        const waitMs = retryDelayMs(error, request.method, retry, tuning, random);
        if (waitMs === undefined) throw error;
        try {
          await pause(waitMs, request.signal);
        } catch (sleepError) {
          if (request.signal?.aborted) throw cancelled(sleepError);
          throw sleepError;
        }
        if (request.signal?.aborted) throw cancelled(request.signal.reason);
      }
    }
  }

  function json<T>(request: ApiRequest, read: (body: unknown) => T): Promise<ApiResponse<T>> {
    return withRetries(request, async (response) => ({
      status: response.statusCode,
      headers: response.headers,
      data: read(parseJson(await response.body.text())),
    }));
  }

  return {
    json,
    data: async (request, read) => (await json(request, read)).data,
    send: (request) => withRetries(request, (response) => response.body.dump()),
    stream: (request) =>
      withRetries(
        request,
        async (response) => ({
          status: response.statusCode,
          headers: response.headers,
          body: response.body,
        }),
        true,
      ),
    connections: tuning.connections,
    close: () => pool.close(),
  };
}

const withoutUndefined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as Partial<T>;

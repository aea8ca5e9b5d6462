import { open, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AccountKey } from '../at-rest/account-key';
import { SealedFileReader } from '../at-rest/sealed-file';
import type { AudioStream } from './audio-stream';
import { audioTypeOf, SNIFF_BYTES } from './audio-type';

/**
 * Serves an audio file to the renderer's <audio> with Range support, for both shells: the browser
 * shell's HTTP route (sendMedia) and the Electron custom protocol (mediaFetchResponse; net.fetch
 * of file:// ignores Range, so the protocol answers it here). Seeking anywhere in a 90-minute file
 * reads only the bytes asked for.
 */

/** The parts of a request this reads: a Node IncomingMessage or a Fetch Request fits. */
export interface MediaRequest {
  /** GET when absent. */
  method?: string;
  headers: Headers | Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Aborts when the player gives the request up (a waiting answer stops waiting). */
  signal?: AbortSignal;
}

export interface MediaFile {
  path: string;
  /**
   * The file is sealed under this account's key (the audio cache's): what is served is its plain
   * bytes, each chunk checked as it is read; a chunk that fails is never sent (SealedDataError).
   */
  key?: AccountKey;
}

/** A file's plain bytes, as the route reads them. */
interface MediaReader {
  size: number;
  mtimeMs: number;
  read(start: number, end: number): Promise<Buffer>;
  /** [start, end] inclusive; the stream owns the file and closes it. */
  stream(start: number, end: number): Readable;
  close(): Promise<void>;
}

/** The file opened for reading; null when it is missing or not a file. */
async function openReader({ path, key }: MediaFile): Promise<MediaReader | null> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) return null;
  try {
    if (key) return await SealedFileReader.open(path, key);
    const handle = await open(path, 'r');
    const { size, mtimeMs } = await handle.stat();
    return {
      size,
      mtimeMs,
      async read(start, end) {
        const buffer = Buffer.alloc(Math.max(0, Math.min(end, size) - start));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
        return buffer.subarray(0, bytesRead);
      },
      stream: (start, end) => handle.createReadStream({ start, end, highWaterMark: 256 * 1024 }),
      close: () => handle.close(),
    };
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Headers of every media answer, in both shells. The body is a recording, not a page: if a
 * browser is made to open it as one, it runs sandboxed (an opaque origin: no script, no access
 * to the app's storage) and nothing is sniffed from it. `no-store`: a browser keeps no copy of
 * clinical audio in its own cache (the app's audio cache is the only one, and removing an
 * account empties it).
 */
export const MEDIA_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox',
  'cache-control': 'no-store',
};

export interface MediaResponse {
  status: number;
  headers: Record<string, string>;
  /** The bytes to send; null for HEAD, 304, 404, 405, 416. */
  body: Readable | null;
}

export type ByteRange = { start: number; end: number };

/**
 * A Range header against a file of `size` bytes (RFC 9110 §14.2): one range (`a-b`, `a-`, `-n`),
 * 'unsatisfiable' (416), or undefined to send the whole file (no header, another unit, a syntax
 * error, or several ranges, which a server may ignore).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  const match = header && /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: last === '' ? size - 1 : Math.min(Number(last), size - 1) };
}

function headerOf(headers: MediaRequest['headers'], name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function')
    return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | readonly string[] | undefined>)[name];
  return typeof value === 'string' ? value : value?.[0];
}

/** A strong validator from size and modification time (the file is replaced, never edited). */
const etagOf = (size: number, mtimeMs: number) =>
  `"${size.toString(16)}-${Math.floor(mtimeMs).toString(16)}"`;

/** If-Range holds (RFC 9110 §13.1.5): an identical strong ETag, or exactly the Last-Modified date. */
function ifRangeHolds(ifRange: string | undefined, etag: string, lastModified: string): boolean {
  if (ifRange === undefined) return true;
  const value = ifRange.trim();
  return value.startsWith('"') ? value === etag : value === lastModified;
}

const noneMatch = (header: string | undefined, etag: string) =>
  header !== undefined &&
  (header.trim() === '*' ||
    header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag));

/**
 * The answer to a GET or HEAD for `file`: 200 with the whole file, 206 with one range, 416 when
 * the range starts past the end, 304 for a matching If-None-Match, 404 when the file is missing,
 * 405 for any other method. The body streams from one open file descriptor, so a file replaced
 * meanwhile is never mixed with its successor. The caller sends it (sendMedia, mediaFetchResponse).
 */
export async function serveMedia(request: MediaRequest, file: MediaFile): Promise<MediaResponse> {
  const method = (request.method ?? 'GET').toUpperCase();
  const base = MEDIA_HEADERS;
  if (method !== 'GET' && method !== 'HEAD') {
    return { status: 405, headers: { ...base, allow: 'GET, HEAD' }, body: null };
  }
  const reader = await openReader(file);
  if (!reader) return { status: 404, headers: { ...base }, body: null };
  try {
    const { size } = reader;
    const etag = etagOf(size, reader.mtimeMs);
    const lastModified = new Date(reader.mtimeMs).toUTCString();
    const headers: Record<string, string> = {
      ...base,
      'accept-ranges': 'bytes',
      'content-type': audioTypeOf(await reader.read(0, SNIFF_BYTES)),
      etag,
      'last-modified': lastModified,
    };
    const rangeHeader = headerOf(request.headers, 'range');
    if (rangeHeader === undefined && noneMatch(headerOf(request.headers, 'if-none-match'), etag)) {
      await reader.close();
      return { status: 304, headers, body: null };
    }
    const range = ifRangeHolds(headerOf(request.headers, 'if-range'), etag, lastModified)
      ? parseRange(rangeHeader, size)
      : undefined;
    if (range === 'unsatisfiable') {
      await reader.close();
      return {
        status: 416,
        headers: { ...headers, 'content-range': `bytes */${size}`, 'content-length': '0' },
        body: null,
      };
    }
    const { start, end } = range ?? { start: 0, end: size - 1 };
    headers['content-length'] = String(Math.max(0, end - start + 1));
    if (range) headers['content-range'] = `bytes ${start}-${end}/${size}`;
    const status = range ? 206 : 200;
    if (method === 'HEAD' || size === 0) {
      await reader.close();
      return { status, headers, body: null };
    }
    // The stream owns the descriptor from here and closes it when it ends or is destroyed.
    return { status, headers, body: reader.stream(start, end) };
  } catch (error) {
    await reader.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The answer to a GET or HEAD for a recording streaming into the cache (audio-stream.ts): the
 * range asked for, its bytes sent as they are on disk and as they arrive. When the service
 * cannot be reached, what is on disk from the start of the range is sent (206, the player asks
 * again for the rest), and a range whose first byte is not here waits — asking the service again
 * every few seconds — until it comes or the player gives the request up: the player plays what
 * it has, then waits at the end of it (the app says the rest needs the service), and goes on by
 * itself when the service is back. A failed request would stop the media element at once, with
 * minutes of the recording still in its buffer. 503 only when nothing of the file was ever
 * fetched. No validators: the partial file becomes another file (the whole one) once complete.
 */
export async function serveStreamingMedia(
  request: MediaRequest,
  stream: AudioStream,
): Promise<MediaResponse> {
  const method = (request.method ?? 'GET').toUpperCase();
  const base = MEDIA_HEADERS;
  if (method !== 'GET' && method !== 'HEAD') {
    return { status: 405, headers: { ...base, allow: 'GET, HEAD' }, body: null };
  }
  const unavailable: MediaResponse = {
    status: 503,
    headers: { ...base, 'retry-after': '5', 'content-length': '0' },
    body: null,
  };
  let facts;
  try {
    // Its first bytes say what it is (audio.prepare fetched them before handing out the address).
    facts = await stream.ready(SNIFF_BYTES);
  } catch (error) {
    // The service has no such recording: that is not a wait-and-retry.
    if ((error as { kind?: unknown } | null)?.kind === 'not_found')
      return { status: 404, headers: { ...base, 'content-length': '0' }, body: null };
    return unavailable;
  }
  const size = facts.total;
  const headers: Record<string, string> = {
    ...base,
    'accept-ranges': 'bytes',
    'content-type': audioTypeOf(await stream.head(SNIFF_BYTES)),
  };
  const asked = parseRange(headerOf(request.headers, 'range'), size);
  if (asked === 'unsatisfiable') {
    return {
      status: 416,
      headers: { ...headers, 'content-range': `bytes */${size}`, 'content-length': '0' },
      body: null,
    };
  }
  const { start, end } = asked ?? { start: 0, end: size - 1 };
  if (size > 0 && stream.presentUntil(start) === start) {
    try {
      await stream.untilPresent(start, request.signal);
    } catch {
      return unavailable;
    }
  }
  // Filling stopped (offline): only what is here now, from the start of the range.
  const last = stream.error ? Math.min(end, stream.presentUntil(start) - 1) : end;
  if (!asked && last < end) return unavailable;
  headers['content-length'] = String(Math.max(0, last - start + 1));
  if (asked) headers['content-range'] = `bytes ${start}-${last}/${size}`;
  return {
    status: asked ? 206 : 200,
    headers,
    body: method === 'HEAD' || size === 0 ? null : stream.body(start, last),
  };
}

/** Writes a MediaResponse to a Node HTTP response (the browser shell's route). */
export async function sendMedia(response: ServerResponse, media: MediaResponse): Promise<void> {
  response.writeHead(media.status, media.headers);
  if (!media.body) {
    response.end();
    return;
  }
  try {
    await pipeline(media.body, response);
  } catch {
    // The player went away mid-file (a seek aborts the request): nothing to report.
    media.body.destroy();
  }
}

/** A MediaResponse as a Fetch Response (the Electron custom protocol's handler returns it). */
export function toFetchResponse(media: MediaResponse): Response {
  const body = media.body ? (Readable.toWeb(media.body) as ReadableStream<Uint8Array>) : null;
  return new Response(body, { status: media.status, headers: media.headers });
}

/** serveMedia for a Fetch Request (protocol.handle): Range answered here, not by net.fetch. */
export async function mediaFetchResponse(request: Request, file: MediaFile): Promise<Response> {
  return toFetchResponse(
    await serveMedia({ method: request.method, headers: request.headers }, file),
  );
}

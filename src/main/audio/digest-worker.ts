// The audio digest thread: SHA-256 and waveform peaks of downloads, read from their partial files
// just behind the writes (digest.ts is the main side and says why).
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import { ChunkCipher } from '../at-rest/sealed-file';
import type { DigestReply, DigestRequest } from './digest';
import { WavPeakStream } from './peaks';

const port = parentPort;
if (!port) throw new Error('src/main/audio/digest-worker.ts runs as a worker thread.');

interface Stream {
  path: string;
  /** A sealed file's chunks, opened as they are read; undefined for a file in the clear. */
  cipher: ChunkCipher | undefined;
  hash: Hash | undefined;
  peaks: WavPeakStream | undefined;
  handle: FileHandle | undefined;
  /** Bytes digested. */
  done: number;
  /** A read that failed: reported by finish, and nothing read after it. */
  error: unknown;
}

const streams = new Map<number, Stream>();
const READ_BYTES = 1024 * 1024;
const buffer = Buffer.allocUnsafe(READ_BYTES);

/** Reads and digests the file from where the stream is up to `length`. */
async function digestUpTo(stream: Stream, length: number): Promise<void> {
  stream.handle ??= await open(stream.path, 'r');
  while (stream.done < length) {
    const want = Math.min(READ_BYTES, length - stream.done);
    let bytes: Buffer;
    if (stream.cipher) {
      bytes = await stream.cipher.readPlain(stream.handle, stream.done, stream.done + want);
    } else {
      const { bytesRead } = await stream.handle.read(buffer, 0, want, stream.done);
      bytes = buffer.subarray(0, bytesRead);
    }
    if (bytes.length === 0)
      throw new Error(`${stream.path} ended at ${stream.done} of ${length} bytes`);
    const bytesRead = bytes.length;
    stream.hash?.update(bytes);
    stream.peaks?.push(bytes);
    stream.done += bytesRead;
  }
}

/** Reports a read that failed; true when there was one. */
function reportedError(id: number, stream: Stream, op: DigestReply['op']): boolean {
  if (stream.error === undefined) return false;
  const { error } = stream;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  port!.postMessage({
    stream: id,
    op,
    ok: false,
    error: { message, ...(typeof code === 'string' ? { code } : {}) },
  } satisfies DigestReply);
  return true;
}

function peek(id: number, stream: Stream): void {
  if (reportedError(id, stream, 'peek')) return;
  const snapshot = stream.peaks?.snapshot() ?? null;
  const reply: DigestReply = {
    stream: id,
    op: 'peek',
    ok: true,
    result: {
      bytes: stream.done,
      sha256: null,
      peaks: snapshot?.peaks ?? null,
      totalFrames: snapshot?.totalFrames ?? null,
      ...(stream.peaks?.unsupported ? { unsupported: stream.peaks.unsupported } : {}),
    },
  };
  const peaks = snapshot?.peaks;
  port!.postMessage(
    reply,
    peaks ? [peaks.min.buffer as ArrayBuffer, peaks.max.buffer as ArrayBuffer] : [],
  );
}

function finish(id: number, stream: Stream): void {
  if (reportedError(id, stream, 'finish')) return;
  const peaks = stream.peaks?.finish() ?? null;
  const reply: DigestReply = {
    stream: id,
    op: 'finish',
    ok: true,
    result: {
      bytes: stream.done,
      sha256: stream.hash?.digest('hex') ?? null,
      peaks,
      ...(stream.peaks?.unsupported ? { unsupported: stream.peaks.unsupported } : {}),
    },
  };
  const transfer = peaks ? [peaks.min.buffer as ArrayBuffer, peaks.max.buffer as ArrayBuffer] : [];
  port!.postMessage(reply, transfer);
}

async function handle(request: DigestRequest): Promise<void> {
  const id = request.stream;
  if (request.op === 'open') {
    streams.set(id, {
      path: request.path,
      cipher: request.sealed ? ChunkCipher.fromKey(request.sealed) : undefined,
      hash: request.sha256 ? createHash('sha256') : undefined,
      peaks: request.peaks ? new WavPeakStream() : undefined,
      handle: undefined,
      done: 0,
      error: undefined,
    });
    return;
  }
  const stream = streams.get(id);
  if (!stream) return;
  if (request.op === 'peek') {
    peek(id, stream);
    return;
  }
  if (request.op === 'upTo') {
    if (stream.error !== undefined) return;
    try {
      await digestUpTo(stream, request.length);
    } catch (error) {
      stream.error = error;
    }
    return;
  }
  streams.delete(id);
  await stream.handle?.close().catch(() => undefined);
  if (request.op === 'finish') finish(id, stream);
}

// One message at a time, in order: each read continues where the one before it ended.
let queue = Promise.resolve();
port.on('message', (request: DigestRequest) => {
  queue = queue.then(() => handle(request));
});

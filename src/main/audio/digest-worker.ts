// The audio digest thread: SHA-256 and waveform peaks of downloads, read from their partial files
// just behind the writes (digest.ts is the main side and says why).
import { createHash, type Hash } from 'node:crypto';
import { open, type FileHandle } from 'node:fs/promises';
import { parentPort } from 'node:worker_threads';
import type { DigestReply, DigestRequest } from './digest';
import { WavPeakStream } from './peaks';

const port = parentPort;
if (!port) throw new Error('src/main/audio/digest-worker.ts runs as a worker thread.');

interface Stream {
  path: string;
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
    const { bytesRead } = await stream.handle.read(buffer, 0, want, stream.done);
    if (bytesRead === 0)
      throw new Error(`${stream.path} ended at ${stream.done} of ${length} bytes`);
    const bytes = buffer.subarray(0, bytesRead);
    stream.hash?.update(bytes);
    stream.peaks?.push(bytes);
    stream.done += bytesRead;
  }
}

function finish(id: number, stream: Stream): void {
  if (stream.error !== undefined) {
    const { error } = stream;
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    port!.postMessage({
      stream: id,
      ok: false,
      error: { message, ...(typeof code === 'string' ? { code } : {}) },
    } satisfies DigestReply);
    return;
  }
  const peaks = stream.peaks?.finish() ?? null;
  const reply: DigestReply = {
    stream: id,
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

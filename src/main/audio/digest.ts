import { Worker } from 'node:worker_threads';
import type { ChunkKey } from '../at-rest/sealed-file';
import { workerStart } from '../base/worker-entry';
import type { Peaks } from './peaks';

/**
 * The SHA-256 and the waveform peaks of a download, computed in a worker thread that reads the
 * partial file just behind the writes (from the page cache). On the main thread they took about
 * 60 ms (SHA-256) and 100–170 ms (peaks, before the SIMD kernel) of CPU per 90-minute WAV, on
 * the event loop that also reads the socket: a download ran at a quarter of curl's speed on
 * loopback.
 *
 * Reading the file back, rather than handing the thread the bytes, costs the main thread one
 * small message per megabyte written and nothing else. Measured against the alternatives:
 * shared memory made each copy into the write buffers ten times slower (V8 copies into a
 * SharedArrayBuffer an element at a time), and moving buffers to the thread and back made the
 * main process collect garbage for 90 ms and more per download (each megabyte arriving back
 * counts as new external memory). One thread serves every download of the process; it starts on
 * first use and does not keep the process alive.
 */

export type DigestRequest =
  | {
      op: 'open';
      stream: number;
      path: string;
      sha256: boolean;
      peaks: boolean;
      /** A sealed file's key and header (its own, never the account's key): read and opened. */
      sealed: ChunkKey | null;
    }
  /** The file's first `length` bytes are written: digest up to there. */
  | { op: 'upTo'; stream: number; length: number }
  | { op: 'finish'; stream: number }
  /** The peaks read so far, the stream going on. */
  | { op: 'peek'; stream: number }
  | { op: 'close'; stream: number };

export type DigestReply = { stream: number; op: 'finish' | 'peek' } & (
  { ok: true; result: DigestResult } | { ok: false; error: { message: string; code?: string } }
);

export interface DigestResult {
  /** Bytes digested. */
  bytes: number;
  /** Hex; null when not asked for. */
  sha256: string | null;
  /** Null when not asked for, or not a WAV the peaks could be read from (see `unsupported`). */
  peaks: Peaks | null;
  unsupported?: string;
  /** Peek only: the frames of the whole file, from its WAV header (null when unknown). */
  totalFrames?: number | null;
}

type Waiter = { resolve: (result: DigestResult) => void; reject: (error: Error) => void };
/** An open stream: the finish it may be waiting for, and its peeks (answered in order). */
type OpenStream = { finish: Waiter | null; peeks: Waiter[] };

class DigestThread {
  private readonly worker: Worker;
  private readonly streams = new Map<number, OpenStream>();
  private nextStream = 1;
  failure: Error | undefined;

  constructor() {
    const { script, execArgv } = workerStart(
      new URL('./digest-worker.ts', import.meta.url),
      'audio-worker',
    );
    this.worker = new Worker(script, { execArgv });
    this.worker.on('message', (reply: DigestReply) => {
      const open = this.streams.get(reply.stream);
      const waiter = reply.op === 'peek' ? open?.peeks.shift() : open?.finish;
      if (!waiter) return;
      if (reply.op === 'finish') this.forget(reply.stream);
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(Object.assign(new Error(reply.error.message), { code: reply.error.code }));
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const open of this.streams.values()) {
        for (const waiter of [open.finish, ...open.peeks]) waiter?.reject(this.failure);
      }
      this.streams.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) =>
      fail(new Error(`The audio digest thread stopped (exit code ${code}).`)),
    );
    // After the listeners: a 'message' listener added to an unref'd worker refs its port again,
    // and an idle thread then kept the process from exiting.
    this.worker.unref();
  }

  open(path: string, what: DigestWanted): number {
    const stream = this.nextStream++;
    // Held while a stream is open: its finish is what a download waits for.
    if (this.streams.size === 0) this.worker.ref();
    this.streams.set(stream, { finish: null, peeks: [] });
    this.post({ op: 'open', stream, path, ...what });
    return stream;
  }

  upTo(stream: number, length: number): void {
    if (this.streams.has(stream)) this.post({ op: 'upTo', stream, length });
  }

  finish(stream: number): Promise<DigestResult> {
    if (this.failure) return Promise.reject(this.failure);
    const open = this.streams.get(stream);
    if (!open || open.finish) {
      return Promise.reject(new Error(`digest stream ${stream} is closed or finishing`));
    }
    return new Promise((resolve, reject) => {
      open.finish = { resolve, reject };
      this.post({ op: 'finish', stream });
    });
  }

  peek(stream: number): Promise<DigestResult> {
    if (this.failure) return Promise.reject(this.failure);
    const open = this.streams.get(stream);
    if (!open || open.finish) {
      return Promise.reject(new Error(`digest stream ${stream} is closed or finishing`));
    }
    return new Promise((resolve, reject) => {
      open.peeks.push({ resolve, reject });
      this.post({ op: 'peek', stream });
    });
  }

  close(stream: number): void {
    const open = this.streams.get(stream);
    if (!open) return;
    const closed = new Error(`digest stream ${stream} was closed`);
    for (const waiter of [open.finish, ...open.peeks]) waiter?.reject(closed);
    this.forget(stream);
    this.post({ op: 'close', stream });
  }

  private forget(stream: number): void {
    this.streams.delete(stream);
    if (this.streams.size === 0) this.worker.unref();
  }

  private post(request: DigestRequest): void {
    if (!this.failure) this.worker.postMessage(request);
  }
}

let shared: DigestThread | undefined;
const thread = () => {
  if (!shared || shared.failure) shared = new DigestThread();
  return shared;
};

/**
 * Starts the digest thread now, if it is not running, so that its code has loaded before a
 * recording is played: the first waveform of a download waits for the thread, and a thread
 * started then held the first play of the day back by a second and more (issue 31). An account's
 * scope starts it when it opens (account-scope.ts).
 */
export function startDigestThread(): void {
  thread();
}

/** What a stream's digest computes, and how its file is read. */
interface DigestWanted {
  sha256: boolean;
  peaks: boolean;
  /** The sealed file's chunk key; null for a file in the clear. */
  sealed: ChunkKey | null;
}

/** One download's digest, read from its partial file as the file grows. */
export class StreamDigest {
  private readonly thread = thread();
  private readonly stream: number;

  constructor(path: string, what: DigestWanted) {
    this.stream = this.thread.open(path, what);
  }

  /**
   * The file's first `length` bytes are on it (written, or kept from an earlier attempt); for a
   * sealed file, a whole number of chunks, or all of it.
   */
  upTo(length: number): void {
    this.thread.upTo(this.stream, length);
  }

  /**
   * The hash and the peaks of the file up to the last `upTo`; the stream is closed. Rejects if
   * the file could not be read back (with the file system's error code).
   */
  finish(): Promise<DigestResult> {
    return this.thread.finish(this.stream);
  }

  /**
   * The peaks of the bytes read so far, with the whole file's frames from its header, while the
   * stream goes on (a waveform drawn as the file arrives). `peaks` is null before the header.
   */
  peek(): Promise<DigestResult> {
    return this.thread.peek(this.stream);
  }

  /** Drops the stream (a restart, a failure). */
  close(): void {
    this.thread.close(this.stream);
  }
}

import type { FileHandle } from 'node:fs/promises';
import { open, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Label } from '../../shared/api';
import { ApiError } from '../api/errors';
import type { LabelAudio, LabelsApi } from '../api/labels';
import { AudioError, fileErrorOf, isAudioError } from './errors';
import { fsyncFolder, removeQuietly, writeFileAtomic } from '../fs/atomic-write';
import { chooseName, publish, type OnExists } from './files';
import { extensionFor, idForFileName, labelFileStem, mediaTypeOf, safeFileName } from './names';
import { StreamDigest, type DigestResult } from './digest';
import { decodedPeaks, encodePeaks, type Peaks } from './peaks';

/** What a download needs of the API client. */
export type AudioSource = Pick<LabelsApi, 'audio' | 'get'>;

export interface DownloadProgress {
  labelId: string;
  bytesDone: number;
  /** Null until the service has said how long the file is. */
  bytesTotal: number | null;
}

export interface DownloadOptions {
  /** Where the file goes; it must exist. The temporary file is written here too. */
  folder: string;
  /** When the final name is taken: 'ask' (the default) rejects with file_exists. */
  onExists?: OnExists;
  /** The file's stem instead of the service's suggestion (the audio cache names files by label id). */
  name?: string;
  /** The label, if the caller has it: names the file when the service suggests no name. */
  label?: Pick<Label, 'patient' | 'fromTime' | 'type'>;
  /** Extensions that must be free beside the file too (an export's transcript: ['txt']). */
  companions?: readonly string[];
  /** Compute peaks while the file streams and store them as `<file>.peaks` before it is published. */
  peaks?: boolean;
  /** Compute the SHA-256 while the file streams (default true; the audio cache has no use for it). */
  sha256?: boolean;
  /** An ffmpeg binary for the peaks of audio other than WAV (MP4); none by default. */
  ffmpeg?: string | null;
  onProgress?: (progress: DownloadProgress) => void;
  /** Progress at most this often (the last one always comes). Default 100 ms. */
  progressIntervalMs?: number;
  /** Stops the download and keeps the partial file for a later resume (rejects with cancelled). */
  signal?: AbortSignal;
  /** Bytes between flushes of the partial file to disk (each is a resume point). Default 8 MiB. */
  checkpointBytes?: number;
  /** Interruptions in a row without a new byte before giving up. Default 5. */
  maxStalls?: number;
  /** Interruptions in all, even with progress between them, before giving up. Default 100. */
  maxInterruptions?: number;
  /** The first wait after an interruption; it doubles each time, up to 5 s. Default 250 ms. */
  retryDelayMs?: number;
}

export interface DownloadResult {
  labelId: string;
  /** The final file: whole, flushed, with its final name. */
  path: string;
  name: string;
  bytes: number;
  contentType: string;
  etag: string | null;
  /** SHA-256 (hex) of the whole file, computed while it streamed (and over resumed bytes); null when not asked for. */
  sha256: string | null;
  /** `<path>.peaks`, written before the audio got its name; null when there are none. */
  peaksPath: string | null;
  /** Why there are no peaks, when `peaks` was asked for. */
  peaksUnavailable?: string;
  /** Bytes taken from an earlier, interrupted download (a partial file found on disk). */
  resumedFrom: number;
  /** Each request made: the offset asked for, and the status. */
  requests: { offset: number; status: number }[];
  /** performance.now() when the last byte arrived, the peaks were stored, the file was published. */
  timings: { lastByteAt: number; peaksAt: number | null; doneAt: number };
}

/** What is remembered beside the partial file, to resume it (after a crash too). */
interface PartialState {
  version: 1;
  labelId: string;
  /** The strong ETag of the bytes on disk: sent as If-Range, so a changed file restarts. */
  etag: string | null;
  total: number | null;
  contentType: string;
  /** The service's suggested name (Content-Disposition). */
  suggested: string | null;
  /** Bytes known to be on disk (flushed): where a resume starts. */
  durableBytes: number;
}

/** WAV peaks are built as the bytes stream; other audio needs a decoder (ffmpeg). */
const isWav = (state: PartialState) => extensionFor(state.contentType) === 'wav';

const DEFAULT_CHECKPOINT = 8 * 1024 * 1024;
const WRITE_BATCH = 1024 * 1024;
/** Write buffers per download: one filling while the others are on their way to the disk. */
const RING = 3;

/** The hidden temporary file of a label's download in a folder: never the final name. */
export const partialPathOf = (folder: string, labelId: string) =>
  join(resolve(folder), `.${idForFileName(labelId)}.earmark-partial`);
const statePathOf = (partial: string) => `${partial}.json`;
export const peaksPathOf = (audioPath: string) => `${audioPath}.peaks`;

/** Removes a label's partial download from a folder (an export that will not resume it). */
export async function discardPartial(folder: string, labelId: string): Promise<void> {
  const partial = partialPathOf(folder, labelId);
  await removeQuietly(partial);
  await removeQuietly(statePathOf(partial));
}

async function readState(path: string, labelId: string): Promise<PartialState | null> {
  try {
    const state = JSON.parse(await readFile(path, 'utf8')) as PartialState;
    const ok =
      state.version === 1 &&
      state.labelId === labelId &&
      Number.isSafeInteger(state.durableBytes) &&
      state.durableBytes >= 0;
    return ok ? state : null;
  } catch {
    return null;
  }
}

/** "bytes 100-199/1000" → its parts; total null for "/*". */
function parseContentRange(value: string | null) {
  const match = /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(value?.trim() ?? '');
  if (!match) return undefined;
  return {
    start: Number(match[1]),
    end: Number(match[2]),
    total: match[3] === '*' ? null : Number(match[3]),
  };
}

/** A strong ETag can guard a resume (If-Range); a weak one cannot (RFC 9110 §13.1.5). */
const strongEtag = (etag: string | null) => (etag && !etag.startsWith('W/') ? etag : null);

// One download of a given partial file at a time in this process.
const locks = new Map<string, Promise<unknown>>();
async function exclusively<T>(key: string, run: () => Promise<T>): Promise<T> {
  const before = locks.get(key) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(run);
  locks.set(key, mine);
  try {
    return await mine;
  } finally {
    if (locks.get(key) === mine) locks.delete(key);
  }
}

/** A body that stopped early: resume from what is on disk. */
class Interrupted extends Error {}
/** The bytes on disk cannot be continued (another file, another offset): start over. */
class Restart extends Error {}

/**
 * Downloads a label's audio into `options.folder`, safely:
 * - streamed into a hidden temporary file in that folder (`.<labelId>.earmark-partial`), flushed
 *   to disk, then renamed: a file with the final name is always whole;
 * - resumed with Range + If-Range (the ETag remembered beside the partial file) after a dropped
 *   connection, a cancellation or a crash of the process; a changed file starts over;
 * - its length checked against Content-Length / Content-Range before the rename;
 * - named from Content-Disposition made safe (names.ts), the extension from Content-Type;
 * - never over an existing file unless `onExists` says so;
 * - with SHA-256 and (optionally) waveform peaks computed on the way, in bounded memory.
 */
export function downloadLabelAudio(
  source: AudioSource,
  labelId: string,
  options: DownloadOptions,
): Promise<DownloadResult> {
  const partial = partialPathOf(options.folder, labelId);
  return exclusively(partial, () => new Download(source, labelId, options, partial).run());
}

class Download {
  private readonly folder: string;
  private readonly statePath: string;
  private readonly signal: AbortSignal | undefined;
  private readonly checkpointBytes: number;
  private handle: FileHandle | undefined;
  private state: PartialState | null = null;
  private offset = 0;
  private durable = 0;
  /**
   * The bytes are copied into a few reused buffers rather than keeping the HTTP client's chunks
   * until they are written: those die young, which spares the main process long garbage
   * collections (its event loop is the app's).
   */
  private readonly ring: Buffer[] = [];
  private slot = 0;
  /** Bytes in ring[slot] not yet handed to the disk. */
  private filled = 0;
  /** Bytes handed to the disk (written or on their way). */
  private queued = 0;
  private readonly slotWrites: Promise<void>[] = [];
  /** Every write, in order. */
  private writes: Promise<void> = Promise.resolve();
  /** A flush to disk running beside the stream (checkpoints never stall the network). */
  private background: Promise<void> | undefined;
  private backgroundError: unknown;
  /** Bumped by restart(): a background checkpoint of the old bytes must not record them. */
  private generation = 0;
  /** SHA-256 and peaks, in the digest thread; undefined when neither is wanted. */
  private digest: StreamDigest | undefined;
  private resumedFrom = 0;
  private readonly requests: DownloadResult['requests'] = [];
  private lastProgressAt = Number.NEGATIVE_INFINITY;
  private lastByteAt = 0;
  private name: string | undefined;

  constructor(
    private readonly source: AudioSource,
    private readonly labelId: string,
    private readonly options: DownloadOptions,
    private readonly partial: string,
  ) {
    this.folder = resolve(options.folder);
    this.statePath = statePathOf(partial);
    this.signal = options.signal;
    this.checkpointBytes = Math.max(WRITE_BATCH, options.checkpointBytes ?? DEFAULT_CHECKPOINT);
  }

  private cancelled(cause?: unknown): AudioError {
    return new AudioError('cancelled', { path: this.partial, cause });
  }

  async run(): Promise<DownloadResult> {
    if (this.signal?.aborted) throw this.cancelled(this.signal.reason);
    try {
      await this.resumeFromDisk();
      await this.transfer();
      return await this.finish();
    } catch (error) {
      throw await this.failed(error);
    } finally {
      await this.settle();
      this.digest?.close();
      await this.handle?.close().catch(() => undefined);
    }
  }

  /** Picks up a partial file left by an earlier attempt, if its state says how far it is good. */
  private async resumeFromDisk(): Promise<void> {
    this.state = await readState(this.statePath, this.labelId);
    let size = 0;
    try {
      const info = await stat(this.partial);
      size = info.size;
      // A second link is the published file: a crash came between link and unlink (files.ts).
      if (info.nlink > 1) this.state = null;
    } catch {
      this.state = null;
    }
    if (!this.state || !strongEtag(this.state.etag)) {
      // Nothing to resume (or nothing that could be resumed safely): start clean.
      this.state = null;
      await discardPartial(this.folder, this.labelId);
      return;
    }
    // After a crash the bytes past the last flush may be missing or garbage: resume from there.
    const good = Math.min(
      size,
      this.state.durableBytes,
      this.state.total ?? Number.MAX_SAFE_INTEGER,
    );
    this.handle = await open(this.partial, 'r+');
    await this.handle.truncate(good);
    this.startDigest();
    this.digest?.upTo(good);
    this.offset = this.durable = this.resumedFrom = this.queued = good;
  }

  /** A new digest from the first byte: the SHA-256, and the peaks of a WAV, as asked. */
  private startDigest(): void {
    this.digest?.close();
    const sha256 = this.options.sha256 !== false;
    const peaks = Boolean(this.options.peaks && this.state && isWav(this.state));
    this.digest = sha256 || peaks ? new StreamDigest(this.partial, { sha256, peaks }) : undefined;
  }

  /** Requests and streams until the whole file is on disk, resuming after interruptions. */
  private async transfer(): Promise<void> {
    const maxStalls = this.options.maxStalls ?? 5;
    const maxInterruptions = this.options.maxInterruptions ?? 100;
    let stalls = 0;
    let interruptions = 0;
    // A crash after the last byte and before the rename: nothing left to fetch.
    if (this.offset > 0 && this.offset === this.state?.total) {
      await this.nameFromState();
      return;
    }
    for (;;) {
      if (this.signal?.aborted) throw this.cancelled(this.signal.reason);
      const before = this.offset;
      try {
        if (await this.attempt()) return;
        // The body ended short of the announced length: an interruption like any other.
        throw new Interrupted(`the body ended at ${this.offset} of ${this.state?.total} bytes`);
      } catch (error) {
        if (this.signal?.aborted) throw this.cancelled(error);
        if (error instanceof Restart) await this.restart();
        else if (!(error instanceof Interrupted) && !isTransient(error)) throw error;
        // Never reached in this run, though the client retried: offline, say so now. Waiting
        // out the stalls is for a service that answered and then broke off.
        else if (isUnreachable(error) && !this.requests.some((request) => request.status > 0))
          throw error;
        stalls = this.offset > before ? 0 : stalls + 1;
        if (stalls > maxStalls || ++interruptions > maxInterruptions) {
          if (error instanceof Restart || error instanceof Interrupted) {
            throw new AudioError('length_mismatch', { detail: error.message, path: this.partial });
          }
          throw error;
        }
        const wait = Math.min(
          5000,
          (this.options.retryDelayMs ?? 250) * 2 ** Math.max(0, stalls - 1),
        );
        try {
          await delay(wait, undefined, { signal: this.signal });
        } catch (abort) {
          throw this.cancelled(abort);
        }
      }
    }
  }

  /** Throws away the bytes on disk: the next request asks for the whole file. */
  private async restart(): Promise<void> {
    this.generation++;
    this.filled = 0;
    await this.settle();
    this.offset = this.durable = this.queued = 0;
    await this.handle?.truncate(0);
    if (this.state) this.state = { ...this.state, etag: null, durableBytes: 0 };
    this.startDigest();
  }

  /** One request. True when the whole file is on disk. */
  private async attempt(): Promise<boolean> {
    const resuming = this.offset > 0 && this.state?.etag;
    let audio: LabelAudio;
    try {
      audio = await this.source.audio(this.labelId, {
        signal: this.signal,
        ...(resuming ? { range: { start: this.offset }, ifRange: this.state!.etag! } : {}),
      });
    } catch (error) {
      return this.refused(error);
    }
    this.requests.push({ offset: resuming ? this.offset : 0, status: audio.status });
    try {
      await this.accept(audio);
    } catch (error) {
      audio.body.destroy();
      throw error;
    }
    return this.stream(audio);
  }

  /** A request that got no body: the end of the file, no audio, or a real failure. */
  private async refused(error: unknown): Promise<boolean> {
    if (!(error instanceof ApiError)) throw error;
    this.requests.push({ offset: this.offset, status: error.status ?? 0 });
    if (error.kind === 'cancelled') throw this.cancelled(error);
    if (error.status === 416) {
      // Nothing past our offset: the file is whole if its length is what was announced.
      if (this.state?.total === this.offset && this.offset > 0) {
        await this.nameFromState();
        return true;
      }
      throw new Restart(`416 at offset ${this.offset}`);
    }
    if (error.kind === 'not_found') {
      // The label exists but its audio does not: the service's no_audio.
      const label = await this.source.get(this.labelId, { signal: this.signal }).catch(() => null);
      if (label) throw new AudioError('no_audio', { detail: error.detail, cause: error });
    }
    throw error;
  }

  /** Checks a response before a byte of it is written; names the file on the first one. */
  private async accept(audio: LabelAudio): Promise<void> {
    const extension = extensionFor(audio.contentType);
    if (!extension) {
      throw new AudioError('not_audio', {
        detail: `Content-Type ${mediaTypeOf(audio.contentType)}`,
      });
    }
    let total = audio.contentLength;
    if (audio.status === 206) {
      const range = parseContentRange(audio.contentRange);
      if (!range || range.start !== this.offset) {
        throw new Restart(`asked for bytes from ${this.offset}, got ${audio.contentRange}`);
      }
      total = range.total;
      if (this.state?.total != null && total !== this.state.total) {
        throw new Restart(`the file was ${this.state.total} bytes, now ${total}`);
      }
    } else if (this.offset > 0) {
      // 200 to a Range with If-Range: the file changed (or the server ignores Range).
      await this.restart();
    }
    this.name ??= await this.pickName(audio.filename, extension);
    const etag = strongEtag(audio.etag);
    const state: PartialState = {
      version: 1,
      labelId: this.labelId,
      etag: audio.status === 206 ? (this.state?.etag ?? etag) : etag,
      total,
      contentType: audio.contentType,
      suggested: audio.filename,
      durableBytes: this.durable,
    };
    this.state = state;
    if (this.offset === 0) this.startDigest();
    await this.saveState();
    this.handle ??= await open(this.partial, 'w+', 0o644);
  }

  private async nameFromState(): Promise<void> {
    const state = this.state!;
    this.name ??= await this.pickName(state.suggested, extensionFor(state.contentType) ?? 'bin');
  }

  private async pickName(suggested: string | null, extension: string): Promise<string> {
    const onExists = this.options.onExists ?? 'ask';
    let fallback = this.options.name;
    if (!fallback && !suggested) {
      const label =
        this.options.label ??
        (await this.source.get(this.labelId, { signal: this.signal }).catch(() => undefined));
      fallback = labelFileStem(label, this.labelId);
    }
    const name = this.options.name
      ? safeFileName(this.options.name, extension, this.labelId)
      : safeFileName(suggested, extension, fallback ?? this.labelId);
    return chooseName(this.folder, name, onExists, this.options.companions);
  }

  private async saveState(): Promise<void> {
    // Atomic against a crash of this process; after a power cut a torn state only means a restart.
    await writeFileAtomic(this.statePath, JSON.stringify(this.state), { durable: false });
  }

  /** Streams the body to disk. True when the file is complete. */
  private async stream(audio: LabelAudio): Promise<boolean> {
    const total = this.state?.total ?? null;
    this.progress(total, true);
    try {
      for await (const chunk of audio.body as AsyncIterable<Buffer>) {
        if (total !== null && this.offset + chunk.length > total) {
          throw new Restart(`the body ran past the announced ${total} bytes`);
        }
        await this.append(chunk);
        this.offset += chunk.length;
        if (this.offset - this.durable >= this.checkpointBytes) this.checkpointBeside();
        if (this.backgroundError) throw fileErrorOf(this.backgroundError, this.partial);
        this.progress(total, false);
      }
    } catch (error) {
      if (error instanceof Restart || isAudioError(error)) throw error;
      // Keep every byte that arrived: a resume starts after them.
      await this.checkpoint();
      if (this.signal?.aborted) throw this.cancelled(error);
      throw new Interrupted(error instanceof Error ? error.message : String(error));
    }
    await this.flush();
    await this.drain();
    this.lastByteAt = performance.now();
    this.progress(total, true);
    return total === null || this.offset === total;
  }

  /** Copies a chunk into the write buffers, handing each full one to the disk. */
  private async append(chunk: Buffer): Promise<void> {
    for (let at = 0; at < chunk.length;) {
      const buffer = (this.ring[this.slot] ??= Buffer.allocUnsafeSlow(WRITE_BATCH));
      const copied = chunk.copy(buffer, this.filled, at);
      this.filled += copied;
      at += copied;
      if (this.filled === WRITE_BATCH) await this.flush();
    }
  }

  /**
   * Hands the filling buffer to the disk without waiting for it, then waits until the next
   * buffer's earlier write is done (memory stays bounded; receiving overlaps with writing).
   */
  private async flush(): Promise<void> {
    if (this.filled === 0) return;
    const buffer = this.ring[this.slot]!;
    const length = this.filled;
    const position = this.queued;
    const handle = this.handle!;
    this.queued += length;
    this.filled = 0;
    const written = this.writes.then(async () => {
      // A nearly full disk takes part of a write without an error; the rest then fails (ENOSPC).
      for (let done = 0; done < length;) {
        const { bytesWritten } = await handle.write(buffer, done, length - done, position + done);
        if (bytesWritten === 0)
          throw new AudioError('io_error', { detail: 'a write took no bytes' });
        done += bytesWritten;
      }
    });
    // Once the bytes are on the file, the digest thread reads them back. Marked handled here;
    // a write's error itself is thrown by drain() or the wait below.
    const digest = this.digest;
    written.then(() => digest?.upTo(position + length)).catch(() => undefined);
    this.writes = written;
    this.slotWrites[this.slot] = written;
    this.slot = (this.slot + 1) % RING;
    try {
      await this.slotWrites[this.slot];
    } catch (error) {
      throw fileErrorOf(error, this.partial);
    }
  }

  /** Waits for every batch handed to the disk; a write error becomes a typed AudioError. */
  private async drain(): Promise<void> {
    try {
      await this.writes;
    } catch (error) {
      throw fileErrorOf(error, this.partial);
    }
  }

  /** Waits for the writes and any background checkpoint, whatever their outcome. */
  private async settle(): Promise<void> {
    await this.writes.catch(() => undefined);
    await this.background?.catch(() => undefined);
  }

  /** Makes the bytes written so far durable and records them as the resume point. */
  private async makeDurable(upTo: number, generation: number): Promise<void> {
    await this.handle!.datasync();
    if (generation !== this.generation || !this.state || upTo <= this.durable) return;
    this.durable = upTo;
    this.state = { ...this.state, durableBytes: upTo };
    await this.saveState();
  }

  /** Starts a checkpoint beside the stream (one at a time); an error shows at the next chunk. */
  private checkpointBeside(): void {
    if (this.background) return;
    const upTo = this.queued;
    const generation = this.generation;
    this.background = this.writes
      .then(() => this.makeDurable(upTo, generation))
      .catch((error: unknown) => {
        this.backgroundError ??= error;
      })
      .finally(() => {
        this.background = undefined;
      });
  }

  /** Flushes everything to disk now and records it: a resume point that survives a crash. */
  private async checkpoint(): Promise<void> {
    await this.flush();
    await this.drain();
    await this.background;
    if (this.backgroundError) throw fileErrorOf(this.backgroundError, this.partial);
    if (this.offset === this.durable || !this.state) return;
    try {
      await this.makeDurable(this.offset, this.generation);
    } catch (error) {
      throw fileErrorOf(error, this.partial);
    }
  }

  private progress(total: number | null, force: boolean): void {
    if (!this.options.onProgress) return;
    const now = performance.now();
    if (!force && now - this.lastProgressAt < (this.options.progressIntervalMs ?? 100)) return;
    this.lastProgressAt = now;
    this.options.onProgress({ labelId: this.labelId, bytesDone: this.offset, bytesTotal: total });
  }

  /** The file is whole on disk: flush it, store the peaks, give it its name. */
  private async finish(): Promise<DownloadResult> {
    const state = this.state!;
    await this.drain();
    await this.background;
    if (this.backgroundError) throw fileErrorOf(this.backgroundError, this.partial);
    await this.handle!.datasync();
    await this.handle!.close();
    this.handle = undefined;
    const digest = await this.digest?.finish();
    if (digest && digest.bytes !== this.offset) {
      throw new AudioError('io_error', {
        detail: `read back ${digest.bytes} of ${this.offset} bytes`,
        path: this.partial,
      });
    }
    const { peaks, unavailable } = await this.computePeaks(state, digest);
    const onExists = this.options.onExists ?? 'ask';
    let name = this.name!;
    let peaksAt: number | null = null;
    for (let tries = 0; ; tries++) {
      const path = join(this.folder, name);
      if (peaks) {
        await writeFileAtomic(peaksPathOf(path), encodePeaks(peaks));
        peaksAt = performance.now();
      }
      try {
        await publish(this.partial, path, onExists === 'replace');
        break;
      } catch (error) {
        if (peaks) await removeQuietly(peaksPathOf(path));
        // Someone took the name since it was chosen: keep-both picks the next one.
        if (!isAudioError(error, 'file_exists') || onExists !== 'keep-both' || tries > 5)
          throw error;
        name = await chooseName(this.folder, name, onExists, this.options.companions);
      }
    }
    await fsyncFolder(this.folder);
    await removeQuietly(this.statePath);
    const path = join(this.folder, name);
    return {
      labelId: this.labelId,
      path,
      name,
      bytes: this.offset,
      contentType: state.contentType,
      etag: state.etag,
      sha256: digest?.sha256 ?? null,
      peaksPath: peaks ? peaksPathOf(path) : null,
      ...(unavailable ? { peaksUnavailable: unavailable } : {}),
      resumedFrom: this.resumedFrom,
      requests: this.requests,
      timings: {
        lastByteAt: this.lastByteAt || performance.now(),
        peaksAt,
        doneAt: performance.now(),
      },
    };
  }

  private async computePeaks(
    state: PartialState,
    digest: DigestResult | undefined,
  ): Promise<{ peaks?: Peaks; unavailable?: string }> {
    if (!this.options.peaks) return {};
    if (isWav(state)) {
      return digest?.peaks ? { peaks: digest.peaks } : { unavailable: digest?.unsupported };
    }
    if (!this.options.ffmpeg) {
      return { unavailable: `no peaks for ${mediaTypeOf(state.contentType)} without ffmpeg` };
    }
    try {
      return {
        peaks: await decodedPeaks(this.partial, this.options.ffmpeg, { signal: this.signal }),
      };
    } catch (error) {
      if (this.signal?.aborted) throw this.cancelled(error);
      return { unavailable: error instanceof Error ? error.message : String(error) };
    }
  }

  /** What a failure leaves behind: the partial file for a resume, except when it cannot help. */
  private async failed(error: unknown): Promise<unknown> {
    // File-system errors carry a code; anything else (a bug) goes up as it is.
    const code = (error as { code?: unknown } | null)?.code;
    const typed =
      error instanceof ApiError || error instanceof AudioError || typeof code !== 'string'
        ? error
        : fileErrorOf(error, this.partial);
    if (typed instanceof AudioError && typed.kind === 'disk_full') {
      // A hidden file holding the space the user needs: do not keep it.
      await this.settle();
      await this.handle?.close().catch(() => undefined);
      this.handle = undefined;
      await discardPartial(this.folder, this.labelId).catch(() => undefined);
    }
    return typed;
  }
}

const TRANSIENT: ReadonlySet<string> = new Set([
  'offline',
  'timeout',
  'server_error',
  'rate_limited',
]);
const isTransient = (error: unknown) => error instanceof ApiError && TRANSIENT.has(error.kind);
const isUnreachable = (error: unknown) => error instanceof ApiError && error.kind === 'offline';

import { Buffer } from 'node:buffer';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { ApiError } from '../service-client/errors';
import { classify, isTransient } from '../service-client/failures';
import type { LabelAudio, LabelsApi } from '../service-client/labels';
import type { ByteSpan } from './byte-ranges';
import { StreamDigest } from './digest';
import { AudioError, fileErrorOf, isAudioError } from './errors';
import type { FillScheduler } from './fill-scheduler';
import { extensionFor, mediaTypeOf } from './names';
import type { PartialFile, RemoteFacts } from './partial-file';
import { validatorOf } from './partial-file';
import { partialWaveformData, waveformData, type Peaks, type WaveformData } from './peaks';

/**
 * The app's one download engine: a label's audio on its way from the service into a partial
 * file (partial-file.ts), resumable, crash-safe, in bounded memory. The player's audio cache
 * streams through it while the recording plays; an export downloads through it into the user's
 * folder (export/export-audio.ts), with the SHA-256 of the file for its manifest.
 *
 * Whoever reads (a player) reads whatever is on disk at once and waits only for the bytes it
 * needs; one request to the service at a time fills the file, always at the bytes wanted most —
 * from where the player reads (or last sought), then the rest — so seeking to minute 60 of an
 * uncached recording fetches minute 60 at once instead of waiting for everything before it.
 * Bytes are written where they belong in the sparse partial file, which gets its final name
 * (`publish`) only once whole.
 */

/** How long a player's request waits for a service that cannot be reached before asking again. */
const UNREACHABLE_RETRY_MS = 5_000;

/** What the engine needs of the API client. */
export type AudioSource = Pick<LabelsApi, 'audio' | 'get'>;

/** What the digest thread read back from the whole file, for its publisher. */
interface WholeFileDigest {
  /** Hex, when asked for (`digest.sha256`). */
  sha256: string | null;
  /** A WAV's waveform peaks, when asked for (`digest.peaks`); null for other audio. */
  peaks: Peaks | null;
}

export interface StreamProgress {
  labelId: string;
  /** Bytes on disk. */
  bytesDone: number;
  bytesTotal: number | null;
  /** Which byte ranges are on disk: what the player shows as buffered. */
  ranges: ByteSpan[];
}

export interface AudioStreamOptions {
  labelId: string;
  file: PartialFile;
  /** The service to fill from; asked for each request (the account's client may change). */
  source: () => Promise<AudioSource>;
  /**
   * What the digest thread computes as the bytes arrive, read back from the file: the SHA-256
   * (an export's manifest) and a WAV's peaks (the player's waveform).
   */
  digest: { sha256: boolean; peaks: boolean };
  /**
   * Awaited whenever the stream takes the service's description of the file (its length and
   * type), before a byte of it is written: its error stops the filling (an export whose file
   * name is taken says so before downloading).
   */
  check?: (facts: RemoteFacts) => Promise<void>;
  /** Gives the whole file its final name (the cached file, an exported one). */
  publish: (file: PartialFile, digest: WholeFileDigest) => Promise<void>;
  /** Whose turn it is to fill (the player's: one recording at a time); always its turn without. */
  scheduler?: FillScheduler<AudioStream>;
  /** Flush the partial file after this many bytes (default 8 MiB): a crash loses at most that. */
  checkpointBytes?: number;
  /** First wait after an interruption (doubling, at most 5 s). Default 250 ms. */
  retryDelayMs?: number;
  /** Interruptions in a row that brought no byte before giving up. Default 5. */
  maxStalls?: number;
  /** Interruptions in all, even with bytes between them, before giving up. Default 100. */
  maxInterruptions?: number;
  /** How long a player's request waits for a service that cannot be reached before asking again. Default 5 s. */
  unreachableRetryMs?: number;
}

/** How much of what is missing just ahead of the bytes being fetched a seek may skip over. */
const READ_AHEAD_BYTES = 512 * 1024;
const PROGRESS_INTERVAL_MS = 100;
/** A reader's chunk: small enough to start playing early, big enough to read efficiently. */
const READ_BYTES = 256 * 1024;

/** The body ended before the bytes it announced: ask again from where it stopped. */
class Interrupted extends Error {}
/** The bytes on disk cannot be continued (another file, another total): start again. */
class Restart extends Error {}
/** The reader's position moved elsewhere: this request is dropped for one that serves it. */
const RETARGET = Symbol('retarget');
/** Another recording is wanted now: this one waits for its turn. */
const PAUSE = Symbol('pause');

/** "bytes 100-199/1000" → its parts; total null for "/*". The app's one Content-Range parser. */
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

type Waiter = {
  offset: number;
  /** A claim's place in the order of asks (`AudioStream.asks`); null for a body going on. */
  claimed: number | null;
  resolve: () => void;
  reject: (error: Error) => void;
};

/**
 * How bytes are asked for. A claim makes the recording the one that fills now (FillScheduler):
 * a new request of a player, an open, a wait for the whole file. A player's body going on
 * through the range it was given is no claim: catching up with what is here, it waits for its
 * recording's turn, and a recording opened since keeps the link (it took it back before, and the
 * one on screen waited for the earlier one to download whole).
 *
 * A body going on moves the filling to where it reads only while no newer ask is waiting or
 * reading: the player's request from before a seek stays open a few milliseconds after the seek's
 * arrives, and catching up with what is here it took the filling back from the seek, which then
 * waited for every byte before it (9.2 s for minute 60 at 50 Mbit/s).
 */
type Ask = { claim: true } | { claim: false; body: number };
const CLAIM: Ask = { claim: true };

export class AudioStream {
  readonly labelId: string;
  private demandAt = 0;
  private filling: Promise<void> | undefined;
  private request: AbortController | undefined;
  private waiters: Waiter[] = [];
  /** Requests waiting to ask the service again, each woken early when its byte is written. */
  private readonly pausedRequests = new Set<{ offset: number; written: AbortController }>();
  private failure: Error | undefined;
  private closing = false;
  private sinceCheckpoint = 0;
  private digest: StreamDigest | undefined;
  private digested = 0;
  private readonly listeners = new Set<(progress: StreamProgress) => void>();
  private published = false;
  /** The whole file's peaks, once published. */
  private wholePeaks: Peaks | null = null;
  /** Asks numbered in order, the newest last: claims waiting for a byte, and bodies. */
  private asks = 0;
  /** The bodies being read, by their ask's number. */
  private readonly bodies = new Set<number>();
  /** Player requests waiting for the first byte of their answer (untilPresent). */
  private waitingRequests = 0;
  private whole: Promise<void>;
  private settleWhole!: { resolve: () => void; reject: (error: Error) => void };
  /** The facts `check` approved (it runs again when they change). */
  private checked: RemoteFacts | null = null;
  /** Aborted by close(): ends a wait between retries at once. */
  private readonly stopped = new AbortController();

  constructor(private readonly options: AudioStreamOptions) {
    this.labelId = options.labelId;
    this.whole = new Promise<void>((resolve, reject) => {
      this.settleWhole = { resolve, reject };
    });
    this.whole.catch(() => undefined);
    // Bytes kept from an earlier run are digested first (the SHA-256 and the peaks are of the
    // whole file).
    if (options.file.facts) this.startDigest();
  }

  private get file(): PartialFile {
    return this.options.file;
  }

  /** What the service said of the file; null until its first answer. */
  get facts(): RemoteFacts | null {
    return this.file.facts;
  }

  /** Whether the whole file is on disk (and published, or about to be). */
  get complete(): boolean {
    return this.file.complete();
  }

  /** Why filling stopped (offline, no audio…), until the next demand tries again. */
  get error(): Error | undefined {
    return this.failure;
  }

  /**
   * Readers reading now, or waiting for their first byte (a published stream is closed once none
   * is left: one waiting would have its wait cut short, and the player's request would fail).
   */
  get activeReaders(): number {
    return this.bodies.size + this.waitingRequests;
  }

  /** Where the bytes on disk from `offset` on end (`offset` itself when that byte is missing). */
  presentUntil(offset: number): number {
    return this.file.written.presentUntil(offset);
  }

  progress(): StreamProgress {
    return {
      labelId: this.labelId,
      bytesDone: this.file.written.size(),
      bytesTotal: this.facts?.total ?? null,
      ranges: this.file.written.list(),
    };
  }

  onProgress(listener: (progress: StreamProgress) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Makes sure the file's length and type are known and its first `headBytes` are on disk (a
   * WAV's header: its duration), fetching them first when they are not. Rejects when the service
   * cannot be reached and they were never fetched.
   */
  async ready(headBytes = 4096): Promise<RemoteFacts> {
    if (!this.facts || !this.file.written.covers(0, Math.min(headBytes, this.facts.total))) {
      await this.waitFor(0);
    }
    const facts = this.facts!;
    const head = Math.min(headBytes, facts.total);
    if (head > 0 && !this.file.written.covers(0, head)) await this.waitFor(head - 1);
    return facts;
  }

  /** Its first bytes as they are on disk, up to `length` (fewer when not all are there yet). */
  async head(length: number): Promise<Buffer> {
    const present = Math.min(length, this.file.written.presentUntil(0));
    const buffer = Buffer.alloc(present);
    const read = present > 0 ? await this.file.read(buffer, present, 0) : 0;
    return buffer.subarray(0, read);
  }

  /** Resolves once the whole file is on disk and published as the cached one. */
  untilWhole(signal?: AbortSignal): Promise<void> {
    this.demand(this.demandAt);
    if (!signal) return this.whole;
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(new AudioError('cancelled', { cause: signal.reason }));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.whole.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /**
   * The bytes wanted most are now from `offset` on: filling moves there unless what it is
   * fetching reaches it shortly anyway. Starts filling again after a failure. A claim (the
   * default) also makes this recording the one that fills now (see `Ask`).
   */
  demand(offset: number, ask: Ask = CLAIM): void {
    // Published, there is nothing to fetch: a fill started now (the body of a request that
    // waited while the file became whole) would take the scheduler's turn and keep it until the
    // stream closes, while another recording waits for it.
    if (this.closing || this.published) return;
    if (ask.claim || ask.body === this.newestAsk()) this.demandAt = Math.max(0, offset);
    this.failure = undefined;
    if (ask.claim) this.options.scheduler?.claim(this);
    if (!this.filling) {
      this.filling = this.fill().finally(() => {
        this.filling = undefined;
      });
    } else if (this.request && this.shouldRetarget(this.fetchingAt)) {
      this.request.abort(RETARGET);
    }
  }

  /** Resolves when the byte at `offset` is on disk; rejects when filling stops before that. */
  waitFor(offset: number, ask: Ask = CLAIM): Promise<void> {
    if (this.file.written.covers(offset, offset + 1)) return Promise.resolve();
    const total = this.facts?.total;
    if (total !== undefined && offset >= total) {
      return Promise.reject(new RangeError(`byte ${offset} is past the end (${total} bytes)`));
    }
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ offset, claimed: ask.claim ? ++this.asks : null, resolve, reject });
      this.demand(offset, ask);
    });
  }

  /**
   * Resolves when the byte at `offset` is on disk. While the service cannot be reached (or is
   * busy) it goes on waiting, asking again every UNREACHABLE_RETRY_MS, until `signal` aborts or
   * the stream closes; any other failure (no audio, another file…) rejects. A player's request
   * waits so rather than failing: a media element whose request fails stops playing at once,
   * even with minutes of the recording in its buffer (Chromium: "data source error"). It is a
   * reader meanwhile: its byte may be written while it waits to ask again (another request
   * filled it), which answers it at once, and the stream stays open to answer it.
   */
  async untilPresent(offset: number, signal?: AbortSignal): Promise<void> {
    this.waitingRequests++;
    try {
      await this.retryUntilPresent(offset, signal, CLAIM);
    } finally {
      this.waitingRequests--;
    }
  }

  /** untilPresent's waiting, for a request (a claim) or a body going on (counted as a body). */
  private async retryUntilPresent(offset: number, signal: AbortSignal | undefined, ask: Ask) {
    for (;;) {
      try {
        return await this.waitFor(offset, ask);
      } catch (error) {
        if (this.closing || signal?.aborted || !isTransient(error)) throw error;
        await this.pauseBeforeAskingAgain(offset, signal);
      }
    }
  }

  /**
   * The wait before a request asks an unreachable service again, over as soon as the byte at
   * `offset` is written meanwhile: another request (or the whole file's fill) may bring it first,
   * and the player would otherwise wait out the rest of the pause with its bytes on disk.
   */
  private async pauseBeforeAskingAgain(offset: number, signal: AbortSignal | undefined) {
    const paused = { offset, written: new AbortController() };
    this.pausedRequests.add(paused);
    const stops = [paused.written.signal, this.stopped.signal, ...(signal ? [signal] : [])];
    try {
      await delay(this.options.unreachableRetryMs ?? UNREACHABLE_RETRY_MS, undefined, {
        signal: AbortSignal.any(stops),
      });
    } catch (error) {
      if (!paused.written.signal.aborted) throw error;
    } finally {
      this.pausedRequests.delete(paused);
    }
  }

  /**
   * The bytes [start, end] for a player: read from disk as they are there, waiting for the rest
   * as they arrive — while the service cannot be reached too (untilPresent), until the player
   * goes away. The stream errors if filling fails for good (no audio, another file).
   */
  body(start: number, end: number): Readable {
    const number = ++this.asks;
    this.bodies.add(number);
    this.demand(start);
    const goingOn: Ask = { claim: false, body: number };
    const gone = new AbortController();
    const chunks = async function* (stream: AudioStream) {
      let position = start;
      while (position <= end) {
        const present = stream.file.written.presentUntil(position);
        if (present === position) {
          await stream.retryUntilPresent(position, gone.signal, goingOn);
          continue;
        }
        const length = Math.min(present, end + 1, position + READ_BYTES) - position;
        const buffer = Buffer.allocUnsafe(length);
        const read = await stream.file.read(buffer, length, position);
        if (read === 0)
          throw new AudioError('io_error', { detail: `nothing to read at ${position}` });
        position += read;
        yield read === length ? buffer : buffer.subarray(0, read);
      }
    };
    const body = Readable.from(chunks(this), { objectMode: false, highWaterMark: READ_BYTES });
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.bodies.delete(number);
      gone.abort();
    };
    body.once('close', leave);
    return body;
  }

  /**
   * The waveform as far as it is known: a WAV's peaks for the bytes on disk from its start,
   * flat after them, over its whole duration. Null for other audio (no peaks without decoding).
   */
  async waveform(maxLength: number): Promise<WaveformData | null> {
    if (this.published) return this.wholePeaks && waveformData(this.wholePeaks, maxLength);
    if (!this.digest) return null;
    this.advanceDigest();
    const result = await this.digest.peek().catch(() => null);
    if (!result?.peaks || !result.totalFrames) return null;
    return result.peaks.frames >= result.totalFrames
      ? waveformData(result.peaks, maxLength)
      : partialWaveformData(result.peaks, result.totalFrames, maxLength);
  }

  /**
   * Where the bytes wanted most begin: at the newest request still waiting for its first byte (a
   * seek: nothing plays until it comes), else where the player last asked. A request for bytes
   * already here, made while a seek waits, would otherwise take the filling back to the gap
   * after it, and the seek would wait for every byte before it.
   */
  private wantedFrom(): number {
    let newest: Waiter | undefined;
    for (const waiter of this.waiters)
      if (waiter.claimed !== null && waiter.claimed > (newest?.claimed ?? 0)) newest = waiter;
    return newest?.offset ?? this.demandAt;
  }

  /** The number of the newest ask still waiting for a byte or reading (0 when none is). */
  private newestAsk(): number {
    let newest = Math.max(0, ...this.bodies);
    for (const { claimed } of this.waiters)
      if (claimed !== null) newest = Math.max(newest, claimed);
    return newest;
  }

  /** Lets another recording fill: the request under way stops; this one waits its turn. */
  pause(): void {
    this.request?.abort(PAUSE);
  }

  /** Stops filling (the partial file stays, to be resumed) and closes the file. */
  async close(): Promise<void> {
    this.closing = true;
    this.stopped.abort();
    this.options.scheduler?.release(this);
    this.request?.abort(new AudioError('cancelled'));
    await this.filling?.catch(() => undefined);
    this.rejectWaiters(new AudioError('cancelled'));
    if (!this.published) this.settleWhole.reject(new AudioError('cancelled'));
    this.digest?.close();
    this.digest = undefined;
    if (!this.published) await this.file.checkpoint().catch(() => undefined);
    await this.file.close();
  }

  /** Removes the partial file (eviction, the account's removal). */
  async discard(): Promise<void> {
    await this.close();
    if (!this.published) await this.file.discard();
  }

  // ── Filling ───────────────────────────────────────────────────────────────────────────────

  /** Where the request under way has reached (valid while `request` is set). */
  private fetchingAt = 0;

  /** Whether the bytes wanted most lie away from where the request under way is fetching. */
  private shouldRetarget(fetchingAt: number): boolean {
    const total = this.facts?.total;
    if (total === undefined) return false;
    const target = this.file.written.firstMissing(this.wantedFrom(), total);
    return target !== undefined && (target < fetchingAt || target > fetchingAt + READ_AHEAD_BYTES);
  }

  private async fill(): Promise<void> {
    const maxStalls = this.options.maxStalls ?? 5;
    const maxInterruptions = this.options.maxInterruptions ?? 100;
    let stalls = 0;
    let interruptions = 0;
    while (!this.closing) {
      await this.options.scheduler?.turn(this);
      if (this.closing) return;
      const facts = this.facts;
      const target = facts
        ? (this.file.written.firstMissing(this.wantedFrom(), facts.total) ??
          this.file.written.firstMissing(0, facts.total))
        : 0;
      if (facts && target === undefined) {
        await this.finish();
        return;
      }
      const before = this.file.written.size();
      try {
        if (facts) await this.checkFacts(facts);
        await this.fetch(target ?? 0);
        stalls = 0;
      } catch (error) {
        if (this.closing) return;
        if (error === RETARGET || error === PAUSE) continue;
        if (error instanceof Restart) {
          await this.restart();
          // A service that keeps contradicting itself must not hold the stream forever.
          if (++interruptions > maxInterruptions) {
            this.fail(new AudioError('length_mismatch', { detail: error.message }));
            return;
          }
          continue;
        }
        const failure = this.classify(error);
        // A body that broke off is resumed; a service that is busy is asked again after a
        // wait. One that cannot be reached (after the client's own retries) stops the filling
        // at once: the player and the export say so now, and a later demand tries again.
        const again = failure instanceof Interrupted || classify(failure) === 'busy';
        stalls = this.file.written.size() > before ? 0 : stalls + 1;
        if (!again || stalls > maxStalls || ++interruptions > maxInterruptions) {
          this.fail(failure instanceof Interrupted ? lengthMismatch(failure) : failure);
          return;
        }
        const wait = Math.min(
          5000,
          (this.options.retryDelayMs ?? 250) * 2 ** Math.max(0, stalls - 1),
        );
        await delay(wait, undefined, { signal: this.stopped.signal }).catch(() => undefined);
      }
    }
  }

  /** Lets the owner approve the file as the service describes it, once per description. */
  private async checkFacts(facts: RemoteFacts): Promise<void> {
    if (this.checked === facts || !this.options.check) return;
    await this.options.check(facts);
    this.checked = facts;
  }

  /** One request for the gap at `start` (the whole file from 0 when nothing is known). */
  private async fetch(start: number): Promise<void> {
    const facts = this.facts;
    const end = facts ? this.file.written.gapEnd(start, facts.total) - 1 : undefined;
    const validator = facts ? validatorOf(facts) : null;
    const controller = new AbortController();
    this.request = controller;
    this.fetchingAt = start;
    try {
      const source = await this.options.source();
      let audio: LabelAudio;
      try {
        audio = await source.audio(this.labelId, {
          signal: controller.signal,
          range: { start, ...(end !== undefined ? { end } : {}) },
          ...(validator ? { ifRange: validator } : {}),
        });
      } catch (error) {
        throw await this.refused(source, error, controller);
      }
      let offset: number;
      try {
        offset = await this.accept(audio, start);
      } catch (error) {
        audio.body.destroy();
        throw error;
      }
      await this.receive(audio, offset, controller);
    } finally {
      this.request = undefined;
    }
  }

  /** What a request that got no body means: the file's end, no audio, a stop, or a failure. */
  private async refused(
    source: AudioSource,
    error: unknown,
    controller: AbortController,
  ): Promise<unknown> {
    const reason: unknown = controller.signal.reason;
    if (reason === RETARGET || reason === PAUSE) return reason;
    if (!(error instanceof ApiError)) return error;
    if (error.status === 416) return new Restart(`416 for bytes from ${this.fetchingAt}`);
    if (error.kind === 'not_found') {
      // The label exists but its audio does not: the service's no_audio.
      const label = await source.get(this.labelId).catch(() => null);
      if (label) return new AudioError('no_audio', { detail: error.detail, cause: error });
    }
    return error;
  }

  /** Checks an answer before a byte of it is written; answers the offset its body starts at. */
  private async accept(audio: LabelAudio, start: number): Promise<number> {
    if (!extensionFor(audio.contentType)) {
      throw new AudioError('not_audio', {
        detail: `Content-Type ${mediaTypeOf(audio.contentType)}`,
      });
    }
    const known = this.facts;
    if (audio.status === 206) {
      const range = parseContentRange(audio.contentRange);
      if (!range || range.start !== start || range.total === null) {
        throw new Restart(`asked for bytes from ${start}, got ${audio.contentRange}`);
      }
      if (known && range.total !== known.total) {
        throw new Restart(`the file was ${known.total} bytes, now ${range.total}`);
      }
      if (!known) await this.adopt(audio, range.total);
      return start;
    }
    // 200: the whole file from its first byte — the service ignores Range, or the file changed
    // since the bytes on disk (If-Range did not hold): they are dropped.
    if (audio.contentLength === null) {
      throw new AudioError('length_mismatch', { detail: 'the service sent no length' });
    }
    if (known) {
      await this.restart();
    }
    await this.adopt(audio, audio.contentLength);
    return 0;
  }

  private async adopt(audio: LabelAudio, total: number): Promise<void> {
    const facts: RemoteFacts = {
      total,
      contentType: audio.contentType,
      etag: strongEtag(audio.etag),
      lastModified: audio.lastModified,
    };
    await this.checkFacts(facts);
    await this.file.adopt(facts);
    this.checked = this.file.facts;
    this.startDigest();
  }

  /** Writes the body where it belongs, waking the readers waiting for its bytes. */
  private async receive(
    audio: LabelAudio,
    from: number,
    controller: AbortController,
  ): Promise<void> {
    const total = this.facts!.total;
    let offset = from;
    const expectedEnd = this.file.written.gapEnd(from, total);
    try {
      for await (const chunk of audio.body as AsyncIterable<Buffer>) {
        if (offset + chunk.length > total) {
          throw new Restart(`the body ran past the announced ${total} bytes`);
        }
        await this.file.write(offset, chunk).catch((error: unknown) => {
          throw fileErrorOf(error, this.file.path);
        });
        offset += chunk.length;
        this.fetchingAt = offset;
        this.sinceCheckpoint += chunk.length;
        this.wrote();
        if (this.shouldRetarget(offset)) controller.abort(RETARGET);
      }
    } catch (error) {
      const reason: unknown = controller.signal.reason;
      if (reason === RETARGET || reason === PAUSE) throw reason;
      if (error instanceof Restart || isAudioError(error)) throw error;
      // The body broke off (a dropped connection, a time-out): resume from what is on disk.
      throw new Interrupted(error instanceof Error ? error.message : String(error));
    } finally {
      void this.file.checkpoint().catch(() => undefined);
      this.sinceCheckpoint = 0;
    }
    const reason: unknown = controller.signal.reason;
    if (reason === RETARGET || reason === PAUSE) throw reason;
    if (offset < expectedEnd && !this.file.written.covers(from, expectedEnd)) {
      throw new Interrupted(`the body ended at ${offset}, before ${expectedEnd}`);
    }
  }

  /** After each write: readers woken, the peaks read on, progress told, a flush now and then. */
  private wrote(): void {
    const written = this.file.written;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (written.covers(waiter.offset, waiter.offset + 1)) waiter.resolve();
      else this.waiters.push(waiter);
    }
    for (const paused of this.pausedRequests)
      if (written.covers(paused.offset, paused.offset + 1)) paused.written.abort();
    this.advanceDigest();
    if (this.sinceCheckpoint >= (this.options.checkpointBytes ?? 8 * 1024 * 1024)) {
      this.sinceCheckpoint = 0;
      void this.file.checkpoint().catch(() => undefined);
    }
    this.tellProgress(false);
  }

  /** Progress to the listeners at most every 100 ms, and always when `now`. */
  private tellProgress(now: boolean): void {
    const at = Date.now();
    if (!now && at - this.toldAt < PROGRESS_INTERVAL_MS) return;
    this.toldAt = at;
    const progress = this.progress();
    for (const listener of this.listeners) listener(progress);
  }
  private toldAt = 0;

  /**
   * The peaks thread reads the file from its start as far as it is there without a gap, in its
   * final form (a sealed file's whole chunks).
   */
  private advanceDigest(): void {
    if (!this.digest) return;
    const prefix = this.file.stored.presentUntil(0);
    if (prefix > this.digested) {
      this.digested = prefix;
      this.digest.upTo(prefix);
    }
  }

  private startDigest(): void {
    this.digest?.close();
    this.digest = undefined;
    this.digested = 0;
    const facts = this.facts;
    if (!facts) return;
    // Peaks are read from a WAV's samples; other audio would need a decoder.
    const peaks = this.options.digest.peaks && extensionFor(facts.contentType) === 'wav';
    const { sha256 } = this.options.digest;
    if (peaks || sha256) {
      this.digest = new StreamDigest(this.file.path, {
        sha256,
        peaks,
        sealed: this.file.chunkKey,
      });
      this.advanceDigest();
    }
  }

  /** Drops every byte: the file on the service is not the one on disk. */
  private async restart(): Promise<void> {
    this.digest?.close();
    this.digest = undefined;
    await this.file.reset();
  }

  /** The whole file is on disk: its digest read back from it, then it gets its final name. */
  private async finish(): Promise<void> {
    if (this.published) return;
    try {
      await this.file.checkpoint();
      this.advanceDigest();
      const read = this.digest ? await this.digest.finish() : null;
      this.digest = undefined;
      const facts = this.facts!;
      await this.checkFacts(facts);
      const total = facts.total;
      // The hash must be of every byte on the file, read back: anything else is a failure.
      if (read && read.bytes !== total) {
        throw new AudioError('io_error', { detail: `read back ${read.bytes} of ${total} bytes` });
      }
      const peaks = read?.peaks ?? null;
      await this.options.publish(this.file, { sha256: read?.sha256 ?? null, peaks });
      this.wholePeaks = peaks;
      this.published = true;
      this.options.scheduler?.release(this);
      this.tellProgress(true);
      this.settleWhole.resolve();
    } catch (error) {
      this.fail(this.classify(error));
    }
  }

  private classify(error: unknown): Error {
    if (error instanceof Error && (error instanceof ApiError || isAudioError(error))) return error;
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string') return fileErrorOf(error, this.file.path);
    return error instanceof Error ? error : new Error(String(error));
  }

  private fail(error: Error): void {
    this.failure = error;
    this.options.scheduler?.release(this);
    this.rejectWaiters(error);
    // Those waiting for the whole file hear it too; a later demand may still finish it.
    this.settleWhole.reject(error);
    const next = new Promise<void>((resolve, reject) => {
      this.settleWhole = { resolve, reject };
    });
    next.catch(() => undefined);
    this.whole = next;
  }

  private rejectWaiters(error: Error): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) waiter.reject(error);
  }
}

const lengthMismatch = (error: Interrupted) =>
  new AudioError('length_mismatch', { detail: error.message });

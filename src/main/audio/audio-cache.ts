import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { removeQuietly, writeFileAtomic } from '../base/atomic-write';
import { AudioStream, type AudioSource, type StreamProgress } from './audio-stream';
import { AudioError, fileErrorOf } from './errors';
import { exists } from './files';
import { FillScheduler } from './fill-scheduler';
import { contentTypeForExtension, extensionFor, idForFileName } from './names';
import { discardPartialFile, PartialFile } from './partial-file';
import { encodePeaks, type Peaks } from './peaks';

/**
 * Label audio kept for playing, under a size budget, least recently used out first; partly
 * cached recordings are part of it (audio-stream.ts fills them while they play).
 *
 * Layout: `<folder>/index.json`, `<folder>/files/<labelId>.<ext>` (+ `.peaks` beside) for whole
 * files, and `<folder>/files/.<labelId>.stream` (+ `.json`) for a partly cached one. A whole
 * file gets its final name only once every byte is on disk and flushed, so each name holds a
 * whole file; the index is a convenience written after them and reconciled with the folder at
 * open, so a crash between the two loses nothing (an unlisted whole file is adopted, a listed
 * missing one dropped, a partial file kept to be resumed). One cache per account: the caller
 * gives each account its own folder.
 */

const DEFAULT_AUDIO_BUDGET = 2 * 1024 ** 3;
const STREAM_SUFFIX = '.stream';

/** A partly cached recording's partial file in the cache's files/ folder. */
export const streamPathOf = (filesDir: string, labelId: string) =>
  join(filesDir, `.${idForFileName(labelId)}${STREAM_SUFFIX}`);
const peaksPathOf = (audioPath: string) => `${audioPath}.peaks`;
const INDEX_VERSION = 1;
const TOUCH_WRITE_DELAY_MS = 2000;

export interface CachedAudio {
  labelId: string;
  path: string;
  /** The waveform peaks beside it (peaks.ts), or null (audio other than WAV). */
  peaksPath: string | null;
  contentType: string;
  /** Size of the audio file. */
  bytes: number;
  /** Audio and peaks together: what counts against the budget. */
  diskBytes: number;
  lastUsedAt: number;
}

interface IndexEntry {
  labelId: string;
  file: string;
  peaksFile: string | null;
  contentType: string;
  bytes: number;
  diskBytes: number;
  lastUsedAt: number;
}

/** A recording the cache holds audio of, for retention: its bytes and its record's start. */
export interface HeldAudio {
  labelId: string;
  /** Audio and peaks on disk (a partly cached recording: its bytes so far). */
  bytes: number;
  /** When its record started; null until told (`noteRecordStarts`). */
  recordStartMs: number | null;
  /** A player is reading it now: a cleanup leaves it for the next. */
  playing: boolean;
}

export interface AudioCacheOptions {
  folder: string;
  /** Bytes the cache may use (audio and peaks). Default 2 GiB. */
  budgetBytes?: number;
  /** A streaming file is flushed after this many bytes (default 8 MiB; tests make it small). */
  checkpointBytes?: number;
  /** Partial downloads left older than this are removed at open. Default one day. */
  partialMaxAgeMs?: number;
  now?: () => number;
}

export interface EnsureOptions {
  signal?: AbortSignal;
  onProgress?: (progress: StreamProgress) => void;
}

/** A label's audio: the whole file, or the stream filling it. */
export type CachedOrStreaming =
  { kind: 'whole'; audio: CachedAudio } | { kind: 'streaming'; stream: AudioStream };

const isAudioName = (name: string) => !name.startsWith('.') && !name.endsWith('.peaks');

export class AudioCache {
  private readonly entries = new Map<string, IndexEntry>();
  /** Partly cached recordings on disk that no stream has open: label → disk bytes, last used. */
  private readonly partials = new Map<string, { bytes: number; lastUsedAt: number }>();
  private readonly streams = new Map<string, AudioStream>();
  /**
   * When each cached recording started, as the offline cache told it (retention ages audio by
   * it, also after the record's text has gone from the offline cache).
   */
  private readonly recordStarts = new Map<string, number>();
  private readonly opening = new Map<string, Promise<AudioStream>>();
  private readonly scheduler = new FillScheduler<AudioStream>();
  private readonly filesDir: string;
  private readonly indexPath: string;
  private readonly now: () => number;
  private budget: number;
  private writeTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly options: AudioCacheOptions) {
    this.filesDir = join(options.folder, 'files');
    this.indexPath = join(options.folder, 'index.json');
    this.now = options.now ?? Date.now;
    this.budget = options.budgetBytes ?? DEFAULT_AUDIO_BUDGET;
  }

  /** Opens (or creates) the cache in `options.folder`, reconciling its index with the files. */
  static async open(options: AudioCacheOptions): Promise<AudioCache> {
    const cache = new AudioCache(options);
    await mkdir(cache.filesDir, { recursive: true });
    await cache.load();
    await cache.evict(new Set());
    await cache.writeIndex();
    return cache;
  }

  get budgetBytes(): number {
    return this.budget;
  }

  /** Disk used: whole files with their peaks, and the bytes of partly cached ones. */
  usage(): { bytes: number; files: number; partial: number; budgetBytes: number } {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.diskBytes;
    for (const partial of this.partials.values()) bytes += partial.bytes;
    for (const stream of this.streams.values()) {
      if (!this.entries.has(stream.labelId)) bytes += stream.progress().bytesDone;
    }
    const partial =
      this.partials.size + [...this.streams.keys()].filter((id) => !this.entries.has(id)).length;
    return { bytes, files: this.entries.size, partial, budgetBytes: this.budget };
  }

  /** Every recording the cache holds audio of (whole, partly cached or streaming). */
  held(): HeldAudio[] {
    const bytes = new Map<string, number>();
    for (const entry of this.entries.values()) bytes.set(entry.labelId, entry.diskBytes);
    for (const [labelId, partial] of this.partials) bytes.set(labelId, partial.bytes);
    for (const [labelId, stream] of this.streams) {
      if (!this.entries.has(labelId)) bytes.set(labelId, stream.progress().bytesDone);
    }
    return [...bytes].map(([labelId, size]) => ({
      labelId,
      bytes: size,
      recordStartMs: this.recordStarts.get(labelId) ?? null,
      playing: (this.streams.get(labelId)?.activeReaders ?? 0) > 0,
    }));
  }

  /** Remembers when recordings started (those it holds), for retention. */
  async noteRecordStarts(starts: Readonly<Record<string, number>>): Promise<void> {
    const holds = new Set(this.held().map((audio) => audio.labelId));
    let changed = false;
    for (const [labelId, startMs] of Object.entries(starts)) {
      if (!holds.has(labelId) || this.recordStarts.get(labelId) === startMs) continue;
      this.recordStarts.set(labelId, startMs);
      changed = true;
    }
    if (changed) await this.writeIndex();
  }

  /** The cached audio of a label, marked as just used; undefined when it is not cached. */
  get(labelId: string): CachedAudio | undefined {
    const entry = this.entries.get(labelId);
    if (!entry) return undefined;
    entry.lastUsedAt = Math.max(this.now(), entry.lastUsedAt);
    this.scheduleWrite();
    return this.view(entry);
  }

  /** Like get, without marking it used. */
  peek(labelId: string): CachedAudio | undefined {
    const entry = this.entries.get(labelId);
    return entry && this.view(entry);
  }

  /**
   * The label's audio: the whole cached file, or the stream that fills it (opened from the
   * partial file a crash, a restart or an earlier visit left, or new). Every caller of a label
   * shares one stream.
   */
  async open(source: () => Promise<AudioSource>, labelId: string): Promise<CachedOrStreaming> {
    const hit = this.get(labelId);
    if (hit) {
      if (await exists(hit.path)) return { kind: 'whole', audio: hit };
      // Deleted behind the cache's back: forget it and fetch it again.
      await this.remove(labelId);
    }
    const open = this.streams.get(labelId);
    if (open) return { kind: 'streaming', stream: open };
    let opening = this.opening.get(labelId);
    if (!opening) {
      opening = this.openStream(source, labelId).finally(() => this.opening.delete(labelId));
      this.opening.set(labelId, opening);
    }
    return { kind: 'streaming', stream: await opening };
  }

  /**
   * The label's whole file, from the cache or filled into it first (with peaks). The stream goes
   * on when a caller stops waiting (`signal`): the recording was wanted, and fills in the
   * background, one recording at a time, until it is whole.
   */
  async ensure(
    source: AudioSource,
    labelId: string,
    { signal, onProgress }: EnsureOptions = {},
  ): Promise<CachedAudio> {
    if (signal?.aborted) throw new AudioError('cancelled', { cause: signal.reason });
    const found = await this.open(() => Promise.resolve(source), labelId);
    if (found.kind === 'whole') return found.audio;
    const stop = onProgress ? found.stream.onProgress(onProgress) : undefined;
    try {
      await found.stream.untilWhole(signal);
    } finally {
      stop?.();
    }
    const audio = this.get(labelId);
    if (!audio) throw new AudioError('io_error', { detail: 'the whole file left the cache' });
    return audio;
  }

  /** Fills in the background, one at a time, the partly cached recordings a restart found. */
  resumePartials(source: () => Promise<AudioSource>): void {
    for (const labelId of this.partials.keys()) {
      void this.open(source, labelId)
        .then((found) => {
          if (found.kind === 'streaming') void found.stream.untilWhole().catch(() => undefined);
        })
        .catch(() => undefined);
    }
  }

  private async openStream(
    source: () => Promise<AudioSource>,
    labelId: string,
  ): Promise<AudioStream> {
    const file = await PartialFile.open(streamPathOf(this.filesDir, labelId), labelId);
    this.partials.delete(labelId);
    const stream = new AudioStream({
      labelId,
      file,
      source,
      // The player draws a WAV's waveform; the cache has no use for a hash.
      digest: { sha256: false, peaks: true },
      scheduler: this.scheduler,
      checkpointBytes: this.options.checkpointBytes,
      publish: (whole, { peaks }) => this.publish(labelId, whole, peaks),
    });
    this.streams.set(labelId, stream);
    return stream;
  }

  /** A stream's whole file becomes the cached one: final name, peaks beside, in the index. */
  private async publish(labelId: string, file: PartialFile, peaks: Peaks | null): Promise<void> {
    const facts = file.facts!;
    const name = `${idForFileName(labelId)}.${extensionFor(facts.contentType) ?? 'bin'}`;
    const path = join(this.filesDir, name);
    let peaksBytes = 0;
    if (peaks) {
      const encoded = encodePeaks(peaks);
      await writeFileAtomic(peaksPathOf(path), encoded);
      peaksBytes = encoded.length;
    } else {
      await removeQuietly(peaksPathOf(path));
    }
    await file.publish(path).catch((error: unknown) => {
      throw fileErrorOf(error, path);
    });
    const entry: IndexEntry = {
      labelId,
      file: name,
      peaksFile: peaks ? `${name}.peaks` : null,
      contentType: facts.contentType,
      bytes: facts.total,
      diskBytes: facts.total + peaksBytes,
      lastUsedAt: this.now(),
    };
    this.entries.set(labelId, entry);
    this.closeWhenUnread(labelId);
    await this.evict(new Set([labelId]));
    await this.writeIndex();
  }

  /** A published stream is closed once no player reads from its file any more. */
  private closeWhenUnread(labelId: string): void {
    const stream = this.streams.get(labelId);
    if (!stream) return;
    const check = () => {
      if (stream.activeReaders > 0) {
        setTimeout(check, 1000).unref();
        return;
      }
      if (this.streams.get(labelId) === stream) this.streams.delete(labelId);
      void stream.close().catch(() => undefined);
    };
    check();
  }

  /** Changes the budget and evicts at once down to it. */
  async setBudget(bytes: number): Promise<void> {
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError('the budget must be ≥ 0 bytes');
    this.budget = bytes;
    await this.evict(new Set());
    await this.writeIndex();
  }

  /** Removes a label's audio, whole or partial, with its peaks. */
  async remove(labelId: string): Promise<void> {
    await this.removePartial(labelId);
    const hadStart = this.recordStarts.delete(labelId);
    const entry = this.entries.get(labelId);
    if (entry) {
      await this.removeFiles(entry);
      this.entries.delete(labelId);
    }
    if (entry || hadStart) await this.writeIndex();
  }

  async clear(): Promise<void> {
    for (const labelId of [...this.streams.keys(), ...this.partials.keys()]) {
      await this.removePartial(labelId);
    }
    for (const entry of [...this.entries.values()]) {
      await this.removeFiles(entry);
      this.entries.delete(entry.labelId);
    }
    this.recordStarts.clear();
    await this.writeIndex();
  }

  private async removePartial(labelId: string): Promise<void> {
    const stream = this.streams.get(labelId);
    this.streams.delete(labelId);
    this.partials.delete(labelId);
    if (stream) await stream.discard();
    else await discardPartialFile(streamPathOf(this.filesDir, labelId));
  }

  /** Stops every stream (their partial files stay, to be resumed) and writes the index. */
  async close(): Promise<void> {
    for (const stream of this.streams.values()) await stream.close().catch(() => undefined);
    this.streams.clear();
    if (this.writeTimer) {
      clearTimeout(this.writeTimer);
      this.writeTimer = undefined;
      await this.writeIndex();
    }
    await this.writing;
  }

  private view(entry: IndexEntry): CachedAudio {
    return {
      labelId: entry.labelId,
      path: join(this.filesDir, entry.file),
      peaksPath: entry.peaksFile ? join(this.filesDir, entry.peaksFile) : null,
      contentType: entry.contentType,
      bytes: entry.bytes,
      diskBytes: entry.diskBytes,
      lastUsedAt: entry.lastUsedAt,
    };
  }

  /**
   * Least recently used out first until the cache fits its budget, partly cached recordings
   * too; `keep` and the recordings streaming now are never evicted.
   */
  private async evict(keep: ReadonlySet<string>): Promise<void> {
    let used = this.usage().bytes;
    if (used <= this.budget) return;
    const candidates = [
      ...[...this.entries.values()].map((entry) => ({
        labelId: entry.labelId,
        bytes: entry.diskBytes,
        lastUsedAt: entry.lastUsedAt,
        remove: async () => {
          await this.removeFiles(entry);
          this.entries.delete(entry.labelId);
        },
      })),
      ...[...this.partials.entries()].map(([labelId, partial]) => ({
        labelId,
        bytes: partial.bytes,
        lastUsedAt: partial.lastUsedAt,
        remove: () => this.removePartial(labelId),
      })),
    ].sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const candidate of candidates) {
      if (used <= this.budget) break;
      if (keep.has(candidate.labelId) || this.streams.has(candidate.labelId)) continue;
      try {
        await candidate.remove();
      } catch {
        continue; // in use or locked: try again at the next eviction
      }
      this.recordStarts.delete(candidate.labelId);
      used -= candidate.bytes;
    }
  }

  private async removeFiles(entry: IndexEntry): Promise<void> {
    await removeQuietly(join(this.filesDir, entry.file));
    if (entry.peaksFile) await removeQuietly(join(this.filesDir, entry.peaksFile));
  }

  private scheduleWrite(): void {
    if (this.writeTimer) return;
    this.writeTimer = setTimeout(() => {
      this.writeTimer = undefined;
      void this.writeIndex().catch(() => undefined);
    }, TOUCH_WRITE_DELAY_MS);
    this.writeTimer.unref();
  }

  /** Writes the index (atomically; one write at a time, the last state wins). */
  private writeIndex(): Promise<void> {
    const run = async () => {
      const entries = [...this.entries.values()];
      const recordStarts = Object.fromEntries(this.recordStarts);
      const body = JSON.stringify({ version: INDEX_VERSION, entries, recordStarts }, null, 1);
      // Not flushed to disk: the folder is the truth, and open() rebuilds what a power cut loses.
      await writeFileAtomic(this.indexPath, body, { durable: false }).catch((error: unknown) => {
        throw fileErrorOf(error, this.indexPath);
      });
    };
    this.writing = this.writing.then(run, run);
    return this.writing;
  }

  /** Reads the index and makes it agree with the files on disk. */
  private async load(): Promise<void> {
    const listed = new Map<string, IndexEntry>();
    const starts = new Map<string, number>();
    try {
      const index = JSON.parse(await readFile(this.indexPath, 'utf8')) as {
        version?: number;
        entries?: IndexEntry[];
        recordStarts?: Record<string, unknown>;
      };
      if (index.version === INDEX_VERSION) {
        for (const entry of index.entries ?? []) listed.set(entry.file, entry);
        for (const [labelId, startMs] of Object.entries(index.recordStarts ?? {})) {
          if (typeof startMs === 'number') starts.set(labelId, startMs);
        }
      }
    } catch {
      // Missing or unreadable: rebuilt from the files (the starts are told again by a cleanup).
    }
    const names = new Set(await readdir(this.filesDir));
    const maxAge = this.options.partialMaxAgeMs ?? 24 * 60 * 60 * 1000;
    for (const name of names) {
      const path = join(this.filesDir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (name.startsWith('.') && name.endsWith(STREAM_SUFFIX)) {
        // A partly cached recording: kept (and counted) to be resumed; bytes as the disk holds them.
        const labelId = name.slice(1, -STREAM_SUFFIX.length);
        if (names.has(`${name}.json`)) {
          this.partials.set(labelId, { bytes: info.blocks * 512, lastUsedAt: info.mtimeMs });
        } else {
          await discardPartialFile(path);
        }
        continue;
      }
      if (name.startsWith('.')) {
        // Our temporary files: an index or peaks write cut short, an abandoned download (the
        // state of a partly cached recording is kept with it, above).
        if (names.has(name.slice(0, -'.json'.length)) && name.endsWith(`${STREAM_SUFFIX}.json`)) {
          continue;
        }
        const stale = name.endsWith('.tmp') || this.now() - info.mtimeMs > maxAge;
        if (stale) await removeQuietly(path);
        continue;
      }
      if (name.endsWith('.peaks')) {
        if (!names.has(name.slice(0, -'.peaks'.length))) await removeQuietly(path);
        continue;
      }
      if (!isAudioName(name)) continue;
      const peaksFile = names.has(`${name}.peaks`) ? `${name}.peaks` : null;
      const peaksBytes = peaksFile
        ? ((await stat(join(this.filesDir, peaksFile)).catch(() => undefined))?.size ?? 0)
        : 0;
      const known = listed.get(name);
      const entry: IndexEntry =
        known && known.bytes === info.size
          ? { ...known, peaksFile, diskBytes: info.size + peaksBytes }
          : {
              labelId: name.slice(0, name.length - extname(name).length),
              file: name,
              peaksFile,
              contentType: contentTypeForExtension(extname(name)),
              bytes: info.size,
              diskBytes: info.size + peaksBytes,
              lastUsedAt: info.mtimeMs,
            };
      this.entries.set(entry.labelId, entry);
    }
    for (const [labelId, startMs] of starts) {
      if (this.entries.has(labelId) || this.partials.has(labelId)) {
        this.recordStarts.set(labelId, startMs);
      }
    }
  }
}

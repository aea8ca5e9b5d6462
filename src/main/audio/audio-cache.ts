import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { AccountKey } from '../at-rest/account-key';
import { readSealedFile, sealBytes, SealedFileReader, SealedLayout } from '../at-rest/sealed-file';
import { removeQuietly, writeFileAtomic } from '../base/atomic-write';
import { AudioStream, type AudioSource, type StreamProgress } from './audio-stream';
import { audioTypeOf, SNIFF_BYTES } from './audio-type';
import type { AudioIndexEntry } from './audio-index-entry';
import { AudioError, fileErrorOf } from './errors';
import { exists } from './files';
import { FillScheduler } from './fill-scheduler';
import { CLEAR_FILES, CLEAR_INDEX, LegacyAudio } from './legacy-audio';
import type { MediaFile } from './media';
import { contentTypeForExtension, extensionFor, idForFileName } from './names';
import { discardPartialFile, PartialFile, partialLabelOf } from './partial-file';
import { decodePeaks, encodePeaks, type Peaks } from './peaks';

/**
 * Label audio kept for playing, under a size budget, least recently used out first; partly
 * cached recordings are part of it (audio-stream.ts fills them while they play).
 *
 * Sealed (the app's, given the account's key): `<folder>/store/` holds `<name>` (a whole file),
 * `<name>.peaks` beside it, and `.<name>.stream` with its sealed state for a partly cached one;
 * `<name>` is an HMAC of the record's id under the account's key, every file is sealed
 * (at-rest/sealed-file.ts), and the index (`<folder>/index.sealed`) too: nothing in the folder
 * tells a record's id, patient or time, or a word or a sample of it. In the clear (the
 * benchmarks' baseline, and the layout an earlier version left): `<folder>/files/` with
 * `<labelId>.<ext>`, and `<folder>/index.json`. Opened sealed, an earlier version's files are
 * sealed into the store in the background (legacy-audio.ts).
 *
 * A whole file gets its final name only once every byte is on disk and flushed, so each name
 * holds a whole file; the index is a convenience written after them and reconciled with the
 * folder at open, so a crash between the two loses nothing (an unlisted whole file is adopted, a
 * listed missing one dropped, a partial file kept to be resumed). One cache per account: the
 * caller gives each account its own folder.
 */

const DEFAULT_AUDIO_BUDGET = 2 * 1024 ** 3;
const STREAM_SUFFIX = '.stream';
const PEAKS_SUFFIX = '.peaks';
/** The sealed layout's folder and index (the clear one's are an earlier version's: legacy-audio.ts). */
const SEALED_FILES = 'store';
const SEALED_INDEX = 'index.sealed';
/** What the sealed index and peaks are sealed for. */
const INDEX_PURPOSE = 'audio index';
const INDEX_VERSION = 2;
const TOUCH_WRITE_DELAY_MS = 2000;

/** A partly cached recording's partial file in the cache's files folder, by its name. */
export const streamPathOf = (filesDir: string, name: string) =>
  join(filesDir, `.${name}${STREAM_SUFFIX}`);
const peaksPathOf = (audioPath: string) => `${audioPath}${PEAKS_SUFFIX}`;

/** A record's files in an account's (sealed) audio cache, found from its id by the key. */
export interface RecordAudioFiles {
  /** The whole recording. */
  audio: string;
  /** Its waveform peaks. */
  peaks: string;
  /** A partly cached recording, and its state (what the service said of it, its ranges). */
  partial: string;
  partialState: string;
}

/**
 * The files of record `labelId` in the audio cache folder `folder` (the account's, sealed under
 * `key`): the one way from a record's id to its files, whose names tell nothing of it. Present
 * or not; the cache's own removal and eviction use the same names (AudioCache.remove).
 */
export function audioFilesOf(folder: string, key: AccountKey, labelId: string): RecordAudioFiles {
  const filesDir = join(folder, SEALED_FILES);
  const audio = join(filesDir, key.fileName(labelId));
  const partial = streamPathOf(filesDir, key.fileName(labelId));
  return {
    audio,
    peaks: peaksPathOf(audio),
    partial,
    partialState: `${partial}.state`,
  };
}

export interface CachedAudio {
  labelId: string;
  path: string;
  /** The waveform peaks beside it (peaks.ts), or null (audio other than WAV). */
  peaksPath: string | null;
  contentType: string;
  /** Size of the audio (its plain bytes). */
  bytes: number;
  /** Audio and peaks together, as stored: what counts against the budget. */
  diskBytes: number;
  lastUsedAt: number;
}

/** A recording the cache holds audio of, for retention: its bytes and its record's start. */
export interface HeldAudio {
  /** Its name in the cache (what removeHeld removes). */
  name: string;
  /** Its record's id; null while the cache does not know it (AudioIndexEntry.labelId). */
  labelId: string | null;
  /** Audio and peaks on disk (a partly cached recording: its bytes so far). */
  bytes: number;
  /** When its record started; null until told (`noteRecordStarts`). */
  recordStartMs: number | null;
  /** A player is reading it now: a cleanup leaves it for the next. */
  playing: boolean;
}

export interface AudioCacheOptions {
  folder: string;
  /**
   * The account's key: every file is sealed under it, named by it, and an earlier version's
   * files are sealed in the background. Without it the cache is in the clear (the benchmarks'
   * baseline: the app always gives one).
   */
  key?: AccountKey;
  /** Bytes the cache may use (audio and peaks). Default 2 GiB. */
  budgetBytes?: number;
  /** A streaming file is flushed after this many bytes (default 8 MiB; tests make it small). */
  checkpointBytes?: number;
  /** A player's request waits this long for an unreachable service before asking again (default 5 s). */
  unreachableRetryMs?: number;
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

export class AudioCache {
  private readonly entries = new Map<string, AudioIndexEntry>();
  /** Partly cached recordings on disk that no stream has open, by name. */
  private readonly partials = new Map<
    string,
    { labelId: string; bytes: number; lastUsedAt: number }
  >();
  /** Streams open, by name. */
  private readonly streams = new Map<string, AudioStream>();
  /**
   * When each cached recording started, by name, as the offline cache told it (retention ages
   * audio by it, also after the record's text has gone from the offline cache).
   */
  private readonly recordStarts = new Map<string, number>();
  private readonly opening = new Map<string, Promise<AudioStream>>();
  private readonly scheduler = new FillScheduler<AudioStream>();
  private readonly filesDir: string;
  private readonly indexPath: string;
  private readonly key: AccountKey | undefined;
  private readonly now: () => number;
  private readonly legacy: LegacyAudio | undefined;
  private budget: number;
  private writeTimer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();

  private constructor(private readonly options: AudioCacheOptions) {
    this.key = options.key;
    this.filesDir = join(options.folder, this.key ? SEALED_FILES : CLEAR_FILES);
    this.indexPath = join(options.folder, this.key ? SEALED_INDEX : CLEAR_INDEX);
    this.now = options.now ?? Date.now;
    this.budget = options.budgetBytes ?? DEFAULT_AUDIO_BUDGET;
    this.legacy =
      this.key &&
      new LegacyAudio(options.folder, {
        nameOf: (labelId) => this.nameOf(labelId),
        filesDir: this.filesDir,
        key: this.key,
        adopt: (entry) => this.adoptConverted(entry),
      });
  }

  /**
   * Opens (or creates) the cache in `options.folder`, reconciling its index with the files; an
   * earlier version's files in the clear are sealed into it in the background.
   */
  static async open(options: AudioCacheOptions): Promise<AudioCache> {
    const cache = new AudioCache(options);
    await mkdir(cache.filesDir, { recursive: true });
    await cache.load();
    await cache.evict(new Set());
    await cache.writeIndex();
    await cache.legacy?.start();
    return cache;
  }

  /** Whether sealed files (or their index) lie in an account's audio folder. */
  static holdsSealedData(folder: string): boolean {
    if (existsSync(join(folder, SEALED_INDEX))) return true;
    try {
      return readdirSync(join(folder, SEALED_FILES)).length > 0;
    } catch {
      return false;
    }
  }

  get budgetBytes(): number {
    return this.budget;
  }

  /** A record's name in the cache: an HMAC of its id when sealed, else the id itself. */
  private nameOf(labelId: string): string {
    return this.key ? this.key.fileName(labelId) : idForFileName(labelId);
  }

  /** Disk used: whole files with their peaks, and the bytes of partly cached ones. */
  usage(): { bytes: number; files: number; partial: number; budgetBytes: number } {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.diskBytes;
    for (const partial of this.partials.values()) bytes += partial.bytes;
    for (const [name, stream] of this.streams) {
      if (!this.entries.has(name)) bytes += stream.progress().bytesDone;
    }
    const partial =
      this.partials.size +
      [...this.streams.keys()].filter((name) => !this.entries.has(name)).length;
    return { bytes, files: this.entries.size, partial, budgetBytes: this.budget };
  }

  /** Every recording the cache holds audio of (whole, partly cached or streaming). */
  held(): HeldAudio[] {
    const held = new Map<string, { labelId: string | null; bytes: number }>();
    for (const [name, entry] of this.entries) held.set(name, entry);
    for (const [name, partial] of this.partials) held.set(name, partial);
    for (const [name, stream] of this.streams) {
      if (!this.entries.has(name)) {
        held.set(name, { labelId: stream.labelId, bytes: stream.progress().bytesDone });
      }
    }
    return [...held].map(([name, { labelId, bytes }]) => ({
      name,
      labelId,
      bytes: this.entries.get(name)?.diskBytes ?? bytes,
      recordStartMs: this.recordStarts.get(name) ?? null,
      playing: (this.streams.get(name)?.activeReaders ?? 0) > 0,
    }));
  }

  /** Remembers when recordings started (those it holds), by record id, for retention. */
  async noteRecordStarts(starts: Readonly<Record<string, number>>): Promise<void> {
    const holds = new Set(this.held().map((audio) => audio.name));
    let changed = false;
    for (const [labelId, startMs] of Object.entries(starts)) {
      const name = this.nameOf(labelId);
      if (!holds.has(name) || this.recordStarts.get(name) === startMs) continue;
      this.recordStarts.set(name, startMs);
      changed = true;
    }
    if (changed) await this.writeIndex();
  }

  /** The cached audio of a label, marked as just used; undefined when it is not cached. */
  get(labelId: string): CachedAudio | undefined {
    const entry = this.entries.get(this.nameOf(labelId));
    if (!entry) return undefined;
    entry.lastUsedAt = Math.max(this.now(), entry.lastUsedAt);
    this.scheduleWrite();
    return this.view(labelId, entry);
  }

  /** Like get, without marking it used. */
  peek(labelId: string): CachedAudio | undefined {
    const entry = this.entries.get(this.nameOf(labelId));
    return entry && this.view(labelId, entry);
  }

  /** How the media route reads a cached file (sealed: through the account's key). */
  mediaFile(audio: CachedAudio): MediaFile {
    return { path: audio.path, ...(this.key ? { key: this.key } : {}) };
  }

  /** A cached file's waveform peaks; SealedDataError when they fail their check. */
  async peaks(audio: CachedAudio): Promise<Peaks | null> {
    if (!audio.peaksPath) return null;
    const bytes = this.key
      ? await readSealedFile(audio.peaksPath, this.key)
      : await readFile(audio.peaksPath);
    return decodePeaks(bytes);
  }

  /**
   * The label's audio: the whole cached file, or the stream that fills it (opened from the
   * partial file a crash, a restart or an earlier visit left, or new). Every caller of a label
   * shares one stream.
   */
  async open(source: () => Promise<AudioSource>, labelId: string): Promise<CachedOrStreaming> {
    // Kept by an earlier version in the clear and not sealed yet: sealed first, now.
    await this.legacy?.convert(labelId);
    const name = this.nameOf(labelId);
    const hit = this.get(labelId);
    if (hit) {
      if (await exists(hit.path)) return { kind: 'whole', audio: hit };
      // Deleted behind the cache's back: forget it and fetch it again.
      await this.remove(labelId);
    }
    const open = this.streams.get(name);
    if (open) return { kind: 'streaming', stream: open };
    let opening = this.opening.get(name);
    if (!opening) {
      opening = this.openStream(source, labelId).finally(() => this.opening.delete(name));
      this.opening.set(name, opening);
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
    for (const { labelId } of this.partials.values()) {
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
    const name = this.nameOf(labelId);
    const file = await PartialFile.open(streamPathOf(this.filesDir, name), labelId, {
      key: this.key,
    });
    this.partials.delete(name);
    const stream = new AudioStream({
      labelId,
      file,
      source,
      // The player draws a WAV's waveform; the cache has no use for a hash.
      digest: { sha256: false, peaks: true },
      scheduler: this.scheduler,
      checkpointBytes: this.options.checkpointBytes,
      unreachableRetryMs: this.options.unreachableRetryMs,
      publish: (whole, { peaks }) => this.publish(name, whole, peaks),
    });
    this.streams.set(name, stream);
    return stream;
  }

  /** A stream's whole file becomes the cached one: final name, peaks beside, in the index. */
  private async publish(name: string, file: PartialFile, peaks: Peaks | null): Promise<void> {
    const facts = file.facts!;
    // Sealed, the name says nothing, not even the kind of audio; in the clear, its extension.
    const fileName = this.key ? name : `${name}.${extensionFor(facts.contentType) ?? 'bin'}`;
    const path = join(this.filesDir, fileName);
    let peaksBytes = 0;
    if (peaks) {
      const encoded = this.key ? sealBytes(this.key, encodePeaks(peaks)) : encodePeaks(peaks);
      await writeFileAtomic(peaksPathOf(path), encoded);
      peaksBytes = encoded.length;
    } else {
      await removeQuietly(peaksPathOf(path));
    }
    await file.publish(path).catch((error: unknown) => {
      throw fileErrorOf(error, path);
    });
    const entry: AudioIndexEntry = {
      name,
      labelId: file.labelId,
      file: fileName,
      peaksFile: peaks ? `${fileName}${PEAKS_SUFFIX}` : null,
      contentType: facts.contentType,
      bytes: facts.total,
      diskBytes: (await stat(path)).size + peaksBytes,
      lastUsedAt: this.now(),
    };
    this.entries.set(name, entry);
    this.closeWhenUnread(name);
    await this.evict(new Set([name]));
    await this.writeIndex();
  }

  /** A file an earlier version kept in the clear, now sealed into the store. */
  private async adoptConverted(entry: AudioIndexEntry): Promise<void> {
    this.entries.set(entry.name, entry);
    await this.evict(new Set());
    await this.writeIndex();
  }

  /** A published stream is closed once no player reads from its file any more. */
  private closeWhenUnread(name: string): void {
    const stream = this.streams.get(name);
    if (!stream) return;
    const check = () => {
      if (stream.activeReaders > 0) {
        setTimeout(check, 1000).unref();
        return;
      }
      if (this.streams.get(name) === stream) this.streams.delete(name);
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
    await this.removeNamed(this.nameOf(labelId));
  }

  /** Removes audio the cache holds (held()), whole or partial, with its peaks. */
  async removeHeld(audio: HeldAudio): Promise<void> {
    await this.removeNamed(audio.name);
  }

  private async removeNamed(name: string): Promise<void> {
    await this.removePartial(name);
    const hadStart = this.recordStarts.delete(name);
    const entry = this.entries.get(name);
    if (entry) {
      await this.removeFiles(entry);
      this.entries.delete(name);
    }
    if (entry || hadStart) await this.writeIndex();
  }

  async clear(): Promise<void> {
    for (const name of [...this.streams.keys(), ...this.partials.keys()]) {
      await this.removePartial(name);
    }
    for (const entry of [...this.entries.values()]) {
      await this.removeFiles(entry);
      this.entries.delete(entry.name);
    }
    this.recordStarts.clear();
    await this.writeIndex();
  }

  private async removePartial(name: string): Promise<void> {
    const stream = this.streams.get(name);
    this.streams.delete(name);
    this.partials.delete(name);
    if (stream) await stream.discard();
    else await discardPartialFile(streamPathOf(this.filesDir, name));
  }

  /** Stops every stream (their partial files stay, to be resumed) and writes the index. */
  async close(): Promise<void> {
    await this.legacy?.stop();
    for (const stream of this.streams.values()) await stream.close().catch(() => undefined);
    this.streams.clear();
    if (this.writeTimer) {
      clearTimeout(this.writeTimer);
      this.writeTimer = undefined;
      await this.writeIndex();
    }
    await this.writing;
  }

  private view(labelId: string, entry: AudioIndexEntry): CachedAudio {
    if (entry.labelId === null) {
      // Adopted without its id (AudioIndexEntry.labelId): the id that found it is its own.
      entry.labelId = labelId;
      this.scheduleWrite();
    }
    return {
      labelId,
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
        name: entry.name,
        bytes: entry.diskBytes,
        lastUsedAt: entry.lastUsedAt,
        remove: async () => {
          await this.removeFiles(entry);
          this.entries.delete(entry.name);
        },
      })),
      ...[...this.partials.entries()].map(([name, partial]) => ({
        name,
        bytes: partial.bytes,
        lastUsedAt: partial.lastUsedAt,
        remove: () => this.removePartial(name),
      })),
    ].sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const candidate of candidates) {
      if (used <= this.budget) break;
      if (keep.has(candidate.name) || this.streams.has(candidate.name)) continue;
      try {
        await candidate.remove();
      } catch {
        continue; // in use or locked: try again at the next eviction
      }
      this.recordStarts.delete(candidate.name);
      used -= candidate.bytes;
    }
  }

  private async removeFiles(entry: AudioIndexEntry): Promise<void> {
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

  /** Writes the index, sealed when the cache is (atomically; one write at a time, the last wins). */
  private writeIndex(): Promise<void> {
    const run = async () => {
      const entries = [...this.entries.values()];
      const recordStarts = Object.fromEntries(this.recordStarts);
      const body = Buffer.from(JSON.stringify({ version: INDEX_VERSION, entries, recordStarts }));
      const bytes = this.key ? this.key.seal(INDEX_PURPOSE, body) : body;
      // Not flushed to disk: the folder is the truth, and open() rebuilds what a power cut loses.
      await writeFileAtomic(this.indexPath, bytes, { durable: false }).catch((error: unknown) => {
        throw fileErrorOf(error, this.indexPath);
      });
    };
    this.writing = this.writing.then(run, run);
    return this.writing;
  }

  /**
   * The entries the index lists, by file name, and the records' starts it keeps, by name; none
   * when it is missing or unreadable.
   */
  private async readIndex(): Promise<{
    listed: Map<string, AudioIndexEntry>;
    starts: Map<string, number>;
  }> {
    const listed = new Map<string, AudioIndexEntry>();
    const starts = new Map<string, number>();
    try {
      const bytes = await readFile(this.indexPath);
      const text = this.key ? this.key.unseal(INDEX_PURPOSE, bytes) : bytes;
      const index = JSON.parse(text.toString('utf8')) as {
        version?: number;
        entries?: AudioIndexEntry[];
        recordStarts?: Record<string, unknown>;
      };
      if (index.version === INDEX_VERSION) {
        for (const entry of index.entries ?? []) {
          // An index written before entries kept their id (in the clear the name is the id).
          const labelId = entry.labelId ?? (this.key ? null : entry.name);
          listed.set(entry.file, { ...entry, labelId });
        }
        for (const [name, startMs] of Object.entries(index.recordStarts ?? {})) {
          if (typeof startMs === 'number') starts.set(name, startMs);
        }
      }
    } catch {
      // Missing or unreadable: rebuilt from the files (the starts are told again by a cleanup).
    }
    return { listed, starts };
  }

  /** A whole file the index does not list (a crash came between it and the index): adopted. */
  private async unlisted(fileName: string, bytesOnDisk: number, mtimeMs: number) {
    const path = join(this.filesDir, fileName);
    let contentType: string;
    let bytes = bytesOnDisk;
    if (this.key) {
      // Its kind from its first bytes; a file that does not open is not kept.
      const reader = await SealedFileReader.open(path, this.key).catch(() => null);
      if (!reader) return null;
      try {
        contentType = audioTypeOf(await reader.read(0, SNIFF_BYTES));
        bytes = reader.size;
      } catch {
        return null;
      } finally {
        await reader.close();
      }
    } else {
      contentType = contentTypeForExtension(extname(fileName));
    }
    // In the clear the name is the id; sealed, the id is learnt at the file's first use.
    const name = this.key
      ? fileName
      : fileName.slice(0, fileName.length - extname(fileName).length);
    return { name, labelId: this.key ? null : name, contentType, bytes, lastUsedAt: mtimeMs };
  }

  /** Reads the index and makes it agree with the files on disk. */
  private async load(): Promise<void> {
    const { listed, starts } = await this.readIndex();
    const names = new Set(await readdir(this.filesDir));
    const maxAge = this.options.partialMaxAgeMs ?? 24 * 60 * 60 * 1000;
    const stateSuffix = this.key ? '.state' : '.json';
    for (const fileName of names) {
      const path = join(this.filesDir, fileName);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (fileName.startsWith('.') && fileName.endsWith(STREAM_SUFFIX)) {
        // A partly cached recording: kept (and counted) to be resumed; bytes as the disk holds them.
        const name = fileName.slice(1, -STREAM_SUFFIX.length);
        const labelId = names.has(`${fileName}${stateSuffix}`)
          ? await partialLabelOf(path, this.key)
          : null;
        if (labelId !== null && this.nameOf(labelId) === name) {
          this.partials.set(name, { labelId, bytes: info.blocks * 512, lastUsedAt: info.mtimeMs });
        } else {
          await discardPartialFile(path);
        }
        continue;
      }
      if (fileName.startsWith('.')) {
        // Our temporary files: an index or peaks write cut short, an abandoned download (the
        // state of a partly cached recording is kept with it, above).
        if (
          fileName.endsWith(`${STREAM_SUFFIX}${stateSuffix}`) &&
          names.has(fileName.slice(0, -stateSuffix.length))
        ) {
          continue;
        }
        const stale = fileName.endsWith('.tmp') || this.now() - info.mtimeMs > maxAge;
        if (stale) await removeQuietly(path);
        continue;
      }
      if (fileName.endsWith(PEAKS_SUFFIX)) {
        if (!names.has(fileName.slice(0, -PEAKS_SUFFIX.length))) await removeQuietly(path);
        continue;
      }
      const peaksFile = names.has(`${fileName}${PEAKS_SUFFIX}`)
        ? `${fileName}${PEAKS_SUFFIX}`
        : null;
      const peaksBytes = peaksFile
        ? ((await stat(join(this.filesDir, peaksFile)).catch(() => undefined))?.size ?? 0)
        : 0;
      // The index's entry while the file is the one it describes (sealed: a file of that
      // length is that many bytes longer).
      const known = listed.get(fileName);
      const storedBytes =
        known && (this.key ? new SealedLayout(known.bytes).fileSize : known.bytes);
      const found =
        known && storedBytes === info.size
          ? known
          : await this.unlisted(fileName, info.size, info.mtimeMs);
      if (!found) {
        await removeQuietly(path);
        if (peaksFile) await removeQuietly(join(this.filesDir, peaksFile));
        continue;
      }
      this.entries.set(found.name, {
        ...found,
        file: fileName,
        peaksFile,
        diskBytes: info.size + peaksBytes,
      });
    }
    for (const [name, startMs] of starts) {
      if (this.entries.has(name) || this.partials.has(name)) {
        this.recordStarts.set(name, startMs);
      }
    }
  }
}

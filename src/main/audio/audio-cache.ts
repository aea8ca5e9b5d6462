import { mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import {
  downloadLabelAudio,
  peaksPathOf,
  type AudioSource,
  type DownloadProgress,
} from './download';
import { AudioError } from './errors';
import { removeQuietly, writeFileAtomic } from '../fs/atomic-write';
import { fileErrorOf } from './errors';
import { exists } from './files';
import { contentTypeForExtension, idForFileName } from './names';

/**
 * Downloaded label audio kept for playing, under a size budget, least recently used out first.
 *
 * Layout: `<folder>/index.json` and `<folder>/files/<labelId>.<ext>` (+ `.peaks` beside). Files
 * arrive by downloadLabelAudio (temporary file, flush, rename), so each appears whole or not at
 * all; the index is a convenience written after them and reconciled with the folder at open, so
 * a crash between the two loses nothing (an unlisted whole file is adopted, a listed missing one
 * dropped). One cache per account: the caller gives each account its own folder.
 */

export const DEFAULT_AUDIO_BUDGET = 2 * 1024 ** 3;
const INDEX_VERSION = 1;
const TOUCH_WRITE_DELAY_MS = 2000;

export interface CachedAudio {
  labelId: string;
  path: string;
  /** The waveform peaks beside it (peaks.ts), or null (MP4 without ffmpeg). */
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

export interface AudioCacheOptions {
  folder: string;
  /** Bytes the cache may use (audio and peaks). Default 2 GiB. */
  budgetBytes?: number;
  /** An ffmpeg binary for the peaks of MP4 audio (peaks.ts findFfmpeg); none by default. */
  ffmpeg?: string | null;
  /** Partial downloads left older than this are removed at open. Default one day. */
  partialMaxAgeMs?: number;
  now?: () => number;
}

export interface EnsureOptions {
  signal?: AbortSignal;
  onProgress?: (progress: DownloadProgress) => void;
}

interface InFlight {
  promise: Promise<CachedAudio>;
  controller: AbortController;
  waiters: number;
  listeners: Set<(progress: DownloadProgress) => void>;
}

const isAudioName = (name: string) => !name.startsWith('.') && !name.endsWith('.peaks');

export class AudioCache {
  private readonly entries = new Map<string, IndexEntry>();
  private readonly inFlight = new Map<string, InFlight>();
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

  usage(): { bytes: number; files: number; budgetBytes: number } {
    let bytes = 0;
    for (const entry of this.entries.values()) bytes += entry.diskBytes;
    return { bytes, files: this.entries.size, budgetBytes: this.budget };
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
   * The label's audio from the cache, or downloaded into it (with peaks) first. Callers asking
   * for the same label at once share one download; it stops only when every one of them aborts.
   */
  async ensure(
    source: AudioSource,
    labelId: string,
    options: EnsureOptions = {},
  ): Promise<CachedAudio> {
    const hit = this.get(labelId);
    if (hit) {
      if (await exists(hit.path)) return hit;
      // Deleted behind the cache's back: forget it and fetch it again.
      await this.remove(labelId);
    }
    let flight = this.inFlight.get(labelId);
    if (flight?.controller.signal.aborted) {
      // Every caller of that one cancelled and it is winding down: let it settle (its partial
      // file stays), then start afresh, resuming it.
      await flight.promise.catch(() => undefined);
      return this.ensure(source, labelId, options);
    }
    if (!flight) {
      const controller = new AbortController();
      const listeners = new Set<(progress: DownloadProgress) => void>();
      const started: InFlight = {
        controller,
        listeners,
        waiters: 0,
        promise: this.download(source, labelId, controller.signal, (progress) => {
          for (const listener of listeners) listener(progress);
        }).finally(() => this.inFlight.delete(labelId)),
      };
      started.promise.catch(() => undefined);
      this.inFlight.set(labelId, started);
      flight = started;
    }
    return this.wait(flight, options);
  }

  private wait(flight: InFlight, { signal, onProgress }: EnsureOptions): Promise<CachedAudio> {
    if (signal?.aborted)
      return Promise.reject(new AudioError('cancelled', { cause: signal.reason }));
    flight.waiters++;
    if (onProgress) flight.listeners.add(onProgress);
    return new Promise<CachedAudio>((resolve, reject) => {
      const leave = () => {
        signal?.removeEventListener('abort', onAbort);
        if (onProgress) flight.listeners.delete(onProgress);
        flight.waiters--;
      };
      const onAbort = () => {
        leave();
        if (flight.waiters === 0) flight.controller.abort(signal?.reason);
        reject(new AudioError('cancelled', { cause: signal?.reason }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      flight.promise.then(
        (value) => {
          leave();
          resolve(value);
        },
        (error: unknown) => {
          leave();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private async download(
    source: AudioSource,
    labelId: string,
    signal: AbortSignal,
    onProgress: (progress: DownloadProgress) => void,
  ): Promise<CachedAudio> {
    const result = await downloadLabelAudio(source, labelId, {
      folder: this.filesDir,
      name: idForFileName(labelId),
      onExists: 'replace',
      peaks: true,
      sha256: false,
      ffmpeg: this.options.ffmpeg ?? null,
      signal,
      onProgress,
    });
    const previous = this.entries.get(labelId);
    const file = result.name;
    if (previous && previous.file !== file) await this.removeFiles(previous);
    const peaksBytes = result.peaksPath ? (await stat(result.peaksPath)).size : 0;
    const entry: IndexEntry = {
      labelId,
      file,
      peaksFile: result.peaksPath ? `${file}.peaks` : null,
      contentType: result.contentType,
      bytes: result.bytes,
      diskBytes: result.bytes + peaksBytes,
      lastUsedAt: this.now(),
    };
    if (!result.peaksPath) await removeQuietly(peaksPathOf(result.path));
    this.entries.set(labelId, entry);
    await this.evict(new Set([labelId]));
    await this.writeIndex();
    return this.view(entry);
  }

  /** Changes the budget and evicts at once down to it. */
  async setBudget(bytes: number): Promise<void> {
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError('the budget must be ≥ 0 bytes');
    this.budget = bytes;
    await this.evict(new Set());
    await this.writeIndex();
  }

  async remove(labelId: string): Promise<void> {
    const entry = this.entries.get(labelId);
    if (!entry) return;
    await this.removeFiles(entry);
    this.entries.delete(labelId);
    await this.writeIndex();
  }

  async clear(): Promise<void> {
    for (const entry of [...this.entries.values()]) {
      await this.removeFiles(entry);
      this.entries.delete(entry.labelId);
    }
    await this.writeIndex();
  }

  /** Writes the index if a touch is pending. Call before quitting. */
  async close(): Promise<void> {
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

  /** Least recently used out first until the cache fits its budget; `keep` is never evicted. */
  private async evict(keep: ReadonlySet<string>): Promise<void> {
    let used = this.usage().bytes;
    if (used <= this.budget) return;
    const oldestFirst = [...this.entries.values()].sort((a, b) => a.lastUsedAt - b.lastUsedAt);
    for (const entry of oldestFirst) {
      if (used <= this.budget) break;
      if (keep.has(entry.labelId) || this.inFlight.has(entry.labelId)) continue;
      try {
        await this.removeFiles(entry);
      } catch {
        continue; // in use or locked: try again at the next eviction
      }
      this.entries.delete(entry.labelId);
      used -= entry.diskBytes;
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
      const body = JSON.stringify({ version: INDEX_VERSION, entries }, null, 1);
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
    try {
      const index = JSON.parse(await readFile(this.indexPath, 'utf8')) as {
        version?: number;
        entries?: IndexEntry[];
      };
      if (index.version === INDEX_VERSION) {
        for (const entry of index.entries ?? []) listed.set(entry.file, entry);
      }
    } catch {
      // Missing or unreadable: rebuilt from the files.
    }
    const names = new Set(await readdir(this.filesDir));
    const maxAge = this.options.partialMaxAgeMs ?? 24 * 60 * 60 * 1000;
    for (const name of names) {
      const path = join(this.filesDir, name);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (name.startsWith('.')) {
        // Our temporary files: an index or peaks write cut short, an abandoned partial download.
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
  }
}

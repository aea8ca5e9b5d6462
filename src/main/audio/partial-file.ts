import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fsyncFolder, removeQuietly, writeFileAtomic } from '../base/atomic-write';
import { ByteRanges, type ByteSpan } from './byte-ranges';
import { AudioError } from './errors';
import { publish } from './files';

/**
 * A label's audio file while it is on its way from the service (audio-stream.ts fills it): the
 * bytes at their offsets in a sparse file whose hidden name its owner gives (the audio cache's
 * `.<labelId>.stream`, an export's `.<labelId>.earmark-partial`) and, beside it (`<name>.json`),
 * what the service said of the file and which byte ranges are on disk. A range is written into
 * the state only after the file was flushed past it, so after a crash or a power cut every range
 * the state lists holds the service's bytes; what arrived after the last flush is fetched again.
 */

/** What the service said of the file on the first answer; a resume must find the same. */
export interface RemoteFacts {
  total: number;
  contentType: string;
  /** A strong ETag, the validator of choice for If-Range. */
  etag: string | null;
  /** Where there is no strong ETag: Last-Modified, with the length, stands in (see docs/audio.md). */
  lastModified: string | null;
}

interface StateFile {
  version: 2;
  labelId: string;
  facts: RemoteFacts;
  ranges: ByteSpan[];
}

/** The validator a resumed request sends as If-Range, or null: then a partial file is never resumed across runs. */
export const validatorOf = (facts: RemoteFacts): string | null => facts.etag ?? facts.lastModified;

const sameFacts = (a: RemoteFacts, b: RemoteFacts) =>
  a.total === b.total &&
  a.etag === b.etag &&
  a.lastModified === b.lastModified &&
  a.contentType === b.contentType;

const statePathOf = (dataPath: string) => `${dataPath}.json`;

export class PartialFile {
  /** Bytes on the file: readable now (some perhaps not yet flushed). */
  readonly written: ByteRanges;
  private durableRanges: ByteRanges;
  private checkpointing: Promise<void> = Promise.resolve();
  private closed = false;

  private constructor(
    readonly labelId: string,
    readonly path: string,
    private handle: FileHandle,
    private remote: RemoteFacts | null,
    ranges: readonly ByteSpan[],
  ) {
    this.written = new ByteRanges(ranges);
    this.durableRanges = new ByteRanges(ranges);
  }

  /**
   * Opens the label's partial file at `path`, or starts an empty one (with `mode`: the cache's
   * are private, an export's become the user's file). Kept ranges are trusted
   * only with a validator the next request can send (If-Range): without one, a changed file on
   * the service could be spliced with the old one, so the bytes are dropped and filled again.
   */
  static async open(
    path: string,
    labelId: string,
    { mode = 0o600 }: { mode?: number } = {},
  ): Promise<PartialFile> {
    const state = await readState(statePathOf(path), labelId);
    let kept = state && validatorOf(state.facts) !== null ? state : null;
    // A second link is the file published under its final name (files.ts publishes with a hard
    // link): a crash came before this name was removed. Those bytes are the user's file now;
    // this name goes, and the download starts again (writing here would change that file).
    if (((await stat(path).catch(() => undefined))?.nlink ?? 1) > 1) {
      await discardPartialFile(path);
      kept = null;
    }
    let handle: FileHandle;
    try {
      handle = await open(path, kept ? 'r+' : 'w+', mode);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
      handle = await open(path, 'w+', mode);
      return new PartialFile(labelId, path, handle, null, []);
    }
    if (!kept) return new PartialFile(labelId, path, handle, null, []);
    // A range past the end of the file cannot be on it (the file was cut short behind our back).
    const size = (await handle.stat()).size;
    const ranges = kept.ranges
      .map(([start, end]) => [start, Math.min(end, size)] as const)
      .filter(([start, end]) => end > start);
    return new PartialFile(labelId, path, handle, kept.facts, ranges);
  }

  get facts(): RemoteFacts | null {
    return this.remote;
  }

  /** Ranges on the file and flushed: what a crash keeps. */
  get durable(): readonly ByteSpan[] {
    return this.durableRanges.list();
  }

  /** Disk space used: the bytes present (the file is sparse). */
  diskBytes(): number {
    return this.written.size();
  }

  complete(): boolean {
    return this.remote !== null && this.written.complete(this.remote.total);
  }

  /**
   * The service's description of the file, from an answer. The same as before: nothing changes.
   * Different (another length, validator or type: the file changed): the bytes kept are dropped.
   */
  async adopt(facts: RemoteFacts): Promise<void> {
    if (this.remote && sameFacts(this.remote, facts)) return;
    const changed = this.remote !== null;
    this.remote = facts;
    if (changed) await this.clear();
    await this.saveState(this.durableRanges.list());
  }

  /** Writes bytes at their offset (all of them: a short write is continued). */
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.handle.write(
        bytes,
        done,
        bytes.length - done,
        offset + done,
      );
      // A nearly full disk takes part of a write without an error; the rest then fails
      // (ENOSPC). A write that takes nothing at all would never end.
      if (bytesWritten === 0) throw new AudioError('io_error', { detail: 'a write took no bytes' });
      done += bytesWritten;
    }
    this.written.add(offset, offset + bytes.length);
  }

  /** Reads up to `length` bytes at `position`; only present bytes should be asked for. */
  async read(buffer: Buffer, length: number, position: number): Promise<number> {
    const { bytesRead } = await this.handle.read(buffer, 0, length, position);
    return bytesRead;
  }

  /**
   * Flushes the file, then records as durable the ranges written before the flush began. One at a
   * time; the writes may go on meanwhile.
   */
  checkpoint(): Promise<void> {
    const run = async () => {
      if (this.closed || !this.remote) return;
      const ranges = this.written.list();
      await this.handle.datasync();
      this.durableRanges = new ByteRanges(ranges);
      await this.saveState(ranges);
    };
    this.checkpointing = this.checkpointing.then(run, run);
    return this.checkpointing;
  }

  /**
   * The whole file, flushed, under `finalPath`; the state goes. `replace` renames over whatever
   * is there; otherwise a file that took the name meanwhile is never overwritten (file_exists,
   * files.ts). The handle stays readable.
   */
  async publish(finalPath: string, { replace = true } = {}): Promise<void> {
    await this.checkpointing.catch(() => undefined);
    await this.handle.datasync();
    await publish(this.path, finalPath, replace);
    await removeQuietly(statePathOf(this.path));
    await fsyncFolder(dirname(finalPath));
  }

  /** Drops every byte and the description: the next answer starts the file again. */
  async reset(): Promise<void> {
    this.remote = null;
    await this.clear();
    await removeQuietly(statePathOf(this.path));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.checkpointing.catch(() => undefined);
    this.closed = true;
    await this.handle.close();
  }

  /** Closes it and removes both files. */
  async discard(): Promise<void> {
    await this.close().catch(() => undefined);
    await removeQuietly(this.path);
    await removeQuietly(statePathOf(this.path));
  }

  private async clear(): Promise<void> {
    await this.checkpointing.catch(() => undefined);
    this.written.clear();
    this.durableRanges = new ByteRanges();
    await this.handle.truncate(0);
  }

  private async saveState(ranges: readonly ByteSpan[]): Promise<void> {
    if (!this.remote) return;
    const state: StateFile = {
      version: 2,
      labelId: this.labelId,
      facts: this.remote,
      ranges: [...ranges],
    };
    await writeFileAtomic(statePathOf(this.path), JSON.stringify(state));
  }
}

async function readState(path: string, labelId: string): Promise<StateFile | null> {
  try {
    const state = JSON.parse(await readFile(path, 'utf8')) as Partial<StateFile>;
    const facts = state.facts;
    const valid =
      state.version === 2 &&
      state.labelId === labelId &&
      facts !== undefined &&
      Number.isSafeInteger(facts.total) &&
      facts.total >= 0 &&
      typeof facts.contentType === 'string' &&
      Array.isArray(state.ranges) &&
      state.ranges.every(
        (span) =>
          Array.isArray(span) &&
          Number.isSafeInteger(span[0]) &&
          Number.isSafeInteger(span[1]) &&
          span[0] >= 0 &&
          span[1] <= facts.total,
      );
    return valid ? (state as StateFile) : null;
  } catch {
    return null;
  }
}

/** Removes a partial file and its state without opening it (eviction, an account's removal, an export given up). */
export async function discardPartialFile(dataPath: string): Promise<void> {
  await removeQuietly(dataPath);
  await removeQuietly(statePathOf(dataPath));
}

import { open, readFile, stat, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AccountKey } from '../at-rest/account-key';
import {
  CHUNK_BYTES,
  ChunkCipher,
  SEALED_HEADER_BYTES,
  type ChunkKey,
} from '../at-rest/sealed-file';
import { fsyncFolder, removeQuietly, writeAll, writeFileAtomic } from '../base/atomic-write';
import { ByteRanges, type ByteSpan } from './byte-ranges';
import { publish } from './files';
import { SealedChunks } from './sealed-chunks';

/**
 * A label's audio file while it is on its way from the service (audio-stream.ts fills it): the
 * bytes at their offsets in a sparse file whose hidden name its owner gives (the audio cache's
 * `.<name>.stream`, an export's `.<labelId>.earmark-partial`) and, beside it, what the service
 * said of the file and which byte ranges are on disk. A range is written into the state only
 * after the file was flushed past it, so after a crash or a power cut every range the state lists
 * holds the service's bytes; what arrived after the last flush is fetched again.
 *
 * Sealed (the audio cache's, given the account's key): the file is a sealed file
 * (at-rest/sealed-file.ts) whose chunks are written as each is whole (sealed-chunks.ts), so the
 * state lists whole chunks only; the state itself is sealed too (`<name>.state`: it names the
 * record). In the clear (an export's, the user's file): the bytes as they come, and
 * `<name>.json`.
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

const statePathOf = (dataPath: string, sealed: boolean) =>
  `${dataPath}${sealed ? '.state' : '.json'}`;
/** What a sealed state is sealed for. */
const SEALED_STATE = 'download state';

export interface PartialFileOptions {
  /** The new file's mode: the cache's are private (the default), an export's the user's. */
  mode?: number;
  /** Sealed under this account's key (the audio cache's); in the clear without. */
  key?: AccountKey;
}

export class PartialFile {
  /** Bytes on the file: readable now (some perhaps not yet flushed, or waiting to be sealed). */
  readonly written: ByteRanges;
  private durableRanges: ByteRanges;
  private checkpointing: Promise<void> = Promise.resolve();
  private closed = false;
  /** The sealed body (null in the clear, or before the service described the file). */
  private chunks: SealedChunks | null;

  private constructor(
    readonly labelId: string,
    readonly path: string,
    private handle: FileHandle,
    private remote: RemoteFacts | null,
    ranges: readonly ByteSpan[],
    private readonly key: AccountKey | undefined,
    cipher: ChunkCipher | null,
  ) {
    this.written = new ByteRanges(ranges);
    this.durableRanges = new ByteRanges(ranges);
    this.chunks = cipher && new SealedChunks(handle, cipher, ranges);
  }

  /**
   * Opens the label's partial file at `path`, or starts an empty one. Kept ranges are trusted
   * only with a validator the next request can send (If-Range): without one, a changed file on
   * the service could be spliced with the old one, so the bytes are dropped and filled again.
   */
  static async open(
    path: string,
    labelId: string,
    { mode = 0o600, key }: PartialFileOptions = {},
  ): Promise<PartialFile> {
    const state = await readState(statePathOf(path, key !== undefined), labelId, key);
    let kept = state && validatorOf(state.facts) !== null ? state : null;
    // A second link is the file published under its final name (files.ts publishes with a hard
    // link): a crash came before this name was removed. Those bytes are the user's file now;
    // this name goes, and the download starts again (writing here would change that file).
    if (((await stat(path).catch(() => undefined))?.nlink ?? 1) > 1) {
      await discardPartialFile(path);
      kept = null;
    }
    const empty = (handle: FileHandle) =>
      new PartialFile(labelId, path, handle, null, [], key, null);
    let handle: FileHandle;
    try {
      handle = await open(path, kept ? 'r+' : 'w+', mode);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
      return empty(await open(path, 'w+', mode));
    }
    if (!kept) return empty(handle);
    const size = (await handle.stat()).size;
    let cipher: ChunkCipher | null = null;
    if (key) {
      cipher = await readCipher(handle, key);
      // Another file than the state describes (or no sealed file at all): start again.
      if (cipher?.total !== kept.facts.total) {
        await handle.truncate(0);
        return empty(handle);
      }
    }
    // A range past the end of the file cannot be on it (the file was cut short behind our back);
    // a sealed file lists whole chunks only.
    const ranges = kept.ranges
      .map(([start, end]): ByteSpan =>
        cipher ? wholeChunks(cipher, start, end, size) : [start, Math.min(end, size)],
      )
      .filter(([start, end]) => end > start);
    return new PartialFile(labelId, path, handle, kept.facts, ranges, key, cipher);
  }

  get facts(): RemoteFacts | null {
    return this.remote;
  }

  /**
   * Bytes on the file in their final form, from which the digest thread may read: for a sealed
   * file, its whole chunks (the others wait in memory); otherwise every byte written.
   */
  get stored(): ByteRanges {
    return this.chunks?.stored ?? this.written;
  }

  /** What the digest thread needs to open the file's chunks; null in the clear. */
  get chunkKey(): ChunkKey | null {
    return this.chunks?.cipher.chunkKey ?? null;
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
    if (this.key && !this.chunks) {
      // A sealed file of this length, with an id (so a key) of its own: a file started again
      // never seals a chunk under the key and nonce of an earlier life.
      const cipher = ChunkCipher.create(this.key, facts.total);
      await writeAll(this.handle, cipher.header, 0);
      this.chunks = new SealedChunks(this.handle, cipher);
    }
    await this.saveState(this.durableRanges.list());
  }

  /** Writes bytes at their offset (all of them: a short write is continued). */
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    if (this.chunks) await this.chunks.write(offset, bytes);
    else await writeAll(this.handle, bytes, offset);
    this.written.add(offset, offset + bytes.length);
  }

  /**
   * Reads up to `length` bytes at `position`; only present bytes should be asked for. A sealed
   * chunk that fails its check throws SealedDataError (never its bytes).
   */
  async read(buffer: Buffer, length: number, position: number): Promise<number> {
    if (this.chunks) return this.chunks.read(buffer, length, position);
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
      const ranges = this.stored.list();
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
    await removeQuietly(this.statePath);
    await fsyncFolder(dirname(finalPath));
  }

  /** Drops every byte and the description: the next answer starts the file again. */
  async reset(): Promise<void> {
    this.remote = null;
    await this.clear();
    await removeQuietly(this.statePath);
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
    await removeQuietly(this.statePath);
  }

  private get statePath(): string {
    return statePathOf(this.path, this.key !== undefined);
  }

  private async clear(): Promise<void> {
    await this.checkpointing.catch(() => undefined);
    this.written.clear();
    this.chunks?.clear();
    this.chunks = null;
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
    const text = Buffer.from(JSON.stringify(state));
    await writeFileAtomic(this.statePath, this.key ? this.key.seal(SEALED_STATE, text) : text);
  }
}

/** The sealed file's cipher, from its header; null when it has none (or not one of this key's). */
async function readCipher(handle: FileHandle, key: AccountKey): Promise<ChunkCipher | null> {
  const header = Buffer.alloc(SEALED_HEADER_BYTES);
  const { bytesRead } = await handle.read(header, 0, SEALED_HEADER_BYTES, 0);
  try {
    return bytesRead === SEALED_HEADER_BYTES ? ChunkCipher.open(key, header) : null;
  } catch {
    return null;
  }
}

/** The part of [start, end) whose chunks are whole on a sealed file of `size` bytes. */
function wholeChunks(cipher: ChunkCipher, start: number, end: number, size: number): ByteSpan {
  // Rounded inwards to chunk boundaries (the last chunk ends at the file's end).
  const boundary = (offset: number) => offset === cipher.total || offset % CHUNK_BYTES === 0;
  const from = boundary(start) ? start : cipher.plainEnd(cipher.chunkAt(start));
  let to = Math.min(end, cipher.total);
  if (!boundary(to)) to = cipher.plainStart(cipher.chunkAt(to));
  // Chunks the file does not hold in full (cut short behind our back) are not on it.
  while (to > from) {
    const last = cipher.chunkAt(to - 1);
    if (cipher.position(last) + cipher.sealedLength(last) <= size) break;
    to = cipher.plainStart(last);
  }
  return [from, Math.max(from, to)];
}

/** A partial file's state: what the service said of the file, its ranges on disk. */
async function readState(
  path: string,
  labelId: string,
  key: AccountKey | undefined,
): Promise<StateFile | null> {
  try {
    const bytes = await readFile(path);
    const text = key ? key.unseal(SEALED_STATE, bytes) : bytes;
    const state = JSON.parse(text.toString('utf8')) as Partial<StateFile>;
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
  await removeQuietly(statePathOf(dataPath, false));
  await removeQuietly(statePathOf(dataPath, true));
}

/** The labelId a partial file's state names, or null when it has none readable (with `key`). */
export async function partialLabelOf(
  dataPath: string,
  key: AccountKey | undefined,
): Promise<string | null> {
  try {
    const bytes = await readFile(statePathOf(dataPath, key !== undefined));
    const text = key ? key.unseal(SEALED_STATE, bytes) : bytes;
    const { labelId } = JSON.parse(text.toString('utf8')) as Partial<StateFile>;
    return typeof labelId === 'string' ? labelId : null;
  } catch {
    return null;
  }
}

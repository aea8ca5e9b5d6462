import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, readFile, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { Readable } from 'node:stream';
import { writeAll } from '../base/atomic-write';
import { FILE_ID_BYTES, SealedDataError, type AccountKey } from './account-key';

/**
 * The sealed file format of the audio cache (audio, partly cached audio, peaks): the bytes in
 * chunks of 64 KiB, each sealed on its own with AES-256-GCM, so a player's Range read or a seek
 * decrypts only the chunks it touches, and a download writes each chunk once it is whole.
 *
 *   header (64 bytes): "EMSF", version 1, the file's random id (16 bytes), the plain length
 *                      (u64), the chunk size (u32), zeros
 *   chunk i at 64 + i × (65,536 + 16): its sealed bytes, then its 16-byte tag
 *
 * Each file has its own key, derived from the account's key and the file's random id, so no two
 * files (nor two lives of one partial file, which gets a new id when it starts again) share a
 * key, and a chunk's nonce can be its index: 8 bytes of index, then a last byte that marks the
 * final chunk. The header is every chunk's associated data. So a chunk is refused when its bytes
 * changed, when it moved to another place (its index is in its nonce), when it comes from
 * another file (another key), when the header's length was changed, and a file cut short cannot
 * pass as whole: its last chunk is not marked final, and the length says more is due.
 */

export const CHUNK_BYTES = 64 * 1024;
export const SEALED_HEADER_BYTES = 64;
const TAG_BYTES = 16;
const MAGIC = 'EMSF';
const VERSION = 1;

/** Where each chunk of a sealed file of `total` plain bytes lies. */
export class SealedLayout {
  readonly chunks: number;

  constructor(readonly total: number) {
    this.chunks = Math.ceil(total / CHUNK_BYTES);
  }

  chunkAt(offset: number): number {
    return Math.floor(offset / CHUNK_BYTES);
  }

  plainStart(index: number): number {
    return index * CHUNK_BYTES;
  }

  plainEnd(index: number): number {
    return Math.min(this.total, (index + 1) * CHUNK_BYTES);
  }

  /** Where chunk `index` starts in the file. */
  position(index: number): number {
    return SEALED_HEADER_BYTES + index * (CHUNK_BYTES + TAG_BYTES);
  }

  sealedLength(index: number): number {
    return this.plainEnd(index) - this.plainStart(index) + TAG_BYTES;
  }

  /** The size of the whole sealed file. */
  get fileSize(): number {
    return SEALED_HEADER_BYTES + this.total + this.chunks * TAG_BYTES;
  }
}

/** What a worker thread needs to open a file's chunks (never the account's key). */
export interface ChunkKey {
  fileKey: Buffer;
  header: Buffer;
}

/** One sealed file's header and key: seals and opens its chunks. */
export class ChunkCipher extends SealedLayout {
  private constructor(
    private readonly fileKey: Buffer,
    readonly header: Buffer,
    total: number,
  ) {
    super(total);
  }

  /** A new file of `total` plain bytes, with a new random id (so a key of its own). */
  static create(key: AccountKey, total: number): ChunkCipher {
    if (!Number.isSafeInteger(total) || total < 0) throw new RangeError('a length ≥ 0');
    const fileId = randomBytes(FILE_ID_BYTES);
    const header = Buffer.alloc(SEALED_HEADER_BYTES);
    header.write(MAGIC, 0, 'latin1');
    header.writeUInt8(VERSION, 4);
    fileId.copy(header, 8);
    header.writeBigUInt64LE(BigInt(total), 24);
    header.writeUInt32LE(CHUNK_BYTES, 32);
    return new ChunkCipher(key.fileKey(fileId), header, total);
  }

  /** The file whose header this is; SealedDataError when it is no sealed file of this version. */
  static open(key: AccountKey, header: Uint8Array): ChunkCipher {
    return ChunkCipher.fromKey({ fileKey: key.fileKey(fileIdOf(header)), header: copy(header) });
  }

  /** In a worker thread, from what `chunkKey` gave it (a message turns Buffers into arrays). */
  static fromKey(key: { fileKey: Uint8Array; header: Uint8Array }): ChunkCipher {
    const header = copy(key.header);
    fileIdOf(header);
    const total = Number(header.readBigUInt64LE(24));
    if (!Number.isSafeInteger(total)) throw new SealedDataError('a sealed file of no length');
    return new ChunkCipher(Buffer.from(key.fileKey), header, total);
  }

  get chunkKey(): ChunkKey {
    return { fileKey: this.fileKey, header: this.header };
  }

  private nonce(index: number): Buffer {
    const nonce = Buffer.alloc(12);
    nonce.writeBigUInt64BE(BigInt(index), 0);
    nonce.writeUInt8(index === this.chunks - 1 ? 1 : 0, 11);
    return nonce;
  }

  /** Chunk `index` sealed: its plain bytes must be the whole chunk. */
  seal(index: number, plain: Uint8Array): Buffer {
    if (plain.length !== this.sealedLength(index) - TAG_BYTES)
      throw new RangeError(`chunk ${index} is ${this.sealedLength(index) - TAG_BYTES} bytes`);
    const cipher = createCipheriv('aes-256-gcm', this.fileKey, this.nonce(index));
    cipher.setAAD(this.header);
    return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }

  /** Chunk `index` opened; SealedDataError when it is not the chunk sealed there. */
  open(index: number, sealed: Uint8Array): Buffer {
    if (index >= this.chunks || sealed.length !== this.sealedLength(index))
      throw new SealedDataError(`chunk ${index} is missing or cut short`);
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.length);
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.fileKey, this.nonce(index));
      decipher.setAAD(this.header);
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch (error) {
      throw new SealedDataError(`chunk ${index} failed its integrity check`, { cause: error });
    }
  }

  /**
   * The plain bytes [start, end) from the file: the chunks they lie in read in one go and each
   * opened. SealedDataError for a chunk that does not open (or is not there).
   */
  async readPlain(handle: FileHandle, start: number, end: number): Promise<Buffer> {
    if (end <= start) return Buffer.alloc(0);
    const first = this.chunkAt(start);
    const last = this.chunkAt(end - 1);
    const from = this.position(first);
    const length = this.position(last) + this.sealedLength(last) - from;
    const sealed = Buffer.allocUnsafe(length);
    const { bytesRead } = await handle.read(sealed, 0, length, from);
    const parts: Buffer[] = [];
    for (let index = first; index <= last; index++) {
      const at = this.position(index) - from;
      const size = this.sealedLength(index);
      if (at + size > bytesRead) throw new SealedDataError(`chunk ${index} is cut short`);
      parts.push(this.open(index, sealed.subarray(at, at + size)));
    }
    const plain = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
    const offset = start - this.plainStart(first);
    return plain.subarray(offset, offset + (end - start));
  }
}

function fileIdOf(header: Uint8Array): Buffer {
  const bytes = Buffer.from(header.buffer, header.byteOffset, header.length);
  if (
    bytes.length < SEALED_HEADER_BYTES ||
    bytes.toString('latin1', 0, 4) !== MAGIC ||
    bytes.readUInt8(4) !== VERSION ||
    bytes.readUInt32LE(32) !== CHUNK_BYTES
  )
    throw new SealedDataError('not a sealed file of this version');
  return bytes.subarray(8, 8 + FILE_ID_BYTES);
}

const copy = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, SEALED_HEADER_BYTES));

/** `plain` as a whole sealed file's bytes (the peaks: small, written at once). */
export function sealBytes(key: AccountKey, plain: Uint8Array): Buffer {
  const cipher = ChunkCipher.create(key, plain.length);
  const parts = [cipher.header];
  for (let index = 0; index < cipher.chunks; index++) {
    parts.push(
      cipher.seal(index, plain.subarray(cipher.plainStart(index), cipher.plainEnd(index))),
    );
  }
  return Buffer.concat(parts);
}

/** A whole sealed file's plain bytes; SealedDataError when any part of it does not open. */
export function unsealBytes(key: AccountKey, sealed: Uint8Array): Buffer {
  const cipher = ChunkCipher.open(key, sealed);
  const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.length);
  if (bytes.length !== cipher.fileSize)
    throw new SealedDataError(`a sealed file of ${bytes.length} bytes, not ${cipher.fileSize}`);
  const parts: Buffer[] = [];
  for (let index = 0; index < cipher.chunks; index++) {
    const at = cipher.position(index);
    parts.push(cipher.open(index, bytes.subarray(at, at + cipher.sealedLength(index))));
  }
  return Buffer.concat(parts);
}

export const readSealedFile = async (path: string, key: AccountKey): Promise<Buffer> =>
  unsealBytes(key, await readFile(path));

/** How many plain bytes a reader's stream reads and opens at a time (four chunks). */
const STREAM_CHUNKS = 4;

/**
 * A whole sealed file opened for reading (the media route): its plain length, and any range of
 * its plain bytes, read and opened chunk by chunk. Each read checks the chunks it touches.
 */
export class SealedFileReader {
  private constructor(
    private readonly handle: FileHandle,
    private readonly cipher: ChunkCipher,
    readonly mtimeMs: number,
  ) {}

  /** Opens `path`; SealedDataError when it is not a whole sealed file of this key's. */
  static async open(path: string, key: AccountKey): Promise<SealedFileReader> {
    const handle = await open(path, 'r');
    try {
      const info = await handle.stat();
      const header = Buffer.alloc(SEALED_HEADER_BYTES);
      await handle.read(header, 0, SEALED_HEADER_BYTES, 0);
      const cipher = ChunkCipher.open(key, header);
      if (!info.isFile() || info.size !== cipher.fileSize)
        throw new SealedDataError(`a sealed file of ${info.size} bytes, not ${cipher.fileSize}`);
      return new SealedFileReader(handle, cipher, info.mtimeMs);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /** The plain length. */
  get size(): number {
    return this.cipher.total;
  }

  /** The plain bytes [start, end). */
  read(start: number, end: number): Promise<Buffer> {
    return this.cipher.readPlain(this.handle, start, Math.min(end, this.size));
  }

  /**
   * The plain bytes [start, end] (inclusive, as Range says) as a stream that owns the file and
   * closes it when it ends or is destroyed; it errors (SealedDataError) at a chunk that does not
   * open, before a byte of that chunk is sent.
   */
  stream(start: number, end: number): Readable {
    const step = STREAM_CHUNKS * CHUNK_BYTES;
    const read = (from: number, to: number) => this.read(from, to);
    async function* chunks() {
      let position = start;
      while (position <= end) {
        const next = Math.min(end + 1, (Math.floor(position / step) + 1) * step);
        const plain = await read(position, next);
        position = next;
        yield plain;
      }
    }
    const body = Readable.from(chunks(), { objectMode: false, highWaterMark: step });
    body.once('close', () => void this.close());
    return body;
  }

  close(): Promise<void> {
    return this.handle.close().catch(() => undefined);
  }
}

/**
 * Seals the file at `source` into a new sealed file at `target`, a block at a time (an audio file
 * an earlier version kept in the clear): written beside it under a temporary name, flushed, then
 * renamed, so `target` is whole or absent. The source stays; its owner removes it.
 */
export async function sealFile(source: string, target: string, key: AccountKey): Promise<void> {
  const temporary = `${dirname(target)}/.${basename(target)}.sealing.tmp`;
  const input = await open(source, 'r');
  try {
    const cipher = ChunkCipher.create(key, (await input.stat()).size);
    const output = await open(temporary, 'w', 0o600);
    try {
      await writeAll(output, cipher.header, 0);
      const block = Buffer.allocUnsafe(STREAM_CHUNKS * CHUNK_BYTES);
      for (let index = 0; index < cipher.chunks; index += STREAM_CHUNKS) {
        const start = cipher.plainStart(index);
        const { bytesRead } = await input.read(block, 0, block.length, start);
        if (bytesRead < Math.min(block.length, cipher.total - start))
          throw new Error(`${source} changed while it was sealed`);
        const last = Math.min(cipher.chunks, index + STREAM_CHUNKS);
        const sealed = [];
        for (let chunk = index; chunk < last; chunk++) {
          const from = cipher.plainStart(chunk) - start;
          sealed.push(cipher.seal(chunk, block.subarray(from, cipher.plainEnd(chunk) - start)));
        }
        const bytes = Buffer.concat(sealed);
        await writeAll(output, bytes, cipher.position(index));
      }
      await output.sync();
    } finally {
      await output.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  } finally {
    await input.close();
  }
}

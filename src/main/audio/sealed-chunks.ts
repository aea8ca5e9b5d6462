import type { FileHandle } from 'node:fs/promises';
import { type ChunkCipher } from '../at-rest/sealed-file';
import { ByteRanges, type ByteSpan } from './byte-ranges';
import { writeAll } from '../base/atomic-write';

/**
 * A partly downloaded recording's bytes in a sealed file (at-rest/sealed-file.ts): a chunk is
 * sealed and written once all its bytes have arrived, in whatever order they come (a seek fills
 * the middle first); until then its bytes wait in memory, readable. So the file only ever holds
 * whole sealed chunks, and each is sealed once: its nonce is its index, under the file's own key.
 * Memory: one partly filled chunk (64 KiB) where each request under way, or stopped by a seek,
 * left off.
 */
export class SealedChunks {
  /** The plain bytes whose chunks are sealed on the file. */
  readonly stored: ByteRanges;
  private readonly pending = new Map<number, { bytes: Buffer; present: ByteRanges }>();

  constructor(
    private readonly handle: FileHandle,
    readonly cipher: ChunkCipher,
    stored: readonly ByteSpan[] = [],
  ) {
    this.stored = new ByteRanges(stored);
  }

  /** Takes plain bytes at their offset; writes each chunk they complete. */
  async write(offset: number, bytes: Uint8Array): Promise<void> {
    const { cipher } = this;
    let at = offset;
    while (at < offset + bytes.length) {
      const index = cipher.chunkAt(at);
      const start = cipher.plainStart(index);
      const end = cipher.plainEnd(index);
      const upTo = Math.min(end, offset + bytes.length);
      // Bytes of a chunk already sealed on the file are the same bytes (the same file on the
      // service: partial-file.ts drops everything when it changes): sealing it again is skipped.
      if (!this.stored.covers(start, end)) {
        let chunk = this.pending.get(index);
        if (!chunk) {
          chunk = { bytes: Buffer.alloc(end - start), present: new ByteRanges() };
          this.pending.set(index, chunk);
        }
        chunk.bytes.set(bytes.subarray(at - offset, upTo - offset), at - start);
        chunk.present.add(at - start, upTo - start);
        if (chunk.present.complete(end - start)) {
          await writeAll(this.handle, cipher.seal(index, chunk.bytes), cipher.position(index));
          this.pending.delete(index);
          this.stored.add(start, end);
        }
      }
      at = upTo;
    }
  }

  /** Reads plain bytes present (sealed on the file, or waiting in memory) into `buffer`. */
  async read(buffer: Buffer, length: number, position: number): Promise<number> {
    const { cipher } = this;
    const end = Math.min(position + length, cipher.total);
    let at = position;
    while (at < end) {
      const index = cipher.chunkAt(at);
      const chunkStart = cipher.plainStart(index);
      const pending = this.pending.get(index);
      if (pending) {
        const upTo = Math.min(end, chunkStart + pending.present.presentUntil(at - chunkStart));
        if (upTo <= at) break;
        pending.bytes.copy(buffer, at - position, at - chunkStart, upTo - chunkStart);
        at = upTo;
        continue;
      }
      // The run of sealed chunks from here (never a waiting one among them), read and opened
      // together.
      const upTo = Math.min(end, this.stored.presentUntil(at));
      if (upTo <= at) break;
      const plain = await cipher.readPlain(this.handle, at, upTo);
      plain.copy(buffer, at - position);
      at = upTo;
    }
    return at - position;
  }

  /** Drops the bytes waiting in memory (the file starts again). */
  clear(): void {
    this.pending.clear();
    this.stored.clear();
  }
}

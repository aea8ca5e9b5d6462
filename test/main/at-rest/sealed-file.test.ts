import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AccountKey, SealedDataError } from '../../../src/main/at-rest/account-key';
import {
  CHUNK_BYTES,
  ChunkCipher,
  SEALED_HEADER_BYTES,
  SealedFileReader,
  readSealedFile,
  sealBytes,
  unsealBytes,
} from '../../../src/main/at-rest/sealed-file';
import { tempFolder } from '../audio/fixtures';

const key = AccountKey.random().key;
const TAG = 16;

/** Chunk `index`'s place and length in a sealed file of `total` plain bytes. */
const chunkSpan = (total: number, index: number) => {
  const cipher = ChunkCipher.create(key, total);
  return { at: cipher.position(index), length: cipher.sealedLength(index) };
};

async function sealedFile(plain: Buffer): Promise<string> {
  const path = join(tempFolder('earmark-sealed-'), 'file');
  writeFileSync(path, sealBytes(key, plain));
  return path;
}

async function readAll(reader: SealedFileReader, start: number, end: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of reader.stream(start, end)) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('a sealed file', () => {
  it('gives back every length, whole and by any range, and holds none of its plain bytes', async () => {
    for (const total of [
      0,
      1,
      CHUNK_BYTES - 1,
      CHUNK_BYTES,
      CHUNK_BYTES + 1,
      3 * CHUNK_BYTES + 17,
    ]) {
      const plain = randomBytes(total);
      const sealed = sealBytes(key, plain);
      expect(sealed.length).toBe(
        SEALED_HEADER_BYTES + total + Math.ceil(total / CHUNK_BYTES) * TAG,
      );
      expect(unsealBytes(key, sealed).equals(plain)).toBe(true);
      if (total >= 32) expect(sealed.includes(plain.subarray(0, 32))).toBe(false);
      const path = await sealedFile(plain);
      const reader = await SealedFileReader.open(path, key);
      expect(reader.size).toBe(total);
      for (const [start, end] of [
        [0, total],
        [1, total - 1],
        [CHUNK_BYTES - 3, CHUNK_BYTES + 5],
        [total - 1, total],
      ] as const) {
        if (start < 0 || end <= start || end > total) continue;
        expect((await reader.read(start, end)).equals(plain.subarray(start, end))).toBe(true);
      }
      await reader.close();
      if (total > 0) {
        const streamed = await readAll(
          await SealedFileReader.open(path, key),
          5 % total,
          total - 1,
        );
        expect(streamed.equals(plain.subarray(5 % total, total))).toBe(true);
      }
    }
  });

  it('refuses a chunk whose bytes changed, and only that chunk', async () => {
    const total = 3 * CHUNK_BYTES;
    const plain = randomBytes(total);
    const path = await sealedFile(plain);
    const bytes = readFileSync(path);
    const { at } = chunkSpan(total, 1);
    bytes[at + 100]! ^= 0x01;
    writeFileSync(path, bytes);
    const reader = await SealedFileReader.open(path, key);
    expect((await reader.read(0, CHUNK_BYTES)).equals(plain.subarray(0, CHUNK_BYTES))).toBe(true);
    await expect(reader.read(CHUNK_BYTES, CHUNK_BYTES + 10)).rejects.toThrow(SealedDataError);
    expect(
      (await reader.read(2 * CHUNK_BYTES, total)).equals(plain.subarray(2 * CHUNK_BYTES)),
    ).toBe(true);
    await reader.close();
    // A stream over it stops at that chunk: nothing of it, or after it, comes out.
    const parts: Buffer[] = [];
    const stream = (await SealedFileReader.open(path, key)).stream(0, total - 1);
    await expect(
      (async () => {
        for await (const part of stream) parts.push(part as Buffer);
      })(),
    ).rejects.toThrow(SealedDataError);
    expect(Buffer.concat(parts).length).toBeLessThan(CHUNK_BYTES + 1);
    expect(() => unsealBytes(key, bytes)).toThrow(SealedDataError);
  });

  it('refuses chunks swapped, a chunk from another file, a changed header and another key', async () => {
    const total = 2 * CHUNK_BYTES;
    const plain = randomBytes(total);
    const sealed = sealBytes(key, plain);
    const a = chunkSpan(total, 0);
    const b = chunkSpan(total, 1);

    // Two whole chunks of the same length, swapped: each is refused in its new place.
    const swapped = Buffer.from(sealed);
    sealed.copy(swapped, a.at, b.at, b.at + b.length);
    sealed.copy(swapped, b.at, a.at, a.at + a.length);
    expect(() => unsealBytes(key, swapped)).toThrow(/chunk 0 failed/);

    // The same chunk of another file sealed under the same account key (its own file key).
    const other = sealBytes(key, plain);
    const spliced = Buffer.from(sealed);
    other.copy(spliced, a.at, a.at, a.at + a.length);
    expect(() => unsealBytes(key, spliced)).toThrow(/chunk 0 failed/);

    // The header's length changed: every chunk's associated data changed with it.
    const header = Buffer.from(sealed);
    header.writeBigUInt64LE(BigInt(total - 1), 24);
    expect(() => unsealBytes(key, header.subarray(0, header.length - 1))).toThrow(SealedDataError);

    // Another account's key.
    expect(() => unsealBytes(AccountKey.random().key, sealed)).toThrow(SealedDataError);
    // Not a sealed file at all.
    expect(() => unsealBytes(key, Buffer.from('RIFF....WAVEfmt '.repeat(8)))).toThrow(
      /not a sealed file/,
    );
  });

  it('refuses a file cut short, even with its length made to match', async () => {
    const total = 3 * CHUNK_BYTES;
    const plain = randomBytes(total);
    const sealed = sealBytes(key, plain);
    const last = chunkSpan(total, 2);
    const cut = sealed.subarray(0, last.at);
    expect(() => unsealBytes(key, cut)).toThrow(/a sealed file of \d+ bytes, not \d+/);
    const path = join(tempFolder('earmark-sealed-'), 'cut');
    writeFileSync(path, cut);
    await expect(SealedFileReader.open(path, key)).rejects.toThrow(SealedDataError);
    // The header rewritten to say two chunks: the second one was sealed as not final, and the
    // header is every chunk's associated data.
    const relabelled = Buffer.from(cut);
    relabelled.writeBigUInt64LE(BigInt(2 * CHUNK_BYTES), 24);
    expect(() => unsealBytes(key, relabelled)).toThrow(SealedDataError);
    await expect(readSealedFile(path, key)).rejects.toThrow(SealedDataError);
  });
});

describe('an account key', () => {
  it('names a record the same way each time, differently under another key, and hides it', () => {
    const labelId = '0b0e4c7e-6f3e-4d1e-9a57-3b1e2f4c5d6e';
    expect(key.fileName(labelId)).toBe(key.fileName(labelId));
    expect(key.fileName(labelId)).toMatch(/^[0-9a-f]{64}$/);
    expect(key.fileName(labelId)).not.toBe(AccountKey.random().key.fileName(labelId));
    expect(key.fileName(labelId)).not.toContain(labelId.slice(0, 8));
  });

  it('seals a record for one purpose only', () => {
    const sealed = key.seal('an index', Buffer.from('{"a":1}'));
    expect(key.unseal('an index', sealed).toString()).toBe('{"a":1}');
    expect(() => key.unseal('a state', sealed)).toThrow(SealedDataError);
    expect(() => AccountKey.random().key.unseal('an index', sealed)).toThrow(SealedDataError);
  });

  it('gives the database a raw key of its own, and never prints itself', () => {
    const bytes = randomBytes(32);
    const one = AccountKey.from(bytes);
    expect(one.databaseKey()).toMatch(/^x'[0-9a-f]{64}'$/);
    expect(one.databaseKey()).not.toContain(bytes.toString('hex'));
    expect(AccountKey.from(bytes).check()).toBe(one.check());
    expect(one.check()).not.toBe(AccountKey.random().key.check());
    expect(inspect(one)).not.toContain(bytes.toString('hex'));
    expect(JSON.stringify({ one })).toBe('{"one":"AccountKey [redacted]"}');
    expect(() => AccountKey.from(randomBytes(16))).toThrow(RangeError);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { ClipBank } from '../../src/service/audio/clip-bank';
import { parseRange } from '../../src/service/audio/range';
import {
  RENDER_CHUNK_SAMPLES,
  recipeByteLength,
  renderRecipe,
  type AudioRecipe,
} from '../../src/service/audio/recipe';
import { WAV_HEADER_BYTES, decodeMuLawWav, pcm16WavHeader } from '../../src/service/audio/wav';

const RESOURCES = 'resources';

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe('parseRange', () => {
  const SIZE = 1000;
  it.each([
    ['no header', undefined, undefined],
    ['an empty header', '', undefined],
    ['bytes=0-99', 'bytes=0-99', { start: 0, end: 99 }],
    ['a single byte', 'bytes=7-7', { start: 7, end: 7 }],
    ['an open end', 'bytes=100-', { start: 100, end: 999 }],
    ['a suffix', 'bytes=-500', { start: 500, end: 999 }],
    ['a suffix longer than the body', 'bytes=-5000', { start: 0, end: 999 }],
    ['an empty suffix', 'bytes=-0', 'unsatisfiable'],
    ['a start at the size', 'bytes=1000-', 'unsatisfiable'],
    ['a start beyond the size', 'bytes=2000-2100', 'unsatisfiable'],
    ['an end beyond the size', 'bytes=900-5000', { start: 900, end: 999 }],
    ['the last byte', 'bytes=999-999', { start: 999, end: 999 }],
    ['a reversed range', 'bytes=5-1', undefined],
    ['multiple ranges', 'bytes=0-1,5-9', undefined],
    ['another unit', 'items=0-5', undefined],
    ['no numbers', 'bytes=-', undefined],
    ['garbage', 'bytes=abc-def', undefined],
  ] as const)('%s', (_name, header, expected) => {
    expect(parseRange(header, SIZE)).toEqual(expected);
  });

  it('tolerates surrounding whitespace', () => {
    expect(parseRange('  bytes=10-19 ', SIZE)).toEqual({ start: 10, end: 19 });
  });
});

describe('renderRecipe', () => {
  const bank = new ClipBank(RESOURCES);
  const CLIP_A = 'consult-vaccination-00';
  const CLIP_B = 'consult-rabbit-gi-stasis-12';
  const AT_A = 1001;
  // Straddles the renderer's chunk boundary.
  const AT_B = RENDER_CHUNK_SAMPLES - 2_000;
  const recipe: AudioRecipe = {
    sampleRate: 8000,
    samples: RENDER_CHUNK_SAMPLES + 18_000,
    clips: [],
  };
  let full: Buffer;
  let a: Int16Array;
  let b: Int16Array;

  beforeAll(async () => {
    a = bank.samples(CLIP_A);
    b = bank.samples(CLIP_B);
    recipe.clips = [
      [CLIP_A, AT_A],
      [CLIP_B, AT_B],
    ];
    expect(AT_A + a.length).toBeLessThan(AT_B);
    expect(AT_B + b.length).toBeLessThan(recipe.samples);
    expect(AT_B + b.length).toBeGreaterThan(RENDER_CHUNK_SAMPLES);
    full = await collect(renderRecipe(bank, recipe, 0, recipeByteLength(recipe) - 1));
  });

  it('renders a canonical 16-bit mono PCM WAV header', () => {
    expect(full.length).toBe(recipeByteLength(recipe));
    expect(full.length).toBe(WAV_HEADER_BYTES + recipe.samples * 2);
    expect(full.toString('ascii', 0, 4)).toBe('RIFF');
    expect(full.readUInt32LE(4)).toBe(36 + recipe.samples * 2);
    expect(full.toString('ascii', 8, 12)).toBe('WAVE');
    expect(full.toString('ascii', 12, 16)).toBe('fmt ');
    expect(full.readUInt32LE(16)).toBe(16);
    expect(full.readUInt16LE(20)).toBe(1); // PCM
    expect(full.readUInt16LE(22)).toBe(1); // mono
    expect(full.readUInt32LE(24)).toBe(8000);
    expect(full.readUInt32LE(28)).toBe(16_000);
    expect(full.readUInt16LE(32)).toBe(2);
    expect(full.readUInt16LE(34)).toBe(16);
    expect(full.toString('ascii', 36, 40)).toBe('data');
    expect(full.readUInt32LE(40)).toBe(recipe.samples * 2);
  });

  it('places each clip at its sample and silence everywhere else', () => {
    const samples = new Int16Array(
      full.buffer.slice(full.byteOffset + WAV_HEADER_BYTES, full.byteOffset + full.length),
    );
    expect(samples.length).toBe(recipe.samples);
    expect(Array.from(samples.subarray(AT_A, AT_A + a.length))).toEqual(Array.from(a));
    expect(Array.from(samples.subarray(AT_B, AT_B + b.length))).toEqual(Array.from(b));
    expect(samples.subarray(AT_A, AT_A + a.length).some((s) => s !== 0)).toBe(true);
    expect(samples.subarray(AT_B, AT_B + b.length).some((s) => s !== 0)).toBe(true);
    const silent = (from: number, to: number) => samples.subarray(from, to).every((s) => s === 0);
    expect(silent(0, AT_A)).toBe(true);
    expect(silent(AT_A + a.length, AT_B)).toBe(true);
    expect(silent(AT_B + b.length, recipe.samples)).toBe(true);
  });

  it('serves any byte range exactly as the same bytes of the whole file', async () => {
    const last = recipeByteLength(recipe) - 1;
    const chunkEnd = WAV_HEADER_BYTES + RENDER_CHUNK_SAMPLES * 2;
    const pairs: [number, number][] = [
      [0, 0],
      [0, 3],
      [1, 2],
      [0, 43],
      [10, 50],
      [43, 44],
      [43, 45],
      [44, 44],
      [44, 45],
      [45, 45],
      [45, 46],
      [45, 1000],
      [2 * AT_A + 43, 2 * AT_A + 48],
      [2 * AT_A + 45, 2 * AT_A + 2 * 1000 + 44],
      [chunkEnd - 3, chunkEnd + 4],
      [chunkEnd - 1, chunkEnd],
      [1001, 2 * AT_B + 44 + 2001],
      [7, last],
      [last - 2, last],
      [last, last],
    ];
    for (const [start, end] of pairs) {
      const part = await collect(renderRecipe(bank, recipe, start, end));
      expect(part.length, `bytes ${start}-${end}`).toBe(end - start + 1);
      expect(part.equals(full.subarray(start, end + 1)), `bytes ${start}-${end}`).toBe(true);
    }
  });
});

describe('decodeMuLawWav', () => {
  it('decodes a demo clip into one 16-bit sample a byte', () => {
    const bank = new ClipBank(RESOURCES);
    const id = 'consult-vaccination-00';
    const file = readFileSync(join(RESOURCES, 'demo-speech', `${id}.wav`));
    const samples = decodeMuLawWav(file, id);
    expect(samples.length).toBe(bank.sampleCount(id));
    expect(samples.some((s) => s > 1000)).toBe(true);
    expect(samples.some((s) => s < -1000)).toBe(true);
  });

  it('rejects a buffer that is not a WAV file, naming it', () => {
    expect(() => decodeMuLawWav(Buffer.from('this is not audio at all'), 'notes.txt')).toThrow(
      'notes.txt is not a WAV file',
    );
    expect(() => decodeMuLawWav(Buffer.alloc(0), 'empty.wav')).toThrow(
      'empty.wav is not a WAV file',
    );
  });

  it('rejects a PCM WAV and a WAV without a data chunk', () => {
    const pcm = Buffer.concat([pcm16WavHeader(8000, 4), Buffer.alloc(8)]);
    expect(() => decodeMuLawWav(pcm, 'pcm.wav')).toThrow(
      'pcm.wav is not mu-law encoded (format 1)',
    );
    const noData = pcm16WavHeader(8000, 0).subarray(0, 36);
    expect(() => decodeMuLawWav(noData, 'short.wav')).toThrow('short.wav has no data chunk');
  });
});

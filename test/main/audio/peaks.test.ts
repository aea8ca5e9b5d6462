import { describe, expect, it } from 'vitest';
import {
  decodePeaks,
  encodePeaks,
  PcmPeakBuilder,
  waveformData,
  WavPeakStream,
  type Peaks,
} from '../../../src/main/audio/peaks';
import { ClipBank } from '../../../src/service/audio/clip-bank';
import { wholeFilePeaks } from './fixtures';

/** Deterministic pseudo-random numbers (mulberry32). */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Speech-like samples: clips from the demo bank in silence, plus a little noise. */
function speech(frames: number, channels: number, seed = 1): Int16Array {
  const bank = new ClipBank('resources');
  const clip = bank.samples('consult-vaccination-00');
  const rand = random(seed);
  const out = new Int16Array(frames * channels);
  for (let i = 0; i < out.length; i++) {
    const frame = Math.floor(i / channels);
    out[i] = (clip[frame % (clip.length + 3000)] ?? 0) + Math.round((rand() - 0.5) * 40);
  }
  out[0] = -32768;
  out[out.length - 1] = 32767;
  return out;
}

interface WavShape {
  channels?: number;
  sampleRate?: number;
  /** fmt chunk as WAVE_FORMAT_EXTENSIBLE (40 bytes). */
  extensible?: boolean;
  /** An odd-sized LIST chunk (with its pad byte) before the data. */
  listBefore?: boolean;
  /** A chunk after the data that must not be read as samples. */
  chunkAfter?: boolean;
  /** data size written as 0 (a streamed WAV): read to the end. */
  unknownSize?: boolean;
  format?: number;
  bits?: number;
}

function wav(samples: Int16Array, shape: WavShape = {}): Buffer {
  const { channels = 1, sampleRate = 8000, format = 1, bits = 16 } = shape;
  const fmt = Buffer.alloc(shape.extensible ? 40 : 16);
  fmt.writeUInt16LE(shape.extensible ? 0xfffe : format, 0);
  fmt.writeUInt16LE(channels, 2);
  fmt.writeUInt32LE(sampleRate, 4);
  fmt.writeUInt32LE(sampleRate * channels * 2, 8);
  fmt.writeUInt16LE(channels * 2, 12);
  fmt.writeUInt16LE(bits, 14);
  if (shape.extensible) {
    fmt.writeUInt16LE(22, 16);
    fmt.writeUInt16LE(bits, 18);
    fmt.writeUInt16LE(format, 24); // the sub-format GUID's first bytes
  }
  const chunk = (id: string, body: Buffer, size = body.length) => {
    const head = Buffer.alloc(8);
    head.write(id, 0, 'latin1');
    head.writeUInt32LE(size, 4);
    return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
  };
  const data = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
  const body = Buffer.concat([
    Buffer.from('WAVE', 'latin1'),
    chunk('fmt ', fmt),
    ...(shape.listBefore
      ? [chunk('LIST', Buffer.from('INFOISFT\u0005\u0000\u0000\u0000Lavf', 'latin1'))]
      : []),
    chunk('data', data, shape.unknownSize ? 0 : data.length),
    ...(shape.chunkAfter ? [chunk('junk', Buffer.alloc(1000, 0x7f))] : []),
  ]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'latin1');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

/** Feeds a file to a WavPeakStream in pieces of random sizes (odd ones, single bytes). */
function streamPeaks(file: Buffer, seed: number, maxPiece = 5000): Peaks | null {
  const stream = new WavPeakStream();
  const rand = random(seed);
  for (let at = 0; at < file.length;) {
    const size = rand() < 0.1 ? 1 : 1 + Math.floor(rand() * maxPiece);
    // A copy at an odd address now and then: the builder must not assume alignment.
    const piece = file.subarray(at, at + size);
    stream.push(rand() < 0.3 ? Buffer.concat([Buffer.alloc(1), piece]).subarray(1) : piece);
    at += size;
  }
  return stream.finish();
}

const same = (actual: Peaks | null, expected: Peaks) => {
  expect(actual).not.toBeNull();
  expect(actual!.sampleRate).toBe(expected.sampleRate);
  expect(actual!.samplesPerPeak).toBe(expected.samplesPerPeak);
  expect(actual!.frames).toBe(expected.frames);
  expect(Array.from(actual!.min)).toEqual(Array.from(expected.min));
  expect(Array.from(actual!.max)).toEqual(Array.from(expected.max));
};

describe('WavPeakStream: peaks while the file streams equal peaks of the whole file', () => {
  it.each<[string, WavShape, number]>([
    ['a canonical 8 kHz mono file', {}, 8000 * 7 + 13],
    ['a last bucket that is full', {}, 8000 * 3],
    ['a LIST chunk of odd size before the data', { listBefore: true }, 8000 * 2 + 1],
    ['a chunk after the data', { chunkAfter: true }, 8000 * 2 + 5],
    ['WAVE_FORMAT_EXTENSIBLE', { extensible: true }, 8000 + 3],
    ['a streamed WAV (data size 0)', { unknownSize: true }, 8000 * 2 + 7],
    ['stereo at 44.1 kHz', { channels: 2, sampleRate: 44_100 }, 44_100 + 17],
  ])('%s', (_name, shape, frames) => {
    const channels = shape.channels ?? 1;
    const samples = speech(frames, channels, frames);
    const expected = wholeFilePeaks(samples, channels, shape.sampleRate ?? 8000);
    const file = wav(samples, shape);
    for (const seed of [1, 2, 3]) same(streamPeaks(file, seed), expected);
    // In one piece, and byte by byte through the header.
    same(streamPeaks(file, 4, file.length), expected);
    same(streamPeaks(file, 5, 2), expected);
  });

  it('gives 100 peaks a second: 80 samples a bucket at 8 kHz', () => {
    const peaks = streamPeaks(wav(speech(8000 * 5, 1)), 1)!;
    expect(peaks.samplesPerPeak).toBe(80);
    expect(peaks.min.length).toBe(500);
  });

  it.each<[string, Buffer | string, RegExp]>([
    ['mu-law', wav(new Int16Array(100), { format: 7 }), /not 16-bit PCM \(format 7/],
    ['24-bit PCM', wav(new Int16Array(100), { bits: 24 }), /24 bits/],
    ['not a WAV file', 'ID3\u0004 an mp3 file, not a wave at all', /not a RIFF\/WAVE file/],
    [
      'a file cut inside its header',
      wav(new Int16Array(10)).subarray(0, 30),
      /ended inside its header/,
    ],
  ])('reads no peaks from %s, and says why', (_name, file, reason) => {
    const stream = new WavPeakStream();
    stream.push(typeof file === 'string' ? Buffer.from(file, 'latin1') : file);
    expect(stream.finish()).toBeNull();
    expect(stream.unsupported).toMatch(reason);
  });
});

describe('peaks files and wavesurfer data', () => {
  const samples = speech(8000 * 3 + 11, 1);
  const peaks = wholeFilePeaks(samples, 1, 8000);

  it('encodes and decodes exactly, in 4 bytes a bucket', () => {
    const bytes = encodePeaks(peaks);
    expect(bytes.length).toBe(32 + peaks.min.length * 4);
    same(decodePeaks(bytes), peaks);
    expect(() => decodePeaks(Buffer.from('nope'))).toThrow(/not a peaks file/);
    expect(() => decodePeaks(bytes.subarray(0, bytes.length - 2))).toThrow(/wrong length/);
  });

  it('gives wavesurfer [maxima, minima] in -1..1 and the duration, merged to maxLength', () => {
    const data = waveformData(peaks, 30);
    expect(data.duration).toBeCloseTo((8000 * 3 + 11) / 8000, 6);
    const [top, bottom] = data.peaks;
    expect(top).toHaveLength(30);
    expect(bottom).toHaveLength(30);
    expect(Math.max(...top)).toBeCloseTo(32767 / 32768, 3);
    expect(Math.min(...bottom)).toBe(-1);
    // Each merged bucket covers whole source buckets: its max is the max of theirs.
    const count = peaks.max.length;
    const from = Math.floor((7 * count) / 30);
    const to = Math.floor((8 * count) / 30);
    expect(top[7]).toBeCloseTo(Math.max(...peaks.max.subarray(from, to)) / 32768, 3);
    expect(waveformData(peaks).peaks[0]).toHaveLength(count);
  });
});

describe('PcmPeakBuilder', () => {
  it('carries an odd byte across pieces', () => {
    const samples = Int16Array.from([1, -2, 300, -400, 5, 32767, -32768, 7]);
    const bytes = Buffer.from(samples.buffer);
    const builder = new PcmPeakBuilder(8000, 1, 2000); // 4 samples a bucket
    for (const piece of [
      bytes.subarray(0, 3),
      bytes.subarray(3, 4),
      bytes.subarray(4, 11),
      bytes.subarray(11),
    ]) {
      builder.push(piece);
    }
    const peaks = builder.finish();
    expect(Array.from(peaks.min)).toEqual([-400, -32768]);
    expect(Array.from(peaks.max)).toEqual([300, 32767]);
    expect(peaks.frames).toBe(8);
  });
});

/**
 * Waveform peaks computed in main, so the renderer never decodes a long file: the minimum and
 * maximum sample of each bucket of `samplesPerPeak` frames (100 buckets a second by default),
 * built as the bytes stream in and stored beside the audio as a small binary file (encodePeaks).
 */

const PEAKS_PER_SECOND = 100;

export interface Peaks {
  sampleRate: number;
  /** Frames (one sample of every channel) in each bucket; the last bucket may hold fewer. */
  samplesPerPeak: number;
  /** Frames in the whole file: the duration is frames / sampleRate. */
  frames: number;
  /** The lowest and highest 16-bit sample of each bucket, across channels. */
  min: Int16Array;
  max: Int16Array;
}

const peaksDuration = (peaks: Peaks): number => peaks.frames / peaks.sampleRate;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Buckets interleaved 16-bit little-endian PCM into min/max peaks as the bytes arrive. */
export class PcmPeakBuilder {
  readonly samplesPerPeak: number;
  private readonly bucketSamples: number;
  private min = new Int16Array(4096);
  private max = new Int16Array(4096);
  private count = 0;
  private bucketMin = 32767;
  private bucketMax = -32768;
  private inBucket = 0;
  private samples = 0;
  private carry: number | undefined;

  constructor(
    readonly sampleRate: number,
    readonly channels = 1,
    peaksPerSecond = PEAKS_PER_SECOND,
  ) {
    this.samplesPerPeak = Math.max(1, Math.round(sampleRate / peaksPerSecond));
    this.bucketSamples = this.samplesPerPeak * channels;
  }

  push(bytes: Uint8Array): void {
    let data = bytes;
    if (this.carry !== undefined && data.length > 0) {
      this.add(Int16Array.of((data[0]! << 8) | this.carry));
      this.carry = undefined;
      data = data.subarray(1);
    }
    const whole = data.length & ~1;
    if (data.length !== whole) this.carry = data[whole];
    if (whole === 0) return;
    if (!LITTLE_ENDIAN) {
      const view = new DataView(data.buffer, data.byteOffset, whole);
      this.add(Int16Array.from({ length: whole / 2 }, (_, i) => view.getInt16(i * 2, true)));
    } else if (data.byteOffset % 2 === 0) {
      this.add(new Int16Array(data.buffer, data.byteOffset, whole / 2));
    } else {
      // An odd address (a slice of Node's buffer pool): copy to an aligned buffer of its own.
      this.add(new Int16Array(new Uint8Array(data.subarray(0, whole)).buffer));
    }
  }

  private add(samples: Int16Array): void {
    this.samples += samples.length;
    this.scan(samples, 0, samples.length);
  }

  /** Samples [from, to) into the current bucket and those after it. */
  private scan(samples: Int16Array, from: number, to: number): number {
    const stop = Math.min(to, samples.length);
    let low = this.bucketMin;
    let high = this.bucketMax;
    let i = from;
    while (i < stop) {
      const end = Math.min(stop, i + this.bucketSamples - this.inBucket);
      this.inBucket += end - i;
      for (; i < end; i++) {
        const s = samples[i]!;
        if (s < low) low = s;
        if (s > high) high = s;
      }
      if (this.inBucket === this.bucketSamples) {
        this.emit(low, high);
        low = 32767;
        high = -32768;
      }
    }
    this.bucketMin = low;
    this.bucketMax = high;
    return stop;
  }

  /** Room for `more` buckets after those there are. */
  private reserve(more: number): void {
    if (this.count + more <= this.min.length) return;
    const length = Math.max(this.min.length * 2, this.count + more);
    const grow = (old: Int16Array) => {
      const next = new Int16Array(length);
      next.set(old.subarray(0, this.count));
      return next;
    };
    this.min = grow(this.min);
    this.max = grow(this.max);
  }

  private emit(low: number, high: number): void {
    this.reserve(1);
    this.min[this.count] = low;
    this.max[this.count] = high;
    this.count++;
    this.inBucket = 0;
  }

  /** The whole buckets so far (a copy; the builder goes on). */
  snapshot(): Peaks {
    return {
      sampleRate: this.sampleRate,
      samplesPerPeak: this.samplesPerPeak,
      frames: this.count * this.samplesPerPeak,
      min: this.min.slice(0, this.count),
      max: this.max.slice(0, this.count),
    };
  }

  /** The peaks so far, the last bucket included even if it is not full. A trailing odd byte is dropped. */
  finish(): Peaks {
    if (this.inBucket > 0) {
      this.emit(this.bucketMin, this.bucketMax);
      this.bucketMin = 32767;
      this.bucketMax = -32768;
    }
    return {
      sampleRate: this.sampleRate,
      samplesPerPeak: this.samplesPerPeak,
      frames: Math.floor(this.samples / this.channels),
      min: this.min.slice(0, this.count),
      max: this.max.slice(0, this.count),
    };
  }
}

/** The largest header (everything before the data chunk) a WAV file may have for us to read it. */
const MAX_WAV_HEADER = 1 << 20;

interface WavFormat {
  sampleRate: number;
  channels: number;
  /** Bytes of the data chunk; undefined when the header does not say (0 or 0xFFFFFFFF: streamed). */
  dataBytes: number | undefined;
  /** Where the data chunk's bytes begin. */
  dataOffset: number;
}

/**
 * Reads the header of a 16-bit PCM WAV file from its first bytes: the format, and where the data
 * chunk begins. 'more' when it needs more bytes; a reason string when it cannot read this file.
 */
export function parseWavHeader(head: Uint8Array): WavFormat | 'more' | string {
  const bytes = Buffer.from(head.buffer, head.byteOffset, head.length);
  if (bytes.length < 12) return 'more';
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') {
    return 'not a RIFF/WAVE file';
  }
  let format: Omit<WavFormat, 'dataBytes' | 'dataOffset'> | undefined;
  let offset = 12;
  for (;;) {
    if (offset + 8 > bytes.length) return offset + 8 > MAX_WAV_HEADER ? 'header too long' : 'more';
    const id = bytes.toString('latin1', offset, offset + 4);
    const size = bytes.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'data') {
      if (!format) return 'no fmt chunk before the data';
      const streamed = size === 0 || size === 0xffffffff;
      return { ...format, dataBytes: streamed ? undefined : size, dataOffset: body };
    }
    if (id === 'fmt ') {
      if (body + 16 > bytes.length) return 'more';
      const tag = bytes.readUInt16LE(body);
      // WAVE_FORMAT_EXTENSIBLE names the real format in the first two bytes of its sub-format GUID.
      if (tag === 0xfffe && body + 26 > bytes.length) return 'more';
      const pcm =
        tag === 1 || (tag === 0xfffe && size >= 40 && bytes.readUInt16LE(body + 24) === 1);
      const bits = bytes.readUInt16LE(body + 14);
      if (!pcm || bits !== 16) return `not 16-bit PCM (format ${tag}, ${bits} bits)`;
      const channels = bytes.readUInt16LE(body + 2);
      const sampleRate = bytes.readUInt32LE(body + 4);
      if (channels < 1 || sampleRate < 1) return 'no channels or no sample rate';
      format = { sampleRate, channels };
    }
    offset = body + size + (size % 2);
    if (offset > MAX_WAV_HEADER) return 'header too long';
  }
}

/**
 * Peaks of a WAV file as it streams: buffers the first bytes until the header is read, then
 * feeds the data chunk (and nothing after it) to a PcmPeakBuilder. Never throws: a file it
 * cannot read (not 16-bit PCM) leaves `unsupported` set and finish() returns null.
 */
export class WavPeakStream {
  unsupported: string | undefined;
  private head: Buffer[] = [];
  private headBytes = 0;
  private builder: PcmPeakBuilder | undefined;
  private format: WavFormat | undefined;
  private remaining = Number.POSITIVE_INFINITY;

  constructor(private readonly peaksPerSecond = PEAKS_PER_SECOND) {}

  push(chunk: Uint8Array): void {
    if (this.unsupported) return;
    if (this.builder) {
      this.feed(chunk);
      return;
    }
    this.head.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length));
    this.headBytes += chunk.length;
    const head = Buffer.concat(this.head, this.headBytes);
    const parsed = parseWavHeader(head);
    if (parsed === 'more') {
      this.head = [head];
      if (this.headBytes > MAX_WAV_HEADER) this.unsupported = 'header too long';
      return;
    }
    this.head = [];
    if (typeof parsed === 'string') {
      this.unsupported = parsed;
      return;
    }
    this.format = parsed;
    this.builder = new PcmPeakBuilder(parsed.sampleRate, parsed.channels, this.peaksPerSecond);
    this.remaining = parsed.dataBytes ?? Number.POSITIVE_INFINITY;
    if (head.length > parsed.dataOffset) this.feed(head.subarray(parsed.dataOffset));
  }

  private feed(chunk: Uint8Array): void {
    if (this.remaining <= 0) return;
    const part = chunk.length > this.remaining ? chunk.subarray(0, this.remaining) : chunk;
    this.remaining -= part.length;
    this.builder!.push(part);
  }

  /**
   * The peaks of the whole buckets read so far, and the frames the whole file holds (from its
   * header; null when it does not say): enough to draw a waveform that fills in as bytes arrive.
   * Null before the header has been read.
   */
  snapshot(): { peaks: Peaks; totalFrames: number | null } | null {
    if (!this.builder || !this.format) return null;
    const { dataBytes, channels } = this.format;
    return {
      peaks: this.builder.snapshot(),
      totalFrames: dataBytes === undefined ? null : Math.floor(dataBytes / (2 * channels)),
    };
  }

  /** The peaks, or null when the file was not a WAV we read (see `unsupported`) or had no header. */
  finish(): Peaks | null {
    if (!this.builder) {
      this.unsupported ??= 'the file ended inside its header';
      return null;
    }
    return this.builder.finish();
  }
}

// The stored form: a 32-byte header, then each bucket's min and max as int16 little-endian.
const MAGIC = 'EMPK';
const VERSION = 1;
const HEADER_BYTES = 32;

/** The peaks as the bytes of a `.peaks` file (about 4 bytes a bucket: 2 MB for 90 minutes). */
export function encodePeaks(peaks: Peaks): Buffer {
  const count = peaks.min.length;
  const header = Buffer.alloc(HEADER_BYTES);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt16LE(VERSION, 4);
  header.writeUInt32LE(peaks.sampleRate, 8);
  header.writeUInt32LE(peaks.samplesPerPeak, 12);
  header.writeDoubleLE(peaks.frames, 16);
  header.writeUInt32LE(count, 24);
  // Interleaved in a typed array (a million buffer calls would hold the event loop for ~20 ms).
  const pairs = new Int16Array(count * 2);
  for (let i = 0; i < count; i++) {
    pairs[i * 2] = peaks.min[i]!;
    pairs[i * 2 + 1] = peaks.max[i]!;
  }
  const body = Buffer.from(pairs.buffer);
  if (!LITTLE_ENDIAN) body.swap16();
  return Buffer.concat([header, body]);
}

export function decodePeaks(bytes: Buffer): Peaks {
  if (bytes.length < HEADER_BYTES || bytes.toString('latin1', 0, 4) !== MAGIC) {
    throw new Error('not a peaks file');
  }
  if (bytes.readUInt16LE(4) !== VERSION) throw new Error('peaks file of another version');
  const count = bytes.readUInt32LE(24);
  if (bytes.length !== HEADER_BYTES + count * 4) throw new Error('peaks file of the wrong length');
  const body = new Uint8Array(bytes.subarray(HEADER_BYTES)); // a copy, aligned
  if (!LITTLE_ENDIAN) Buffer.from(body.buffer).swap16();
  const pairs = new Int16Array(body.buffer);
  const min = new Int16Array(count);
  const max = new Int16Array(count);
  for (let i = 0; i < count; i++) {
    min[i] = pairs[i * 2]!;
    max[i] = pairs[i * 2 + 1]!;
  }
  return {
    sampleRate: bytes.readUInt32LE(8),
    samplesPerPeak: bytes.readUInt32LE(12),
    frames: bytes.readDoubleLE(16),
    min,
    max,
  };
}

/** What wavesurfer.js takes instead of decoding: `peaks` (top, bottom) in -1..1 and `duration`. */
export interface WaveformData {
  /** [maxima, minima]: wavesurfer draws the first channel above the line, the second below. */
  peaks: [number[], number[]];
  /** Seconds. */
  duration: number;
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

/**
 * The peaks for `new WaveSurfer({ peaks, duration, media })` (splitChannels off), merged down to
 * at most `maxLength` buckets (min of the minima, max of the maxima) to keep IPC small.
 */
export function waveformData(peaks: Peaks, maxLength = 8000): WaveformData {
  const count = peaks.min.length;
  const length = Math.min(count, Math.max(1, maxLength));
  const top: number[] = new Array<number>(length);
  const bottom: number[] = new Array<number>(length);
  for (let j = 0; j < length; j++) {
    const from = Math.floor((j * count) / length);
    const to = Math.max(from + 1, Math.floor(((j + 1) * count) / length));
    let low = 32767;
    let high = -32768;
    for (let i = from; i < to && i < count; i++) {
      low = Math.min(low, peaks.min[i]!);
      high = Math.max(high, peaks.max[i]!);
    }
    top[j] = round4(high / 32768);
    bottom[j] = round4(low / 32768);
  }
  return { peaks: [top, bottom], duration: peaksDuration(peaks) };
}

/**
 * The waveform of a file still arriving: its first buckets as read so far, the rest flat, over
 * the whole file's duration (from its header), so the drawing fills in from the left.
 */
export function partialWaveformData(
  sofar: Peaks,
  totalFrames: number,
  maxLength = 8000,
): WaveformData {
  const buckets = Math.ceil(totalFrames / sofar.samplesPerPeak);
  const pad = (read: Int16Array) => {
    const all = new Int16Array(Math.max(buckets, read.length));
    all.set(read);
    return all;
  };
  return waveformData(
    {
      ...sofar,
      frames: Math.max(totalFrames, sofar.frames),
      min: pad(sofar.min),
      max: pad(sofar.max),
    },
    maxLength,
  );
}

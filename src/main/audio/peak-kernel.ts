/**
 * The inner loop of the waveform peaks: the minimum and maximum of each whole bucket of 16-bit
 * samples, in WebAssembly SIMD (eight samples an instruction). A 90-minute WAV holds 43 million
 * samples; a JavaScript loop takes 100–170 ms of CPU over them, this one about a tenth of that
 * (most of it copying the samples into the module's memory).
 *
 * There is no WebAssembly toolchain in this project, so the module is assembled here from the
 * listing below (about 200 bytes). Every sample is compared, so the result is exactly the
 * JavaScript loop's (tested against it). Where the runtime has no WebAssembly SIMD, `peakKernel`
 * is null and PcmPeakBuilder keeps its JavaScript loop.
 */

/** Buckets of more samples than this (very high rates, many channels) stay in JavaScript. */
export const KERNEL_MAX_BUCKET = 16_384;
/** Fewer than one vector a bucket (rates under 800 Hz) stays in JavaScript too. */
export const KERNEL_MIN_BUCKET = 8;

/** Samples a call takes at most: the input area of the module's memory. */
const INPUT_SAMPLES = 32_768;
const INPUT_BYTES = INPUT_SAMPLES * 2;
const MAX_BUCKETS = INPUT_SAMPLES / KERNEL_MIN_BUCKET;
const MINS_AT = INPUT_BYTES;
const MAXS_AT = MINS_AT + MAX_BUCKETS * 2;
const PAGES = Math.ceil((MAXS_AT + MAX_BUCKETS * 2) / 65_536);

// WebAssembly binary encoding (core spec §5, SIMD proposal opcodes).
const I32 = 0x7f;
const V128 = 0x7b;
const op = {
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  end: [0x0b],
  br: (depth: number) => [0x0c, depth],
  brIf: (depth: number) => [0x0d, depth],
  get: (local: number) => [0x20, local],
  set: (local: number) => [0x21, local],
  tee: (local: number) => [0x22, local],
  i32: (value: number) => [0x41, ...sleb(value)],
  add: [0x6a],
  mul: [0x6c],
  geU: [0x4f],
  store16: [0x3b, 0x01, 0x00],
  v128Load: [0xfd, 0x00, 0x00, 0x00],
  shuffle: (bytes: number[]) => [0xfd, 0x0d, ...bytes],
  extractLane0: [0xfd, 0x18, 0x00],
  minS: [0xfd, 0x96, 0x01],
  maxS: [0xfd, 0x98, 0x01],
};

function uleb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function sleb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (byte & 0x40) === 0) || (value === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

const name = (text: string) => [text.length, ...Buffer.from(text, 'latin1')];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

// bucketPeaks(src, bucketSamples, buckets, mins, maxs): for each bucket b of `bucketSamples`
// samples from byte `src`, its minimum to mins[b] and maximum to maxs[b] (int16 arrays).
const [SRC, BUCKET, BUCKETS, MINS, MAXS] = [0, 1, 2, 3, 4];
const [B, P, Q, LAST, STRIDE, LO, HI, V] = [5, 6, 7, 8, 9, 10, 11, 12];

/** Folds lane i with lane i ^ 4, then i ^ 2, then i ^ 1 (byte indices of 16-bit lanes). */
const FOLDS = [
  [8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7],
  [4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11],
  [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13],
];
const foldInto = (local: number, combine: number[]) =>
  FOLDS.flatMap((lanes) => [
    ...op.get(local),
    ...op.get(local),
    ...op.get(local),
    ...op.shuffle(lanes),
    ...combine,
    ...op.set(local),
  ]);
/** lo = min(lo, v); hi = max(hi, v) */
const takeV = [
  ...[...op.get(LO), ...op.get(V), ...op.minS, ...op.set(LO)],
  ...[...op.get(HI), ...op.get(V), ...op.maxS, ...op.set(HI)],
];

const body = [
  // locals: b, p, q, last, stride (i32); lo, hi, v (v128)
  ...[2, 5, I32, 3, V128],
  ...[...op.get(BUCKET), ...op.get(BUCKET), ...op.add, ...op.set(STRIDE)],
  ...[...op.get(SRC), ...op.set(P)],
  ...op.block,
  ...op.loop,
  ...[...op.get(B), ...op.get(BUCKETS), ...op.geU, ...op.brIf(1)],
  // The last vector of the bucket ends at its end (it may overlap the one before it: harmless
  // for a minimum and a maximum), so a bucket need not be a multiple of eight samples.
  ...[...op.get(P), ...op.get(STRIDE), ...op.add, ...op.i32(-16), ...op.add, ...op.set(LAST)],
  ...[...op.get(P), ...op.v128Load, ...op.tee(LO), ...op.set(HI)],
  ...[...op.get(P), ...op.i32(16), ...op.add, ...op.set(Q)],
  ...op.block,
  ...op.loop,
  ...[...op.get(Q), ...op.get(LAST), ...op.geU, ...op.brIf(1)],
  ...[...op.get(Q), ...op.v128Load, ...op.set(V)],
  ...takeV,
  ...[...op.get(Q), ...op.i32(16), ...op.add, ...op.set(Q)],
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...[...op.get(LAST), ...op.v128Load, ...op.set(V)],
  ...takeV,
  ...foldInto(LO, op.minS),
  ...foldInto(HI, op.maxS),
  ...[...op.get(MINS), ...op.get(B), ...op.i32(2), ...op.mul, ...op.add],
  ...[...op.get(LO), ...op.extractLane0, ...op.store16],
  ...[...op.get(MAXS), ...op.get(B), ...op.i32(2), ...op.mul, ...op.add],
  ...[...op.get(HI), ...op.extractLane0, ...op.store16],
  ...[...op.get(B), ...op.i32(1), ...op.add, ...op.set(B)],
  ...[...op.get(P), ...op.get(STRIDE), ...op.add, ...op.set(P)],
  ...op.br(0),
  ...op.end,
  ...op.end,
  ...op.end,
];

const moduleBytes = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]),
  ...section(3, [1, 0]),
  ...section(5, [1, 0x00, ...uleb(PAGES)]),
  ...section(7, [2, ...name('memory'), 0x02, 0, ...name('bucketPeaks'), 0x00, 0]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

export interface PeakKernel {
  /**
   * The min and max of each whole bucket of `bucketSamples` samples at the start of `samples`
   * (KERNEL_MIN_BUCKET ≤ bucketSamples ≤ KERNEL_MAX_BUCKET), appended to `min` and `max` at
   * `at`; returns how many buckets that was (a trailing partial bucket is left to the caller).
   */
  run(
    samples: Int16Array,
    bucketSamples: number,
    min: Int16Array,
    max: Int16Array,
    at: number,
  ): number;
}

/** The part of the WebAssembly API used here (this project's typings, ES2023 without DOM, lack it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

function instantiate(): PeakKernel | null {
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  // WebAssembly memory is little-endian; the typed arrays that fill it are the host's order.
  const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
  if (!wasm || !littleEndian || !wasm.validate(moduleBytes)) return null;
  const { exports } = new wasm.Instance(new wasm.Module(moduleBytes));
  const { buffer } = exports.memory as { buffer: ArrayBuffer };
  const bucketPeaks = exports.bucketPeaks as (...args: number[]) => void;
  const input = new Int16Array(buffer, 0, INPUT_SAMPLES);
  const mins = new Int16Array(buffer, MINS_AT, MAX_BUCKETS);
  const maxs = new Int16Array(buffer, MAXS_AT, MAX_BUCKETS);
  return {
    run(samples, bucketSamples, min, max, at) {
      const perCall = Math.floor(INPUT_SAMPLES / bucketSamples);
      const total = Math.floor(samples.length / bucketSamples);
      for (let done = 0; done < total;) {
        const buckets = Math.min(perCall, total - done);
        const from = done * bucketSamples;
        input.set(samples.subarray(from, from + buckets * bucketSamples));
        bucketPeaks(0, bucketSamples, buckets, MINS_AT, MAXS_AT);
        min.set(mins.subarray(0, buckets), at + done);
        max.set(maxs.subarray(0, buckets), at + done);
        done += buckets;
      }
      return total;
    },
  };
}

/** The SIMD kernel, or null where this runtime cannot run it. */
export const peakKernel: PeakKernel | null = instantiate();

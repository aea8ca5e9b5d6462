import { Readable } from 'node:stream';
import type { ClipBank } from './clip-bank';
import { WAV_HEADER_BYTES, pcm16WavHeader } from './wav';

/**
 * Audio described rather than stored: a stretch of silence `samples` long with clips placed in it
 * (sorted, not overlapping). A 90-minute hub conversation is a few kilobytes of recipe instead
 * of 86 MB of WAV, yet serves byte-exact, seekable 16-bit PCM.
 */
export interface AudioRecipe {
  sampleRate: number;
  samples: number;
  /** [clipId, first sample] pairs, in order. */
  clips: [string, number][];
}

export const recipeByteLength = (recipe: AudioRecipe) => WAV_HEADER_BYTES + recipe.samples * 2;

/**
 * Samples rendered per pushed chunk: 1 MiB of PCM. Fewer, larger writes keep a 90-minute download
 * from costing the service more CPU than its client (64 KiB chunks took about twice as much).
 */
export const RENDER_CHUNK_SAMPLES = 512 * 1024;

/** Renders samples [from, to) of the recipe. */
function renderSamples(bank: ClipBank, recipe: AudioRecipe, from: number, to: number): Int16Array {
  const out = new Int16Array(to - from);
  for (const [clipId, at] of recipe.clips) {
    if (at >= to) break;
    const clip = bank.samples(clipId);
    const clipEnd = at + clip.length;
    if (clipEnd <= from) continue;
    const start = Math.max(at, from);
    const end = Math.min(clipEnd, to);
    out.set(clip.subarray(start - at, end - at), start - from);
  }
  return out;
}

/** Streams bytes [start, end] (inclusive) of the recipe rendered as a WAV file. */
export function renderRecipe(
  bank: ClipBank,
  recipe: AudioRecipe,
  start: number,
  end: number,
): Readable {
  const header = pcm16WavHeader(recipe.sampleRate, recipe.samples);
  let position = start;
  return new Readable({
    read() {
      if (position > end) {
        this.push(null);
        return;
      }
      if (position < WAV_HEADER_BYTES) {
        const slice = header.subarray(position, Math.min(WAV_HEADER_BYTES, end + 1));
        position += slice.length;
        this.push(slice);
        return;
      }
      const firstSample = Math.floor((position - WAV_HEADER_BYTES) / 2);
      const lastSample = Math.min(
        recipe.samples,
        firstSample + RENDER_CHUNK_SAMPLES,
        Math.floor((end - WAV_HEADER_BYTES) / 2) + 1,
      );
      const samples = renderSamples(bank, recipe, firstSample, lastSample);
      const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
      const skip = (position - WAV_HEADER_BYTES) % 2;
      const slice = bytes.subarray(skip, Math.min(bytes.length, end + 1 - position + skip));
      position += slice.length;
      this.push(slice);
    },
  });
}

import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeMuLawWav } from './wav';

export interface ClipManifest {
  format: { sampleRate: number; encoding: 'mu-law'; channels: 1 };
  clips: Record<string, { durationMs: number; bytes: number }>;
  calls: Record<string, { file: string; durationMs: number }>;
}

const DEMO_SPEECH_FOLDER = 'demo-speech';

/**
 * The pre-rendered demo speech (resources/demo-speech, made by scripts/render-demo-speech.ts).
 * Clips are decoded on first use and kept: the whole bank is a few megabytes of samples.
 */
export class ClipBank {
  readonly manifest: ClipManifest;
  private readonly decoded = new Map<string, Int16Array>();

  constructor(private readonly resourcesDir: string) {
    this.manifest = JSON.parse(
      readFileSync(join(resourcesDir, DEMO_SPEECH_FOLDER, 'manifest.json'), 'utf8'),
    ) as ClipManifest;
  }

  get sampleRate(): number {
    return this.manifest.format.sampleRate;
  }

  has(clipId: string): boolean {
    return clipId in this.manifest.clips;
  }

  /** Length in samples (mu-law is one byte a sample). */
  sampleCount(clipId: string): number {
    const clip = this.manifest.clips[clipId];
    if (!clip) throw new Error(`Unknown demo clip ${clipId}`);
    return clip.bytes;
  }

  durationMs(clipId: string): number {
    return Math.ceil((this.sampleCount(clipId) * 1000) / this.sampleRate);
  }

  samples(clipId: string): Int16Array {
    let samples = this.decoded.get(clipId);
    if (!samples) {
      const file = join(this.resourcesDir, DEMO_SPEECH_FOLDER, `${clipId}.wav`);
      samples = decodeMuLawWav(readFileSync(file), file);
      this.decoded.set(clipId, samples);
    }
    return samples;
  }

  /** Path, relative to the resources folder, of a whole pre-rendered phone call (AAC in MP4). */
  callFile(scriptId: string): string | undefined {
    const call = this.manifest.calls[scriptId];
    return call && join(DEMO_SPEECH_FOLDER, call.file);
  }

  /** Size in bytes of a file under the resources folder. */
  fileSize(relativePath: string): number {
    return statSync(join(this.resourcesDir, relativePath)).size;
  }
}

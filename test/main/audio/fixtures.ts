import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { AudioSource } from '../../../src/main/audio/audio-stream';
import type { Peaks } from '../../../src/main/audio/peaks';
import { recipeByteLength, type AudioRecipe } from '../../../src/service/audio/recipe';
import type { ClinicService } from '../../../src/service/app';
import { MINUTE_MS, type RecordType } from '../../../src/shared/api';
import type { RunningService } from '../../service/harness';

export { noting } from './noting';
export { throttled } from './throttle';

/** A WAV recipe of `minutes` with speech clips every 4 s or so, at odd sample offsets. */
function speechRecipe(minutes: number): AudioRecipe {
  const samples = Math.round(minutes * 60 * 8000);
  const clips: [string, number][] = [];
  const ids = [
    'consult-vaccination-00',
    'consult-rabbit-gi-stasis-12',
    'consult-cat-not-eating-00',
  ];
  for (let at = 1001, i = 0; at + 8000 * 12 < samples; at += 8000 * 4 + 77, i++) {
    clips.push([ids[i % ids.length]!, at]);
  }
  return { sampleRate: 8000, samples, clips };
}

export interface SeedOptions {
  type?: RecordType;
  patient?: string | null;
  minutes?: number;
  audio?: 'wav' | 'mp4' | 'none';
  /** [type, content, minutes after the start] */
  notes?: [string, string, number][];
  fromMs?: number;
  /** The recording device (default an exam-room iPad); a hub's serial makes a hub record. */
  deviceSerial?: string;
}

/** Creates a label with audio straight in the service's store; returns its id. */
export function seedLabel(
  service: Pick<ClinicService, 'labels'> & Partial<Pick<ClinicService, 'clips'>>,
  orgId: string,
  options: SeedOptions = {},
): string {
  const { labels, clips } = service;
  const fromMs = options.fromMs ?? Date.UTC(2026, 9, 1, 9, 30);
  const minutes = options.minutes ?? 2;
  const patientId =
    options.patient === null
      ? null
      : labels.createPatient(orgId, options.patient ?? 'Maple', 'dog');
  const kind = options.audio ?? 'wav';
  let audio;
  if (kind === 'wav') {
    const recipe = speechRecipe(minutes);
    audio = {
      content_type: 'audio/wav' as const,
      byte_length: recipeByteLength(recipe),
      source_kind: 'recipe' as const,
      source: JSON.stringify(recipe),
    };
  } else if (kind === 'mp4') {
    if (!clips) throw new Error('An MP4 label needs the service’s clip bank.');
    const file = clips.callFile(Object.keys(clips.manifest.calls)[0]!)!;
    audio = {
      content_type: 'audio/mp4' as const,
      byte_length: clips.fileSize(file),
      source_kind: 'file' as const,
      source: file,
    };
  }
  return labels.create({
    organizationId: orgId,
    type: options.type ?? (kind === 'mp4' ? 'PhoneCallAudio' : 'ClinicConversation'),
    fromMs,
    toMs: fromMs + minutes * MINUTE_MS,
    patientId,
    friendlyName: 'Exam Room iPad',
    deviceSerial: options.deviceSerial ?? 'IPAD-1',
    notes: (options.notes ?? []).map(([type, content, after]) => ({
      type,
      content,
      createdMs: fromMs + after * MINUTE_MS,
      timeMs: fromMs + after * MINUTE_MS,
    })),
    ...(audio ? { audio } : {}),
  });
}

export const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
export const sha256File = (path: string) => sha256(readFileSync(path));

/** The service's whole audio body, fetched directly (not through the code under test). */
export async function serviceAudio(svc: RunningService, labelId: string): Promise<Buffer> {
  const response = await svc.call(`/labels/${labelId}/audio`, {
    key: svc.credentials.primary.apiKey,
  });
  if (!response.ok) throw new Error(`audio ${response.status}`);
  return Buffer.from(await response.arrayBuffer());
}

let tempRoot: string | undefined;

// Every temporary folder of a test file goes after its tests.
afterAll(() => {
  if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
  tempRoot = undefined;
});

/** A new temporary folder, removed after the test file. */
export function tempFolder(prefix = 'earmark-audio-'): string {
  tempRoot ??= mkdtempSync(join(tmpdir(), 'earmark-audio-tests-'));
  return mkdtempSync(join(tempRoot, prefix));
}

/** Names in a folder that a user would see (not dot files). */
export const visibleFiles = (folder: string) =>
  readdirSync(folder)
    .filter((name) => !name.startsWith('.'))
    .sort();

/** A source that rewrites what the service says about each audio response (name, type). */
export function rewriting(
  source: AudioSource,
  change: { filename?: string | null; contentType?: string },
): AudioSource {
  return {
    get: (...args) => source.get(...args),
    audio: async (...args) => ({ ...(await source.audio(...args)), ...change }),
  };
}

/**
 * Makes a folder refuse new files, whoever runs the tests: chmod for a normal user; root ignores
 * permissions, so for root the immutable attribute (chattr +i). Returns the undo, or a reason
 * when neither works here.
 */
export function makeUnwritable(folder: string): (() => void) | string {
  chmodSync(folder, 0o500);
  const probe = join(folder, '.probe');
  try {
    writeFileSync(probe, '');
    rmSync(probe);
  } catch {
    return () => chmodSync(folder, 0o700);
  }
  chmodSync(folder, 0o700);
  const set = spawnSync('chattr', ['+i', folder]);
  if (set.status !== 0) return `cannot make a folder read-only here: ${String(set.stderr)}`;
  return () => {
    spawnSync('chattr', ['-i', folder]);
  };
}

/**
 * The reference: the whole file decoded at once, then min/max per bucket of frames. Written
 * independently of peaks.ts (no streaming, no carry), to check the streaming result against.
 */
export function wholeFilePeaks(
  samples: Int16Array,
  channels: number,
  sampleRate: number,
  perSecond = 100,
): Peaks {
  const samplesPerPeak = Math.round(sampleRate / perSecond);
  const frames = Math.floor(samples.length / channels);
  const count = Math.ceil(frames / samplesPerPeak);
  const min = new Int16Array(count);
  const max = new Int16Array(count);
  for (let b = 0; b < count; b++) {
    const from = b * samplesPerPeak * channels;
    const to = Math.min(frames * channels, (b + 1) * samplesPerPeak * channels);
    let low = 32767;
    let high = -32768;
    for (let i = from; i < to; i++) {
      low = Math.min(low, samples[i]!);
      high = Math.max(high, samples[i]!);
    }
    min[b] = low;
    max[b] = high;
  }
  return { sampleRate, samplesPerPeak, frames, min, max };
}

/** The byte ranges a partial file's state lists as flushed to disk. */
export function streamedRanges(dataPath: string): [number, number][] {
  try {
    return (JSON.parse(readFileSync(`${dataPath}.json`, 'utf8')) as { ranges: [number, number][] })
      .ranges;
  } catch {
    return [];
  }
}

/** Bytes a partial file's state lists as flushed to disk, or 0. */
export const durableBytes = (dataPath: string): number =>
  streamedRanges(dataPath).reduce((sum, [start, end]) => sum + end - start, 0);

/** A source whose answers carry no ETag and no Last-Modified: nothing can guard a resume. */
export function withoutValidators(source: AudioSource): AudioSource {
  return {
    get: (...args) => source.get(...args),
    audio: async (...args) => ({
      ...(await source.audio(...args)),
      etag: null,
      lastModified: null,
    }),
  };
}

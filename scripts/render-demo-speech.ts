// Renders the demo dialogue bank to speech clips in resources/demo-speech.
// Usage: npx tsx scripts/render-demo-speech.ts

import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { DIALOGUE_SCRIPTS, clipId, type Speaker } from '../src/service/demo/dialogue';

const OUT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../resources/demo-speech');
const SAMPLE_RATE = 8000;
const WORDS_PER_MINUTE = '160';
const CALL_GAP_SECONDS = '0.6';

const VOICES: Record<Speaker, string> = {
  Vet: 'en-gb+m3',
  Owner: 'en-us+f3',
  Nurse: 'en-gb+f2',
  Receptionist: 'en-us+f4',
};

const MU_LAW_8K = ['-r', String(SAMPLE_RATE), '-c', '1', '-e', 'mu-law', '-b', '8'];
// Drops espeak's lead-in and tail silence at both ends (reverse, trim, reverse back).
const SILENCE_AT_START = ['silence', '1', '0.02', '0.1%'];
const TRIM_SILENCE = [...SILENCE_AT_START, 'reverse', ...SILENCE_AT_START, 'reverse'];

interface ClipEntry {
  durationMs: number;
  bytes: number;
}

interface CallEntry {
  file: string;
  durationMs: number;
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

// -R seeds sox's dither with a fixed value, so reruns produce identical bytes.
function sox(args: string[]): void {
  run('sox', ['-R', ...args]);
}

function requireTools(): void {
  const checks: [string, string[]][] = [
    ['espeak-ng', ['--version']],
    ['sox', ['--version']],
    ['ffmpeg', ['-version']],
    ['ffprobe', ['-version']],
  ];
  const missing = checks.filter(([cmd, args]) => {
    try {
      run(cmd, args);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length > 0) {
    const names = missing.map(([cmd]) => cmd).join(', ');
    throw new Error(
      `render-demo-speech needs ${names} on PATH (Debian/Ubuntu: apt-get install espeak-ng sox ffmpeg).`,
    );
  }
}

// Reads the sample rate, bytes per second and data chunk size straight from the RIFF header.
function readWavInfo(path: string): ClipEntry {
  const buf = readFileSync(path);
  if (buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${path} is not a WAV file`);
  }
  let byteRate = 0;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      byteRate = buf.readUInt32LE(offset + 16);
    } else if (id === 'data') {
      if (byteRate === 0) throw new Error(`${path} has no fmt chunk before its data`);
      return { durationMs: Math.round((size / byteRate) * 1000), bytes: size };
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error(`${path} has no data chunk`);
}

function probeDurationMs(path: string): number {
  const out = run('ffprobe', [
    '-v',
    'error',
    '-show_entries',
    'format=duration',
    '-of',
    'default=noprint_wrappers=1:nokey=1',
    path,
  ]);
  const seconds = Number.parseFloat(out.trim());
  if (!Number.isFinite(seconds)) throw new Error(`ffprobe could not read the duration of ${path}`);
  return Math.round(seconds * 1000);
}

function renderClip(speaker: Speaker, text: string, tmpWav: string, outWav: string): void {
  run('espeak-ng', ['-v', VOICES[speaker], '-s', WORDS_PER_MINUTE, '-w', tmpWav, text]);
  sox([tmpWav, ...MU_LAW_8K, outWav, ...TRIM_SILENCE]);
}

function renderCall(clipPaths: string[], tmp: string, outM4a: string): void {
  const gap = join(tmp, 'gap.wav');
  sox(['-n', ...MU_LAW_8K, gap, 'trim', '0', CALL_GAP_SECONDS]);
  const joined = join(tmp, 'call.wav');
  const parts = clipPaths.flatMap((clip, i) => (i === 0 ? [clip] : [gap, clip]));
  sox([...parts, joined]);
  // bitexact keeps encoder version strings and timestamps out, so reruns produce identical bytes.
  run('ffmpeg', [
    '-y',
    '-v',
    'error',
    '-i',
    joined,
    '-map_metadata',
    '-1',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'aac',
    '-b:a',
    '24k',
    '-fflags',
    '+bitexact',
    '-flags:a',
    '+bitexact',
    '-movflags',
    '+faststart',
    outM4a,
  ]);
}

function removeStale(expected: Set<string>): void {
  for (const name of readdirSync(OUT_DIR)) {
    if (/\.(wav|m4a)$/.test(name) && !expected.has(name)) rmSync(join(OUT_DIR, name));
  }
}

function main(): void {
  requireTools();
  mkdirSync(OUT_DIR, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), 'earmark-speech-'));
  const clips: Record<string, ClipEntry> = {};
  const calls: Record<string, CallEntry> = {};
  const expected = new Set<string>();
  try {
    for (const script of DIALOGUE_SCRIPTS) {
      const clipPaths = script.lines.map((line, index) => {
        const id = clipId(script.id, index);
        const outWav = join(OUT_DIR, `${id}.wav`);
        renderClip(line.speaker, line.text, join(tmp, 'espeak.wav'), outWav);
        clips[id] = readWavInfo(outWav);
        expected.add(`${id}.wav`);
        return outWav;
      });
      if (script.kind === 'phone') {
        const file = `${script.id}.m4a`;
        const outM4a = join(OUT_DIR, file);
        renderCall(clipPaths, tmp, outM4a);
        calls[script.id] = { file, durationMs: probeDurationMs(outM4a) };
        expected.add(file);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  removeStale(expected);

  const manifest = {
    format: { sampleRate: SAMPLE_RATE, encoding: 'mu-law', channels: 1 },
    clips,
    calls,
  };
  writeFileSync(join(OUT_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const totalBytes = readdirSync(OUT_DIR).reduce(
    (sum, name) => sum + statSync(join(OUT_DIR, name)).size,
    0,
  );
  console.log(
    `render-demo-speech: ${Object.keys(clips).length} clips, ${Object.keys(calls).length} calls, ` +
      `${totalBytes} bytes in ${OUT_DIR}`,
  );
}

main();

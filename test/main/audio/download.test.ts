import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { announceSkip, skipBecause } from '../../support/skip';
import { ApiError } from '../../../src/main/api/errors';
import {
  downloadLabelAudio,
  partialPathOf,
  type AudioSource,
  type DownloadProgress,
} from '../../../src/main/audio/download';
import { AudioError } from '../../../src/main/audio/errors';
import { decodePeaks, findFfmpeg } from '../../../src/main/audio/peaks';
import { useProxiedService } from '../api/helpers';
import * as fx from './fixtures';

const ffmpeg = await findFfmpeg();
announceSkip('MP4 peaks through ffmpeg', ffmpeg ? undefined : 'there is no ffmpeg on the PATH');

const env = useProxiedService();
let wavId: string;
let longWavId: string;
let mp4Id: string;
let silentId: string;
let wav: Buffer;
let longWav: Buffer;
const pad = (n: number) => String(n).padStart(2, '0');
const FROM = Date.UTC(2026, 9, 1, 9, 30);
const local = new Date(FROM);
const WHEN = `${local.getFullYear()}-${pad(local.getMonth() + 1)}-${pad(local.getDate())} ${pad(local.getHours())}${pad(local.getMinutes())}`;

beforeAll(async () => {
  const orgId = env.svc.credentials.primary.organizationId;
  const { service } = env.svc;
  wavId = fx.seedLabel(service, orgId, { minutes: 2, fromMs: FROM });
  longWavId = fx.seedLabel(service, orgId, { minutes: 12, patient: 'Rocky' });
  mp4Id = fx.seedLabel(service, orgId, { audio: 'mp4', patient: 'Biscuit' });
  silentId = fx.seedLabel(service, orgId, { audio: 'none' });
  wav = await fx.serviceAudio(env.svc, wavId);
  longWav = await fx.serviceAudio(env.svc, longWavId);
});

const source = (): AudioSource => env.client.labels;

async function rejection<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  const error = await promise.then(
    () => expect.fail('expected a rejection'),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

describe('a whole download', () => {
  it('streams into a hidden file, then publishes it whole under the service’s name, with peaks', async () => {
    const folder = fx.tempFolder();
    const progress: DownloadProgress[] = [];
    const result = await downloadLabelAudio(source(), wavId, {
      folder,
      peaks: true,
      onProgress: (p) => progress.push(p),
    });
    const name = `Maple ${WHEN} ClinicConversation.wav`;
    expect(result).toMatchObject({
      name,
      path: join(folder, name),
      bytes: wav.length,
      contentType: 'audio/wav',
      sha256: fx.sha256(wav),
      resumedFrom: 0,
      requests: [{ offset: 0, status: 200 }],
    });
    expect(readFileSync(result.path).equals(wav)).toBe(true);
    expect(readdirSync(folder).sort()).toEqual([name, `${name}.peaks`]);
    expect(progress.at(-1)).toEqual({
      labelId: wavId,
      bytesDone: wav.length,
      bytesTotal: wav.length,
    });
    const done = progress.map((p) => p.bytesDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));

    // Peaks computed while streaming equal peaks of the whole file decoded at once.
    const samples = new Int16Array(
      wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length),
    );
    const expected = fx.wholeFilePeaks(samples, 1, 8000);
    const stored = decodePeaks(readFileSync(result.peaksPath!));
    expect(stored.frames).toBe(expected.frames);
    expect(Array.from(stored.min)).toEqual(Array.from(expected.min));
    expect(Array.from(stored.max)).toEqual(Array.from(expected.max));
    expect(result.timings.peaksAt).toBeLessThanOrEqual(result.timings.doneAt);
  });

  it('takes the extension from Content-Type: MP4 becomes .m4a, whatever the name says', async () => {
    const folder = fx.tempFolder();
    const result = await downloadLabelAudio(
      fx.rewriting(source(), { filename: 'call.wav' }),
      mp4Id,
      {
        folder,
        peaks: true,
      },
    );
    expect(result.name).toBe('call.m4a');
    expect(result.contentType).toBe('audio/mp4');
    expect(result.peaksPath).toBeNull();
    expect(result.peaksUnavailable).toMatch(/without ffmpeg/);
    expect(fx.sha256File(result.path)).toBe(fx.sha256(await fx.serviceAudio(env.svc, mp4Id)));
    expect(fx.visibleFiles(folder)).toEqual(['call.m4a']);
  });

  it.skipIf(!ffmpeg)('stores MP4 peaks when given ffmpeg', async () => {
    const folder = fx.tempFolder();
    const result = await downloadLabelAudio(source(), mp4Id, { folder, peaks: true, ffmpeg });
    expect(result.name).toMatch(/^Biscuit .* PhoneCallAudio\.m4a$/);
    const peaks = decodePeaks(readFileSync(result.peaksPath!));
    expect(peaks.frames / peaks.sampleRate).toBeGreaterThan(20);
  });

  it('names the file from patient, date and kind (in plain words) when the service suggests no name', async () => {
    const folder = fx.tempFolder();
    const result = await downloadLabelAudio(fx.rewriting(source(), { filename: null }), wavId, {
      folder,
    });
    expect(result.name).toBe(`Maple ${WHEN} Clinic recording.wav`);
  });

  it('refuses an answer that is not audio, and writes nothing', async () => {
    const folder = fx.tempFolder();
    const error = await rejection(
      downloadLabelAudio(
        fx.rewriting(source(), { contentType: 'text/html; charset=utf-8' }),
        wavId,
        {
          folder,
        },
      ),
      AudioError,
    );
    expect(error.kind).toBe('not_audio');
    expect(readdirSync(folder)).toEqual([]);
  });

  it('tells a label without audio (no_audio) from an unknown label (not_found)', async () => {
    const folder = fx.tempFolder();
    const none = await rejection(downloadLabelAudio(source(), silentId, { folder }), AudioError);
    expect(none.kind).toBe('no_audio');
    const unknown = await rejection(
      downloadLabelAudio(source(), '00000000-0000-4000-8000-000000000000', { folder }),
      ApiError,
    );
    expect(unknown.kind).toBe('not_found');
    expect(readdirSync(folder)).toEqual([]);
  });
});

describe('two downloads of one label into one folder at once', () => {
  it('take turns on the partial file: both whole, the second keeps both', async () => {
    const folder = fx.tempFolder();
    const [a, b] = await Promise.all([
      downloadLabelAudio(source(), wavId, { folder, onExists: 'keep-both' }),
      downloadLabelAudio(source(), wavId, { folder, onExists: 'keep-both', sha256: false }),
    ]);
    expect(new Set([a.name, b.name]).size).toBe(2);
    expect(fx.sha256File(a.path)).toBe(fx.sha256(wav));
    expect(fx.sha256File(b.path)).toBe(fx.sha256(wav));
    expect(a.sha256).toBe(fx.sha256(wav));
    expect(b.sha256).toBeNull();
    expect(readdirSync(folder).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});

describe('downloads of different labels at once', () => {
  it('each gets the SHA-256 and the peaks of its own file (one digest thread serves them all)', async () => {
    const folder = fx.tempFolder();
    const [short, long] = await Promise.all([
      downloadLabelAudio(fx.throttled(source()), wavId, { folder, peaks: true }),
      downloadLabelAudio(source(), longWavId, { folder, peaks: true }),
    ]);
    for (const [result, bytes] of [
      [short, wav],
      [long, longWav],
    ] as const) {
      expect(result.sha256).toBe(fx.sha256(bytes));
      const samples = new Int16Array(
        bytes.buffer.slice(bytes.byteOffset + 44, bytes.byteOffset + bytes.length),
      );
      expect(Array.from(decodePeaks(readFileSync(result.peaksPath!)).min)).toEqual(
        Array.from(fx.wholeFilePeaks(samples, 1, 8000).min),
      );
    }
  });
});

describe('hostile names from Content-Disposition land inside the folder, made safe', () => {
  it.each([
    ['../../x', 'x.wav'],
    ['C:\\x', 'x.wav'],
    ['CON', '_CON.wav'],
    ['a\u0000b.wav', 'a_b.wav'],
    ['', `Maple ${WHEN} Clinic recording.wav`],
    ['猫 Ünïcödé 🐶.wav', '猫 Ünïcödé 🐶.wav'],
  ])('%j → %j', async (suggested, expected) => {
    const parent = fx.tempFolder();
    const folder = join(parent, 'inside');
    mkdirSync(folder);
    const result = await downloadLabelAudio(
      fx.rewriting(source(), { filename: suggested }),
      wavId,
      {
        folder,
      },
    );
    expect(result.name).toBe(expected);
    expect(dirname(result.path)).toBe(folder);
    expect(fx.visibleFiles(folder)).toEqual([expected]);
    expect(readdirSync(parent)).toEqual(['inside']);
  });

  it('bounds a very long name and keeps .wav', async () => {
    const folder = fx.tempFolder();
    const result = await downloadLabelAudio(
      fx.rewriting(source(), { filename: `${'ж'.repeat(400)}.wav` }),
      wavId,
      {
        folder,
      },
    );
    expect(Buffer.byteLength(result.name)).toBeLessThanOrEqual(200);
    expect(result.name).toMatch(/^ж+\.wav$/);
    expect(existsSync(result.path)).toBe(true);
  });
});

describe('never overwrites without the caller’s choice', () => {
  const name = `Maple ${WHEN} ClinicConversation.wav`;

  it("'ask' (the default) rejects with file_exists, leaving the file as it was", async () => {
    const folder = fx.tempFolder();
    writeFileSync(join(folder, name), 'the vet’s own file');
    const error = await rejection(downloadLabelAudio(source(), wavId, { folder }), AudioError);
    expect(error.kind).toBe('file_exists');
    expect(error.fileName).toBe(name);
    expect(readFileSync(join(folder, name), 'utf8')).toBe('the vet’s own file');
    expect(fx.visibleFiles(folder)).toEqual([name]);
  });

  it("'keep-both' picks “name (2).wav”, then “(3)”", async () => {
    const folder = fx.tempFolder();
    writeFileSync(join(folder, name), 'mine');
    const second = await downloadLabelAudio(source(), wavId, { folder, onExists: 'keep-both' });
    const third = await downloadLabelAudio(source(), wavId, { folder, onExists: 'keep-both' });
    expect(second.name).toBe(`Maple ${WHEN} ClinicConversation (2).wav`);
    expect(third.name).toBe(`Maple ${WHEN} ClinicConversation (3).wav`);
    expect(readFileSync(join(folder, name), 'utf8')).toBe('mine');
    expect(fx.sha256File(third.path)).toBe(fx.sha256(wav));
  });

  it("'replace' replaces it", async () => {
    const folder = fx.tempFolder();
    writeFileSync(join(folder, name), 'old');
    const result = await downloadLabelAudio(source(), wavId, { folder, onExists: 'replace' });
    expect(result.name).toBe(name);
    expect(fx.sha256File(join(folder, name))).toBe(fx.sha256(wav));
  });
});

describe('resume', () => {
  it('resumes with Range after the connection drops mid-body', async () => {
    const folder = fx.tempFolder();
    env.proxy.inject({ kind: 'drop-mid-body' });
    const result = await downloadLabelAudio(source(), longWavId, { folder, retryDelayMs: 10 });
    expect(result.requests).toHaveLength(2);
    expect(result.requests[0]).toEqual({ offset: 0, status: 200 });
    expect(result.requests[1]!.status).toBe(206);
    expect(result.requests[1]!.offset).toBeGreaterThan(0);
    expect(result.requests[1]!.offset).toBeLessThan(longWav.length);
    expect(result.sha256).toBe(fx.sha256(longWav));
    expect(fx.sha256File(result.path)).toBe(fx.sha256(longWav));
    expect(readdirSync(folder)).toEqual([result.name]);
  });

  it('keeps the partial file when cancelled, and resumes it in a later call', async () => {
    const folder = fx.tempFolder();
    const controller = new AbortController();
    const seen: number[] = [];
    const first = downloadLabelAudio(fx.throttled(source()), longWavId, {
      folder,
      peaks: true,
      signal: controller.signal,
      onProgress: ({ bytesDone }) => {
        seen.push(bytesDone);
        if (bytesDone > 1024 * 1024) controller.abort();
      },
      progressIntervalMs: 0,
    });
    const error = await rejection(first, AudioError);
    expect(error.kind).toBe('cancelled');
    expect(fx.visibleFiles(folder)).toEqual([]);
    const partial = partialPathOf(folder, longWavId);
    expect(readFileSync(partial).length).toBeGreaterThan(1024 * 1024);

    const result = await downloadLabelAudio(source(), longWavId, { folder, peaks: true });
    expect(result.resumedFrom).toBeGreaterThan(1024 * 1024);
    expect(result.requests).toEqual([{ offset: result.resumedFrom, status: 206 }]);
    expect(fx.sha256File(result.path)).toBe(fx.sha256(longWav));
    expect(result.sha256).toBe(fx.sha256(longWav));
    // Peaks over the resumed file are those of the whole file.
    const samples = new Int16Array(
      longWav.buffer.slice(longWav.byteOffset + 44, longWav.byteOffset + longWav.length),
    );
    expect(Array.from(decodePeaks(readFileSync(result.peaksPath!)).max)).toEqual(
      Array.from(fx.wholeFilePeaks(samples, 1, 8000).max),
    );
    expect(readdirSync(folder).sort()).toEqual([result.name, `${result.name}.peaks`]);
  });

  it('starts over when the file changed (If-Range with a stale ETag answers 200)', async () => {
    const folder = fx.tempFolder();
    const partial = partialPathOf(folder, wavId);
    writeFileSync(partial, Buffer.alloc(5000, 0x55));
    const state = {
      version: 1,
      labelId: wavId,
      etag: '"stale"',
      total: wav.length,
      contentType: 'audio/wav',
      suggested: 'x.wav',
      durableBytes: 5000,
    };
    writeFileSync(`${partial}.json`, JSON.stringify(state));
    const result = await downloadLabelAudio(source(), wavId, { folder });
    expect(result.requests).toEqual([{ offset: 5000, status: 200 }]);
    expect(result.sha256).toBe(fx.sha256(wav));
    expect(fx.sha256File(result.path)).toBe(fx.sha256(wav));
  });

  it('gives up with length_mismatch when the body keeps ending short of its length', async () => {
    const folder = fx.tempFolder();
    // The first answer stops after 10 bytes, every resume after none: no progress.
    const short: AudioSource = {
      get: (...args) => env.client.labels.get(...args),
      audio: async (...args) => {
        const audio = await env.client.labels.audio(...args);
        audio.body.destroy();
        return { ...audio, body: Readable.from(audio.status === 200 ? [Buffer.alloc(10)] : []) };
      },
    };
    const error = await rejection(
      downloadLabelAudio(short, wavId, { folder, retryDelayMs: 1, maxStalls: 2 }),
      AudioError,
    );
    expect(error.kind).toBe('length_mismatch');
    expect(error.detail).toMatch(/ended at 10 of \d+ bytes/);
    expect(fx.visibleFiles(folder)).toEqual([]);
  });

  it('gives up after maxInterruptions even when each attempt makes progress', async () => {
    const folder = fx.tempFolder();
    let requests = 0;
    const trickle: AudioSource = {
      get: (...args) => env.client.labels.get(...args),
      audio: async (...args) => {
        requests++;
        const audio = await env.client.labels.audio(...args);
        audio.body.destroy();
        return { ...audio, body: Readable.from([Buffer.alloc(10)]) };
      },
    };
    const error = await rejection(
      downloadLabelAudio(trickle, wavId, { folder, retryDelayMs: 1, maxInterruptions: 3 }),
      AudioError,
    );
    expect(error.kind).toBe('length_mismatch');
    expect(requests).toBe(4);
  });
});

describe('a service that cannot be reached', () => {
  it('fails at once as offline (the client has retried), without waiting out the stalls', async () => {
    const folder = fx.tempFolder();
    let requests = 0;
    const unreachable: AudioSource = {
      get: (...args) => env.client.labels.get(...args),
      audio: () => {
        requests++;
        return Promise.reject(new ApiError('offline'));
      },
    };
    const error = await rejection(
      downloadLabelAudio(unreachable, wavId, { folder, retryDelayMs: 60_000 }),
      ApiError,
    );
    expect(error.kind).toBe('offline');
    expect(requests).toBe(1);
    expect(fx.visibleFiles(folder)).toEqual([]);
  });
});

describe('folders that cannot take the file', () => {
  it('a missing folder: folder_missing', async () => {
    const error = await rejection(
      downloadLabelAudio(source(), wavId, { folder: join(fx.tempFolder(), 'gone') }),
      AudioError,
    );
    expect(error.kind).toBe('folder_missing');
  });

  it('a read-only folder: folder_not_writable, nothing left', async (context) => {
    const folder = fx.tempFolder();
    const undo = fx.makeUnwritable(folder);
    if (typeof undo === 'string') return skipBecause(context, undo);
    try {
      const error = await rejection(downloadLabelAudio(source(), wavId, { folder }), AudioError);
      expect(error.kind).toBe('folder_not_writable');
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      undo();
    }
  });
});

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { skipBecause } from '../../support/skip';
import { ApiError } from '../../../src/main/service-client/errors';
import type { AudioSource } from '../../../src/main/audio/audio-stream';
import { AudioError } from '../../../src/main/audio/errors';
import {
  exportAudio,
  exportPartialPathOf,
  type ExportAudioOptions,
  type ExportAudioProgress,
} from '../../../src/main/export/export-audio';
import { useProxiedService } from '../service-client/helpers';
import * as fx from '../audio/fixtures';

/**
 * An export's download of one recording, through the app's one download engine
 * (src/main/audio/audio-stream.ts): whole files under their final names, the SHA-256 read back,
 * resumed after a drop, a cancel or a changed file, never over the user's files.
 */

const env = useProxiedService();
let wavId: string;
let longWavId: string;
let mp4Id: string;
let silentId: string;
let wav: Buffer;
let longWav: Buffer;
const STEM = 'Maple 2026-10-01 0930 Clinic recording';

beforeAll(async () => {
  const orgId = env.svc.credentials.primary.organizationId;
  const { service } = env.svc;
  wavId = fx.seedLabel(service, orgId, { minutes: 2 });
  longWavId = fx.seedLabel(service, orgId, { minutes: 12, patient: 'Rocky' });
  mp4Id = fx.seedLabel(service, orgId, { audio: 'mp4', patient: 'Biscuit' });
  silentId = fx.seedLabel(service, orgId, { audio: 'none' });
  wav = await fx.serviceAudio(env.svc, wavId);
  longWav = await fx.serviceAudio(env.svc, longWavId);
});

const source = (): AudioSource => env.client.labels;
const download = (
  from: AudioSource,
  labelId: string,
  options: Partial<ExportAudioOptions> & { folder: string },
) => exportAudio(from, labelId, { stem: STEM, onExists: 'ask', ...options });

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
  it('streams into a hidden file, then publishes it whole under its final name, with its SHA-256', async () => {
    const folder = fx.tempFolder();
    const progress: ExportAudioProgress[] = [];
    const result = await download(source(), wavId, {
      folder,
      onProgress: (p) => progress.push(p),
    });
    const name = `${STEM}.wav`;
    expect(result).toEqual({
      name,
      path: join(folder, name),
      bytes: wav.length,
      contentType: 'audio/wav',
      sha256: fx.sha256(wav),
    });
    expect(readFileSync(result.path).equals(wav)).toBe(true);
    expect(readdirSync(folder)).toEqual([name]);
    expect(progress.at(-1)).toEqual({ bytesDone: wav.length, bytesTotal: wav.length });
    const done = progress.map((p) => p.bytesDone);
    expect(done).toEqual([...done].sort((a, b) => a - b));
  });

  it('takes the extension from Content-Type: MP4 becomes .m4a, whatever the service calls it', async () => {
    const folder = fx.tempFolder();
    const result = await download(fx.rewriting(source(), { filename: 'call.wav' }), mp4Id, {
      folder,
      stem: 'call',
    });
    expect(result.name).toBe('call.m4a');
    expect(result.contentType).toBe('audio/mp4');
    expect(result.sha256).toBe(fx.sha256(await fx.serviceAudio(env.svc, mp4Id)));
    expect(fx.sha256File(result.path)).toBe(result.sha256);
    expect(readdirSync(folder)).toEqual(['call.m4a']);
  });

  it('refuses an answer that is not audio, and writes nothing', async () => {
    const folder = fx.tempFolder();
    const error = await rejection(
      download(fx.rewriting(source(), { contentType: 'text/html; charset=utf-8' }), wavId, {
        folder,
      }),
      AudioError,
    );
    expect(error.kind).toBe('not_audio');
    expect(readdirSync(folder)).toEqual([]);
  });

  it('tells a label without audio (no_audio) from an unknown label (not_found)', async () => {
    const folder = fx.tempFolder();
    const none = await rejection(download(source(), silentId, { folder }), AudioError);
    expect(none.kind).toBe('no_audio');
    const unknown = await rejection(
      download(source(), '00000000-0000-4000-8000-000000000000', { folder }),
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
      download(source(), wavId, { folder, onExists: 'keep-both' }),
      download(source(), wavId, { folder, onExists: 'keep-both' }),
    ]);
    expect(new Set([a.name, b.name]).size).toBe(2);
    for (const result of [a, b]) {
      expect(fx.sha256File(result.path)).toBe(fx.sha256(wav));
      expect(result.sha256).toBe(fx.sha256(wav));
    }
    expect(readdirSync(folder).filter((name) => name.startsWith('.'))).toEqual([]);
  });
});

describe('downloads of different labels at once', () => {
  it('each gets the SHA-256 of its own file (one digest thread serves them all)', async () => {
    const folder = fx.tempFolder();
    const [short, long] = await Promise.all([
      download(fx.throttled(source()), wavId, { folder, stem: 'short' }),
      download(source(), longWavId, { folder, stem: 'long' }),
    ]);
    expect(short.sha256).toBe(fx.sha256(wav));
    expect(long.sha256).toBe(fx.sha256(longWav));
    expect(fx.sha256File(short.path)).toBe(short.sha256);
    expect(fx.sha256File(long.path)).toBe(long.sha256);
  });
});

describe('hostile names land inside the folder, made safe', () => {
  it.each([
    ['../../x', 'x.wav'],
    ['C:\\x', 'x.wav'],
    ['CON', '_CON.wav'],
    ['a\u0000b', 'a_b.wav'],
    ['猫 Ünïcödé 🐶', '猫 Ünïcödé 🐶.wav'],
  ])('%j → %j', async (stem, expected) => {
    const parent = fx.tempFolder();
    const folder = join(parent, 'inside');
    mkdirSync(folder);
    const result = await download(source(), wavId, { folder, stem });
    expect(result.name).toBe(expected);
    expect(dirname(result.path)).toBe(folder);
    expect(readdirSync(folder)).toEqual([expected]);
    expect(readdirSync(parent)).toEqual(['inside']);
  });

  it('bounds a very long name and keeps .wav', async () => {
    const folder = fx.tempFolder();
    const result = await download(source(), wavId, { folder, stem: 'ж'.repeat(400) });
    expect(Buffer.byteLength(result.name)).toBeLessThanOrEqual(200);
    expect(result.name).toMatch(/^ж+\.wav$/);
    expect(existsSync(result.path)).toBe(true);
  });
});

describe('never overwrites without the caller’s choice', () => {
  const name = `${STEM}.wav`;

  it("'ask' rejects with file_exists before downloading, leaving the file as it was", async () => {
    const folder = fx.tempFolder();
    writeFileSync(join(folder, name), 'the vet’s own file');
    const error = await rejection(download(source(), longWavId, { folder }), AudioError);
    expect(error.kind).toBe('file_exists');
    expect(error.fileName).toBe(name);
    expect(readFileSync(join(folder, name), 'utf8')).toBe('the vet’s own file');
    expect(readdirSync(folder)).toEqual([name]);
  });

  it("'keep-both' picks “name (2).wav”, then “(3)”", async () => {
    const folder = fx.tempFolder();
    writeFileSync(join(folder, name), 'mine');
    const second = await download(source(), wavId, { folder, onExists: 'keep-both' });
    const third = await download(source(), wavId, { folder, onExists: 'keep-both' });
    expect(second.name).toBe(`${STEM} (2).wav`);
    expect(third.name).toBe(`${STEM} (3).wav`);
    expect(readFileSync(join(folder, name), 'utf8')).toBe('mine');
    expect(fx.sha256File(third.path)).toBe(fx.sha256(wav));
  });

  it("'replace' replaces it", async () => {
    const folder = fx.tempFolder();
    writeFileSync(join(folder, name), 'old');
    const result = await download(source(), wavId, { folder, onExists: 'replace' });
    expect(result.name).toBe(name);
    expect(fx.sha256File(join(folder, name))).toBe(fx.sha256(wav));
  });
});

describe('resume', () => {
  it('resumes with Range after the connection drops mid-body', async () => {
    const folder = fx.tempFolder();
    env.proxy.inject({ kind: 'drop-mid-body' });
    const { source: seen, requests } = fx.noting(source());
    const result = await download(seen, longWavId, { folder, tuning: { retryDelayMs: 10 } });
    expect(requests).toHaveLength(2);
    expect(requests[0]).toEqual({ offset: 0, status: 206 });
    expect(requests[1]!.status).toBe(206);
    expect(requests[1]!.offset).toBeGreaterThan(0);
    expect(requests[1]!.offset).toBeLessThan(longWav.length);
    // The second request asked for the rest only, guarded by the file's validator.
    const [, resumed] = env.proxy.seen({ path: `/labels/${longWavId}/audio` });
    expect(resumed!.headers.range).toBe(`bytes=${requests[1]!.offset}-${longWav.length - 1}`);
    expect(resumed!.headers['if-range']).toBeTruthy();
    expect(result.sha256).toBe(fx.sha256(longWav));
    expect(fx.sha256File(result.path)).toBe(fx.sha256(longWav));
    expect(readdirSync(folder)).toEqual([result.name]);
  });

  it('keeps the partial file when cancelled, and resumes it in a later call', async () => {
    const folder = fx.tempFolder();
    const controller = new AbortController();
    const first = download(fx.throttled(source()), longWavId, {
      folder,
      signal: controller.signal,
      tuning: { checkpointBytes: 256 * 1024 },
      onProgress: ({ bytesDone }) => {
        if (bytesDone > 1024 * 1024) controller.abort();
      },
    });
    const error = await rejection(first, AudioError);
    expect(error.kind).toBe('cancelled');
    expect(fx.visibleFiles(folder)).toEqual([]);
    const partial = exportPartialPathOf(folder, longWavId);
    const kept = fx.durableBytes(partial);
    expect(kept).toBeGreaterThan(1024 * 1024);

    const { source: seen, requests } = fx.noting(source());
    const result = await download(seen, longWavId, { folder });
    expect(requests).toEqual([{ offset: kept, status: 206 }]);
    expect(fx.sha256File(result.path)).toBe(fx.sha256(longWav));
    // The hash covers the bytes kept from the first call too.
    expect(result.sha256).toBe(fx.sha256(longWav));
    expect(readdirSync(folder)).toEqual([result.name]);
  });

  it('starts over when the file changed (If-Range with a stale ETag answers 200)', async () => {
    const folder = fx.tempFolder();
    const partial = exportPartialPathOf(folder, wavId);
    writeFileSync(partial, Buffer.alloc(5000, 0x55));
    const state = {
      version: 2,
      labelId: wavId,
      facts: { total: wav.length, contentType: 'audio/wav', etag: '"stale"', lastModified: null },
      ranges: [[0, 5000]],
    };
    writeFileSync(`${partial}.json`, JSON.stringify(state));
    const { source: seen, requests } = fx.noting(source());
    const result = await download(seen, wavId, { folder });
    expect(requests).toEqual([{ offset: 5000, status: 200 }]);
    expect(env.proxy.seen({ path: `/labels/${wavId}/audio` })[0]!.headers['if-range']).toBe(
      '"stale"',
    );
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
        const first = args[1]?.range?.start === 0;
        return { ...audio, body: Readable.from(first ? [Buffer.alloc(10)] : []) };
      },
    };
    const error = await rejection(
      download(short, wavId, { folder, tuning: { retryDelayMs: 1, maxStalls: 2 } }),
      AudioError,
    );
    expect(error.kind).toBe('length_mismatch');
    expect(error.detail).toMatch(/ended at 10, before \d+/);
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
      download(trickle, wavId, { folder, tuning: { retryDelayMs: 1, maxInterruptions: 3 } }),
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
      download(unreachable, wavId, { folder, tuning: { retryDelayMs: 60_000 } }),
      ApiError,
    );
    expect(error.kind).toBe('offline');
    expect(requests).toBe(1);
    expect(readdirSync(folder)).toEqual([]);
  });
});

describe('folders that cannot take the file', () => {
  it('a missing folder: folder_missing', async () => {
    const error = await rejection(
      download(source(), wavId, { folder: join(fx.tempFolder(), 'gone') }),
      AudioError,
    );
    expect(error.kind).toBe('folder_missing');
  });

  it('a read-only folder: folder_not_writable, nothing left', async (context) => {
    const folder = fx.tempFolder();
    const undo = fx.makeUnwritable(folder);
    if (typeof undo === 'string') return skipBecause(context, undo);
    try {
      const error = await rejection(download(source(), wavId, { folder }), AudioError);
      expect(error.kind).toBe('folder_not_writable');
      expect(readdirSync(folder)).toEqual([]);
    } finally {
      undo();
    }
  });
});

import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountKey, SealedDataError } from '../../../src/main/at-rest/account-key';
import { CHUNK_BYTES, sealBytes } from '../../../src/main/at-rest/sealed-file';
import {
  mediaFetchResponse,
  parseRange,
  sendMedia,
  serveMedia,
  type MediaFile,
} from '../../../src/main/audio/media';
import { tempFolder } from './fixtures';

/** Two chunks of a sealed file and a part: ranges cross a chunk's end. */
const SIZE = 100_000;
/** A WAV's first bytes, then noise. */
const data = Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEfmt '), randomBytes(SIZE - 16)]);
const key = AccountKey.random().key;

/**
 * The media route serves a file in the clear (an export's way of writing, the benchmarks'
 * baseline) and a file sealed under the account's key (the audio cache's, issue 30) alike: the
 * plain bytes, by any range.
 */
const KINDS = {
  'in the clear': {
    write: (path: string, bytes: Buffer | string): MediaFile => {
      writeFileSync(path, bytes);
      return { path };
    },
  },
  sealed: {
    write: (path: string, bytes: Buffer | string): MediaFile => {
      writeFileSync(path, sealBytes(key, Buffer.from(bytes)));
      return { path, key };
    },
  },
};
const kinds = Object.keys(KINDS) as (keyof typeof KINDS)[];

async function bytesOf(body: Readable | null): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body ?? []) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('parseRange', () => {
  it.each([
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=100-', { start: 100, end: SIZE - 1 }],
    ['bytes=-500', { start: SIZE - 500, end: SIZE - 1 }],
    ['bytes=-999999', { start: 0, end: SIZE - 1 }],
    ['bytes=99990-200000', { start: 99990, end: SIZE - 1 }],
    [' Bytes = 5 - 9 ', { start: 5, end: 9 }],
    ['bytes=-0', 'unsatisfiable'],
    [`bytes=${SIZE}-`, 'unsatisfiable'],
    ['bytes=9-5', undefined],
    ['bytes=0-1,5-9', undefined],
    ['items=0-5', undefined],
    ['bytes=-', undefined],
    ['bytes=a-b', undefined],
  ] as const)('%j', (header, expected) => {
    expect(parseRange(header, SIZE)).toEqual(expected);
  });
});

describe.each(kinds)('serveMedia (%s)', (kind) => {
  let file: MediaFile;
  beforeAll(() => {
    file = KINDS[kind].write(join(tempFolder('earmark-media-'), 'Maple.wav'), data);
  });
  const get = (headers: Record<string, string> = {}, method = 'GET') =>
    serveMedia({ method, headers }, file);

  it('GET without Range: 200, the whole file, its type, length and validators', async () => {
    const response = await get();
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject({
      'accept-ranges': 'bytes',
      'content-type': 'audio/wav',
      'content-length': String(SIZE),
      'x-content-type-options': 'nosniff',
    });
    expect(response.headers.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect((await bytesOf(response.body)).equals(data)).toBe(true);
  });

  it.each([
    ['bytes=0-0', 0, 0],
    ['bytes=1000-1999', 1000, 1999],
    ['bytes=0-', 0, SIZE - 1],
    ['bytes=99000-', 99000, SIZE - 1],
    ['bytes=-1', SIZE - 1, SIZE - 1],
    ['bytes=-4096', SIZE - 4096, SIZE - 1],
    ['bytes=50000-9999999', 50000, SIZE - 1],
  ])('%s: 206 with exactly those bytes', async (range, start, end) => {
    const response = await get({ range });
    expect(response.status).toBe(206);
    expect(response.headers['content-range']).toBe(`bytes ${start}-${end}/${SIZE}`);
    expect(response.headers['content-length']).toBe(String(end - start + 1));
    expect((await bytesOf(response.body)).equals(data.subarray(start, end + 1))).toBe(true);
  });

  it('416 with Content-Range: bytes */size for a range past the end', async () => {
    for (const range of [`bytes=${SIZE}-`, `bytes=${SIZE + 10}-${SIZE + 20}`, 'bytes=-0']) {
      const response = await get({ range });
      expect(response.status).toBe(416);
      expect(response.headers['content-range']).toBe(`bytes */${SIZE}`);
      expect(response.body).toBeNull();
    }
  });

  it('HEAD: the headers of GET, no body', async () => {
    const whole = await get({}, 'HEAD');
    expect(whole).toMatchObject({ status: 200, body: null });
    expect(whole.headers['content-length']).toBe(String(SIZE));
    const part = await get({ range: 'bytes=10-19' }, 'HEAD');
    expect(part).toMatchObject({ status: 206, body: null });
    expect(part.headers['content-range']).toBe(`bytes 10-19/${SIZE}`);
  });

  it('several ranges, another unit or bad syntax: the whole file (RFC 9110 lets a server ignore Range)', async () => {
    for (const range of ['bytes=0-1,5-9', 'seconds=1-2', 'bytes=x-']) {
      const response = await get({ range });
      expect(response.status).toBe(200);
      response.body?.destroy();
    }
  });

  it('If-Range: the range when the validator matches, the whole file when it does not', async () => {
    const { etag = '', 'last-modified': lastModified = '' } = (await get({}, 'HEAD')).headers;
    expect((await get({ range: 'bytes=0-9', 'if-range': etag }, 'HEAD')).status).toBe(206);
    expect((await get({ range: 'bytes=0-9', 'if-range': lastModified }, 'HEAD')).status).toBe(206);
    expect((await get({ range: 'bytes=0-9', 'if-range': '"other"' }, 'HEAD')).status).toBe(200);
    expect((await get({ 'if-none-match': etag }, 'GET')).status).toBe(304);
  });

  it('405 for other methods, 404 for a missing file or a folder', async () => {
    expect((await get({}, 'POST')).status).toBe(405);
    expect((await get({}, 'POST')).headers.allow).toBe('GET, HEAD');
    expect(
      (await serveMedia({ method: 'GET', headers: {} }, { path: join(tempFolder(), 'x.wav') }))
        .status,
    ).toBe(404);
    expect((await serveMedia({ method: 'GET', headers: {} }, { path: tempFolder() })).status).toBe(
      404,
    );
  });

  it('serves the type of what the bytes are, whatever the file is named', async () => {
    const folder = tempFolder();
    const typeOf = async (name: string, bytes: string | Buffer) => {
      const written = KINDS[kind].write(join(folder, name), bytes);
      const answer = await serveMedia({ method: 'HEAD', headers: {} }, written);
      return answer.headers['content-type'];
    };
    expect(await typeOf('call.m4a', Buffer.from('\0\0\0\x20ftypM4A \0\0\0\0', 'latin1'))).toBe(
      'audio/mp4',
    );
    expect(await typeOf('page.wav', '<!doctype html><script>alert(1)</script>')).toBe(
      'application/octet-stream',
    );
    expect(await typeOf('empty.wav', '')).toBe('application/octet-stream');
  });

  it('answers every request sandboxed, unsniffed and uncached by the browser', async () => {
    const missing = { path: join(tempFolder(), 'x.wav') };
    for (const answer of [
      await get(),
      await get({ range: 'bytes=0-9' }),
      await get({}, 'POST'),
      await serveMedia({ method: 'GET', headers: {} }, missing),
    ]) {
      expect(answer.headers).toMatchObject({
        'content-security-policy': 'sandbox',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      });
      answer.body?.destroy();
    }
  });
});

describe.each(kinds)(
  'over HTTP (the browser shell) and as a Fetch Response (the Electron protocol), %s',
  (kind) => {
    let server: Server;
    let url: string;
    let file: MediaFile;

    beforeAll(async () => {
      file = KINDS[kind].write(join(tempFolder('earmark-media-'), 'Maple.wav'), data);
      server = createServer((request, response) => {
        void serveMedia(request, file).then((media) => sendMedia(response, media));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/media`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('serves ranges, 416 and HEAD over a real socket', async () => {
      const part = await fetch(url, { headers: { range: 'bytes=500-1499' } });
      expect(part.status).toBe(206);
      expect(Buffer.from(await part.arrayBuffer()).equals(data.subarray(500, 1500))).toBe(true);
      const past = await fetch(url, { headers: { range: `bytes=${SIZE}-` } });
      expect(past.status).toBe(416);
      expect(past.headers.get('content-range')).toBe(`bytes */${SIZE}`);
      const head = await fetch(url, { method: 'HEAD' });
      expect(head.headers.get('content-length')).toBe(String(SIZE));
      const whole = await fetch(url);
      expect(Buffer.from(await whole.arrayBuffer()).equals(data)).toBe(true);
    });

    it('survives a player that goes away mid-file (a seek)', async () => {
      const controller = new AbortController();
      const response = await fetch(url, { signal: controller.signal });
      controller.abort();
      await expect(response.arrayBuffer()).rejects.toThrow();
      const after = await fetch(url, { headers: { range: 'bytes=-10' } });
      expect(Buffer.from(await after.arrayBuffer()).equals(data.subarray(SIZE - 10))).toBe(true);
    });

    it('answers a Fetch Request with Range itself', async () => {
      const response = await mediaFetchResponse(
        new Request('earmark://media/label', { headers: { range: 'bytes=-100' } }),
        file,
      );
      expect(response.status).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${SIZE - 100}-${SIZE - 1}/${SIZE}`);
      expect(Buffer.from(await response.arrayBuffer()).equals(data.subarray(SIZE - 100))).toBe(
        true,
      );
      const past = await mediaFetchResponse(
        new Request('earmark://media/label', { headers: { range: `bytes=${SIZE}-` } }),
        file,
      );
      expect(past.status).toBe(416);
      const head = await mediaFetchResponse(
        new Request('earmark://media/label', { method: 'HEAD' }),
        file,
      );
      expect(head.status).toBe(200);
      expect(head.body).toBeNull();
    });
  },
);

describe('a sealed file with a chunk changed on disk', () => {
  const tampered = (index: number): MediaFile => {
    const path = join(tempFolder('earmark-media-'), 'Maple');
    const sealed = sealBytes(key, data);
    // A byte inside chunk `index` (each chunk is 64 KiB and its 16-byte tag, after the header).
    sealed[64 + index * (CHUNK_BYTES + 16) + 1000]! ^= 0x20;
    writeFileSync(path, sealed);
    return { path, key };
  };

  it('is refused before an answer when the chunk holds its first bytes', async () => {
    await expect(serveMedia({ method: 'GET', headers: {} }, tampered(0))).rejects.toThrow(
      SealedDataError,
    );
  });

  it('stops the body at that chunk: not a byte of it is sent, the player errors', async () => {
    const file = tampered(1);
    // The ranges within the other chunk are served as they are.
    const before = await serveMedia({ method: 'GET', headers: { range: 'bytes=0-999' } }, file);
    expect((await bytesOf(before.body)).equals(data.subarray(0, 1000))).toBe(true);
    const whole = await serveMedia({ method: 'GET', headers: {} }, file);
    expect(whole.status).toBe(200);
    const sent: Buffer[] = [];
    await expect(
      (async () => {
        for await (const chunk of whole.body!) sent.push(chunk as Buffer);
      })(),
    ).rejects.toThrow(/chunk 1 failed its integrity check/);
    expect(Buffer.concat(sent).length).toBeLessThanOrEqual(CHUNK_BYTES);
    // Over HTTP: the answer breaks off (here before its headers, the first read covering both
    // chunks); the client never gets the recording.
    const server = createServer((request, response) => {
      void serveMedia(request, file).then((media) => sendMedia(response, media));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const address = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      await expect(fetch(address).then((answer) => answer.arrayBuffer())).rejects.toThrow();
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

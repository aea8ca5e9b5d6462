import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AudioCache, type AudioCacheOptions } from '../../../src/main/audio/audio-cache';
import { decodePeaks } from '../../../src/main/audio/peaks';
import { useProxiedService } from '../service-client/helpers';
import { filesHolding } from '../../support/files';
import { CACHE_MODES } from './cache-modes';
import * as fx from './fixtures';

const env = useProxiedService();
const ids: string[] = [];
const sizes = new Map<string, number>();
const heads = new Map<string, Buffer>();
let silentId: string;

beforeAll(async () => {
  const orgId = env.svc.credentials.primary.organizationId;
  for (const minutes of [1, 1, 1, 6]) ids.push(fx.seedLabel(env.svc.service, orgId, { minutes }));
  silentId = fx.seedLabel(env.svc.service, orgId, { audio: 'none' });
  for (const id of ids) {
    const body = await fx.serviceAudio(env.svc, id);
    sizes.set(id, body.length);
    heads.set(id, body.subarray(0, 16));
  }
});

/**
 * Files under `folder` naming a record or holding its audio's first bytes (a sealed cache's:
 * none). Needles of 16 bytes: four would turn up by chance in ciphertext.
 */
const filesHoldingIds = (folder: string) => filesHolding(folder, [...ids, ...[...heads.values()]]);

const audioRequests = () => env.proxy.requests.filter((r) => r.path.endsWith('/audio')).length;
const labels = () => env.client.labels;

/** A clock the test moves: one tick per call, so "least recently used" is exact. */
const ticking = () => {
  let now = 1_000_000;
  return () => (now += 1000);
};

describe.each(CACHE_MODES)('AudioCache ($mode)', (mode) => {
  const { key, filesDir, indexFile, plain, namesOf, partialOf, stateOf, rangesOf } = mode;
  const open = (options: AudioCacheOptions) => AudioCache.open({ ...options, key });
  const sha256Of = (path: string) => fx.sha256(plain(path));

  it('downloads once with peaks, then answers from disk', async () => {
    const cache = await open({ folder: fx.tempFolder() });
    const first = await cache.ensure(labels(), ids[0]!);
    expect(first.path.endsWith(namesOf(ids[0]!)[0]!)).toBe(true);
    expect(first.contentType).toBe('audio/wav');
    expect(sha256Of(first.path)).toBe(fx.sha256(await fx.serviceAudio(env.svc, ids[0]!)));
    expect(decodePeaks(plain(first.peaksPath!)).frames).toBe(60 * 8000);
    expect((await cache.peaks(first))!.frames).toBe(60 * 8000);
    expect(first.diskBytes).toBeGreaterThan(first.bytes);
    env.proxy.reset();
    const again = await cache.ensure(labels(), ids[0]!);
    expect(again.path).toBe(first.path);
    expect(audioRequests()).toBe(0);
    expect(cache.usage()).toMatchObject({ files: 1, bytes: first.diskBytes });
    // A file deleted behind the cache's back is fetched again.
    rmSync(first.path);
    const refetched = await cache.ensure(labels(), ids[0]!);
    expect(audioRequests()).toBe(1);
    expect(plain(refetched.path).length).toBe(first.bytes);
    await cache.close();
  });

  it('shares one download between callers asking at once', async () => {
    const cache = await open({ folder: fx.tempFolder() });
    const results = await Promise.all([1, 2, 3].map(() => cache.ensure(labels(), ids[1]!)));
    expect(new Set(results.map((r) => r.path)).size).toBe(1);
    expect(audioRequests()).toBe(1);
    await cache.close();
  });

  it('evicts the least recently used first to stay under its budget', async () => {
    const folder = fx.tempFolder();
    const now = ticking();
    // Room for two one-minute files and their peaks, not three.
    const one = sizes.get(ids[0]!)! + 32 + 6000 * 4;
    const cache = await open({ folder, budgetBytes: Math.floor(one * 2.5), now });
    const [a, b, c] = [ids[0]!, ids[1]!, ids[2]!];
    await cache.ensure(labels(), a);
    await cache.ensure(labels(), b);
    expect(cache.get(a)).toBeDefined(); // a is now more recent than b
    await cache.ensure(labels(), c);
    expect(cache.peek(b)).toBeUndefined();
    expect(cache.peek(a)).toBeDefined();
    expect(cache.peek(c)).toBeDefined();
    expect(cache.usage().bytes).toBeLessThanOrEqual(cache.budgetBytes);
    const files = readdirSync(filesDir(folder)).sort();
    expect(files).toEqual([...namesOf(a), ...namesOf(c)].sort());

    // A file larger than the whole budget is kept (it is being played) and pushes the rest out.
    await cache.ensure(labels(), ids[3]!);
    expect(cache.usage().files).toBe(1);
    await cache.setBudget(0);
    expect(cache.usage()).toMatchObject({ files: 0, bytes: 0 });
    expect(readdirSync(filesDir(folder))).toEqual([]);
    await cache.close();
  });

  it('persists its index, and after a crash reconciles it with the files', async () => {
    const folder = fx.tempFolder();
    const cache = await open({ folder });
    const a = await cache.ensure(labels(), ids[0]!);
    const b = await cache.ensure(labels(), ids[1]!);
    await cache.close();
    const indexBytes = readFileSync(indexFile(folder));
    const index = JSON.parse(
      (key ? key.unseal('audio index', indexBytes) : indexBytes).toString('utf8'),
    ) as { entries: { name: string }[] };
    expect(index.entries.map((e) => e.name).sort()).toEqual(
      [ids[0]!, ids[1]!].map((id) => namesOf(id)[0]!.replace(/\.wav$/, '')).sort(),
    );
    // Sealed, the index names no record, and says nothing in the clear.
    if (key) expect(filesHoldingIds(folder)).toEqual([]);

    // As a crash could leave it: b's file gone, a whole file the index never heard of, a
    // temporary index write, an abandoned partial download, peaks without their audio.
    rmSync(b.path);
    const orphan = join(filesDir(folder), namesOf(ids[2]!)[0]!);
    writeFileSync(orphan, readFileSync(a.path));
    writeFileSync(join(filesDir(folder), '.index.json.abc.tmp'), '{');
    const partial = join(filesDir(folder), `.${ids[3]}.earmark-partial`);
    writeFileSync(partial, 'half');
    const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    utimesSync(partial, old, old);
    writeFileSync(join(filesDir(folder), 'gone.wav.peaks'), 'x');

    const reopened = await open({ folder });
    // The adopted file's record: in the clear its name says it; sealed, the name cannot be
    // turned back into it, so it is learnt at the file's first use (a cleanup meanwhile finds
    // no age for it, and removes it).
    const orphanName = key ? key.fileName(ids[2]!) : ids[2]!;
    const recordOfOrphan = () => reopened.held().find((held) => held.name === orphanName)?.labelId;
    expect(recordOfOrphan()).toBe(key ? null : ids[2]);
    expect(reopened.peek(ids[0]!)).toMatchObject({ path: a.path, bytes: a.bytes });
    expect(reopened.peek(ids[1]!)).toBeUndefined();
    expect(reopened.peek(ids[2]!)).toMatchObject({
      path: orphan,
      contentType: 'audio/wav',
      bytes: a.bytes,
    });
    expect(recordOfOrphan()).toBe(ids[2]);
    expect(existsSync(partial)).toBe(false);
    expect(readdirSync(filesDir(folder)).sort()).toEqual(
      [...namesOf(ids[0]!), namesOf(ids[2]!)[0]!].sort(),
    );
    await reopened.close();

    // An unreadable index: rebuilt from the files.
    writeFileSync(indexFile(folder), 'not json');
    const rebuilt = await open({ folder });
    expect(rebuilt.usage().files).toBe(2);
    await rebuilt.close();
  });

  it('goes on filling when a caller stops waiting: the recording becomes whole', async () => {
    const folder = fx.tempFolder();
    const cache = await open({ folder });
    const slow = fx.throttled(labels(), 16 * 1024, 10);
    const leaving = new AbortController();
    const first = cache.ensure(slow, ids[3]!, { signal: leaving.signal });
    const second = cache.ensure(slow, ids[3]!);
    leaving.abort();
    await expect(first).rejects.toMatchObject({ kind: 'cancelled' });
    const done = await second;
    expect(sha256Of(done.path)).toBe(fx.sha256(await fx.serviceAudio(env.svc, ids[3]!)));
    expect(audioRequests()).toBe(1);
    await cache.close();
  });

  it('resumes the partial file a closed cache (a restart) left, and counts it in the budget', async () => {
    const folder = fx.tempFolder();
    const cache = await open({ folder });
    let closing: Promise<void> | undefined;
    const pending = cache.ensure(fx.throttled(labels(), 16 * 1024, 5), ids[3]!, {
      onProgress: ({ bytesDone }) => {
        if (bytesDone > 512 * 1024) closing ??= cache.close();
      },
    });
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await closing;
    const partial = partialOf(folder, ids[3]!);
    const kept = rangesOf(partial);
    expect(kept.length).toBe(1);
    expect(kept[0]![1]).toBeGreaterThan(0);
    // Sealed, what is on disk is whole chunks of 64 KiB only.
    if (key) expect(kept[0]![1] % (64 * 1024)).toBe(0);

    env.proxy.reset();
    const reopened = await open({ folder });
    expect(reopened.usage()).toMatchObject({ files: 0, partial: 1 });
    expect(reopened.usage().bytes).toBeGreaterThanOrEqual(kept[0]![1]);
    const done = await reopened.ensure(labels(), ids[3]!);
    expect(sha256Of(done.path)).toBe(fx.sha256(await fx.serviceAudio(env.svc, ids[3]!)));
    // The waveform covers the bytes kept from the first run too: the whole six minutes.
    expect(decodePeaks(plain(done.peaksPath!)).frames).toBe(6 * 60 * 8000);
    // One request, for the bytes the first run had not flushed, guarded by the ETag.
    const [resumed, ...more] = env.proxy.seen({ path: `/labels/${ids[3]}/audio` });
    expect(more).toEqual([]);
    expect(resumed!.headers.range).toBe(`bytes=${kept[0]![1]}-${sizes.get(ids[3]!)! - 1}`);
    expect(resumed!.headers['if-range']).toMatch(/^"/);
    expect(existsSync(partial)).toBe(false);
    expect(reopened.usage()).toMatchObject({ files: 1, partial: 0 });
    await reopened.close();
  });

  it('starts again, rather than resume, a partial file whose service sent no validator', async () => {
    const folder = fx.tempFolder();
    const noValidator = fx.withoutValidators(labels());
    const cache = await open({ folder });
    let closing: Promise<void> | undefined;
    const pending = cache.ensure(fx.throttled(noValidator, 16 * 1024, 5), ids[3]!, {
      onProgress: ({ bytesDone }) => {
        if (bytesDone > 256 * 1024) closing ??= cache.close();
      },
    });
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await closing;
    env.proxy.reset();
    const reopened = await open({ folder });
    const done = await reopened.ensure(noValidator, ids[3]!);
    expect(sha256Of(done.path)).toBe(fx.sha256(await fx.serviceAudio(env.svc, ids[3]!)));
    // Without an ETag or a Last-Modified, bytes from another run could splice two versions.
    const requests = env.proxy.seen({ path: `/labels/${ids[3]}/audio` });
    expect(requests.map((r) => [r.headers.range, r.headers['if-range']])).toEqual([
      ['bytes=0-', undefined],
    ]);
    await reopened.close();
  });

  it('evicts partly cached recordings too, least recently used first', async () => {
    const folder = fx.tempFolder();
    const cache = await open({ folder });
    let closing: Promise<void> | undefined;
    const pending = cache.ensure(fx.throttled(labels(), 16 * 1024, 5), ids[3]!, {
      onProgress: ({ bytesDone }) => {
        if (bytesDone > 256 * 1024) closing ??= cache.close();
      },
    });
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await closing;
    const partial = partialOf(folder, ids[3]!);
    expect(existsSync(partial)).toBe(true);
    // Room for one minute of audio: the partial recording (used before it) goes.
    const one = sizes.get(ids[0]!)! + 32 + 6000 * 4;
    const reopened = await open({ folder, budgetBytes: one + 1000 });
    await reopened.ensure(labels(), ids[0]!);
    expect(existsSync(partial)).toBe(false);
    expect(existsSync(stateOf(partial))).toBe(false);
    expect(reopened.usage()).toMatchObject({ files: 1, partial: 0 });
    await reopened.close();
  });

  it('reports a label without audio as no_audio and caches nothing', async () => {
    const cache = await open({ folder: fx.tempFolder() });
    await expect(cache.ensure(labels(), silentId)).rejects.toMatchObject({ kind: 'no_audio' });
    expect(cache.usage().files).toBe(0);
    await cache.close();
  });

  it('removes one label, or everything', async () => {
    const folder = fx.tempFolder();
    const cache = await open({ folder });
    const a = await cache.ensure(labels(), ids[0]!);
    await cache.ensure(labels(), ids[1]!);
    await cache.remove(ids[0]!);
    expect(existsSync(a.path)).toBe(false);
    expect(existsSync(a.peaksPath!)).toBe(false);
    expect(cache.usage().files).toBe(1);
    await cache.clear();
    expect(readdirSync(filesDir(folder))).toEqual([]);
    await cache.close();
  });
});

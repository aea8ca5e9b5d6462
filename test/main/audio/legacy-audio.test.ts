import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { AudioCache } from '../../../src/main/audio/audio-cache';
import { decodePeaks } from '../../../src/main/audio/peaks';
import { filesHolding } from '../../support/files';
import { useProxiedService } from '../service-client/helpers';
import { CACHE_MODES } from './cache-modes';
import { startChild } from './crash-child';
import * as fx from './fixtures';

/**
 * The audio an earlier version kept in the clear (`files/<labelId>.wav`, peaks, partial
 * downloads, `index.json`), sealed into the store when this version first opens the cache with
 * the account's key (issue 30): in the background, a recording asked for first, crash-safe by
 * naming, nothing left in the clear.
 */

const env = useProxiedService();
const sealed = CACHE_MODES.find((mode) => mode.key)!;
const key = sealed.key!;
const ids: string[] = [];
const bodies = new Map<string, Buffer>();
let partialId: string;

beforeAll(async () => {
  const orgId = env.svc.credentials.primary.organizationId;
  for (let i = 0; i < 6; i++) ids.push(fx.seedLabel(env.svc.service, orgId, { minutes: 2 }));
  partialId = fx.seedLabel(env.svc.service, orgId, { minutes: 6 });
  for (const id of ids) bodies.set(id, await fx.serviceAudio(env.svc, id));
}, 60_000);

const labels = () => env.client.labels;

/** A folder as an earlier version left it: whole recordings, peaks, a partial download. */
async function earlierVersionsFolder(): Promise<string> {
  const folder = fx.tempFolder('earmark-legacy-');
  const clear = await AudioCache.open({ folder });
  for (const id of ids) await clear.ensure(labels(), id);
  let closing: Promise<void> | undefined;
  await clear
    .ensure(fx.throttled(labels(), 16 * 1024, 5), partialId, {
      onProgress: ({ bytesDone }) => {
        if (bytesDone > 256 * 1024) closing ??= clear.close();
      },
    })
    .catch(() => undefined);
  await closing;
  expect(readdirSync(join(folder, 'files'))).toContain(`.${partialId}.stream`);
  return folder;
}

/**
 * What a sealed folder must not hold: a record's id, its audio's first bytes (the WAV header, a
 * RIFF chunk), a peaks file's header in the clear, a download state. Needles of 12 bytes or more:
 * four bytes would turn up by chance in megabytes of ciphertext.
 */
const readable = (folder: string) =>
  filesHolding(folder, [
    ...ids,
    partialId,
    ...[...bodies.values()].map((body) => body.subarray(0, 16)),
    Buffer.from('454d504b01000000401f0000', 'hex'),
    '"labelId"',
  ]);

async function sealedAll(folder: string): Promise<AudioCache> {
  const cache = await AudioCache.open({ folder, key });
  const deadline = Date.now() + 30_000;
  while (existsSync(join(folder, 'files'))) {
    if (Date.now() > deadline) throw new Error(`still in the clear: ${readdirSync(folder)}`);
    await delay(10);
  }
  return cache;
}

async function expectWhole(cache: AudioCache): Promise<void> {
  for (const id of ids) {
    const audio = cache.peek(id);
    expect(audio, id).toMatchObject({ contentType: 'audio/wav', bytes: bodies.get(id)!.length });
    expect(sealed.plain(audio!.path).equals(bodies.get(id)!)).toBe(true);
    expect(decodePeaks(sealed.plain(audio!.peaksPath!)).frames).toBe(2 * 60 * 8000);
  }
  expect(cache.usage()).toMatchObject({ files: ids.length, partial: 0 });
}

describe('an earlier version’s audio in the clear', () => {
  it('is sealed in the background, a recording asked for first, and nothing is left readable', async () => {
    const folder = await earlierVersionsFolder();
    expect(readable(folder)).not.toEqual([]);
    const cache = await AudioCache.open({ folder, key });
    env.proxy.reset();
    // Asked for while the rest is being sealed: from the disk, sealed now, no download.
    const wanted = await cache.ensure(labels(), ids[4]!);
    expect(sealed.plain(wanted.path).equals(bodies.get(ids[4]!)!)).toBe(true);
    expect(env.proxy.seen({ path: /\/audio$/ })).toEqual([]);
    await cache.close();

    const reopened = await sealedAll(folder);
    await expectWhole(reopened);
    await reopened.close();
    expect(readdirSync(folder).sort()).toEqual(['index.sealed', 'store']);
    expect(readable(folder)).toEqual([]);
  });

  it('keeps the sealed copy when a crash came before the clear one was removed', async () => {
    const folder = await earlierVersionsFolder();
    const backup = fx.tempFolder('earmark-legacy-backup-');
    cpSync(join(folder, 'files'), join(backup, 'files'), { recursive: true });
    (await sealedAll(folder)).close();
    // As a kill between a rename and a removal leaves it: both, for every recording.
    cpSync(join(backup, 'files'), join(folder, 'files'), { recursive: true });
    const cache = await sealedAll(folder);
    await expectWhole(cache);
    await cache.close();
    expect(readdirSync(join(folder, 'store')).filter((name) => !name.startsWith('.'))).toHaveLength(
      2 * ids.length,
    );
    expect(readable(folder)).toEqual([]);
  });

  it('killed while sealing: the next open finishes, every recording whole once', async () => {
    const folder = await earlierVersionsFolder();
    const child = startChild('audio/legacy-child.ts', {
      ...sealed.keyEnv,
      EARMARK_FOLDER: folder,
    });
    try {
      const store = join(folder, 'store');
      const deadline = Date.now() + 30_000;
      // Some sealed, some still in the clear.
      while (
        !existsSync(store) ||
        readdirSync(store).filter((name) => !name.startsWith('.') && !name.endsWith('.peaks'))
          .length < 2
      ) {
        if (Date.now() > deadline) throw new Error(JSON.stringify(child.lines));
        await delay(1);
      }
      child.kill('SIGKILL');
      expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
    } finally {
      child.kill('SIGKILL');
    }
    expect(existsSync(join(folder, 'files'))).toBe(true);
    const cache = await sealedAll(folder);
    await expectWhole(cache);
    await cache.close();
    expect(readable(folder)).toEqual([]);
  }, 60_000);
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache } from '../../../src/main/cache';
import { readSourced } from '../../../src/main/connection/offline';
import { connectService } from '../../../src/main/service-client/connect';
import { createSyncEngine, HISTORY_STREAM, readSyncStatus } from '../../../src/main/sync';
import { startService, type RunningService } from '../../service/harness';
import { useTempDir } from '../cache/helpers';
import {
  apiOf,
  cachedLabelIds,
  seedLabels,
  serviceLabelIds,
  setUpSync,
  type SeededLabels,
} from './helpers';

const tempDir = useTempDir('sync-offline');
const COUNT = 300;
const TUNING = { labelPageSize: 20, concurrency: 2, writeBatch: 10 };

let svc: RunningService;
let seeded: SeededLabels;
let dir: string;

beforeAll(async () => {
  svc = await startService();
  seeded = seedLabels(svc, COUNT);
  dir = tempDir();
  const setup = await setUpSync(svc, dir);
  expect((await setup.sync(TUNING)).outcome).toBe('complete');
  await setup.close();
  await svc.close(); // the service is gone: nothing listens on its port any more
});
afterAll(async () => {
  await svc?.dispose();
});

describe('with the service unreachable', () => {
  it('an app that starts with no network at all reads everything it cached', async () => {
    const cache = await openCache({ file: join(dir, 'account.sqlite') });
    expect(cache.recovery).toBeNull();
    expect((await cache.read.labels({ limit: 5 })).total).toBe(COUNT);
    const label = await cache.read.label(seeded.ids[0]!);
    expect(label?.ownedPatientNotes?.[0]?.content).toContain('visit number 0');
    expect((await cache.read.search('"visit number 7"')).hits).toHaveLength(1);
    expect(await cache.read.identity()).toMatchObject({ organizationName: expect.any(String) });
    expect(await readSyncStatus(cache.read)).toMatchObject({ lastOutcome: 'complete' });
    await cache.close();
  });

  it('a sync reports offline and loses nothing; a read falls back to the cached answer, marked', async () => {
    const cache = await openCache({ file: join(dir, 'account.sqlite') });
    const api = apiOf(svc, { baseDelayMs: 10, maxDelayMs: 20 });
    const before = await cache.read.stats();
    const history = await cache.read.syncState(HISTORY_STREAM);
    const { primary } = svc.credentials;
    const result = await createSyncEngine({
      cache,
      api,
      organizationId: primary.organizationId,
    }).run();
    expect(result).toMatchObject({ outcome: 'offline', error: { kind: 'offline' } });
    expect(await cache.read.stats()).toEqual(before);
    expect(await cache.read.syncState(HISTORY_STREAM)).toEqual(history);
    const status = await readSyncStatus(cache.read);
    expect(status).toMatchObject({ lastOutcome: 'offline', lastError: { kind: 'offline' } });
    expect(status?.lastCompleteAt).toBeLessThan(status!.lastRunAt);

    // Main's offline policy over a real client and cache: the cached label, said to be cached.
    const id = seeded.ids[5]!;
    const client = connectService(svc.baseUrl, primary.apiKey, { baseDelayMs: 10, maxDelayMs: 20 });
    const answer = await readSourced(
      { ask: (call) => call(client), cache: async () => cache, now: Date.now, log: () => {} },
      {
        fetch: (service) => service.api.labels.get(id),
        cached: async (read) => {
          const label = await read.label(id);
          return label && { value: label, fetchedAt: await read.labelSeenAt(id) };
        },
      },
    );
    expect(answer).toMatchObject({ source: 'cache', value: { id } });
    expect(Date.parse(answer.fetchedAt!)).toBeLessThanOrEqual(status!.lastCompleteAt!);
    await client.close();
    await api.close();
    await cache.close();
  });
});

describe('a service that goes away in the middle of a sync', () => {
  it('leaves a run that reports offline, keeps what it stored, and the next run completes', async () => {
    const running = await svc.restart();
    const local = await setUpSync(running, tempDir(), { baseDelayMs: 10, maxDelayMs: 20 });
    let closing: Promise<void> | undefined;
    const result = await local.sync(TUNING, {
      onProgress: (p) => {
        if (p.labels.listed >= 120 && !closing) closing = running.close();
      },
    });
    await closing;
    expect(result).toMatchObject({ outcome: 'offline', error: { kind: 'offline' } });
    const partial = await local.cache.read.stats();
    expect(partial.labels).toBeGreaterThanOrEqual(120);
    expect(partial.labels).toBeLessThan(COUNT);
    await local.api.close();

    const back = await running.restart();
    svc = back;
    const resumed = await setUpSync(back, join(local.cache.file, '..'));
    await local.cache.close();
    const again = await resumed.sync(TUNING);
    expect(again.outcome).toBe('complete');
    const ids = await cachedLabelIds(resumed.cache);
    expect(new Set(ids).size).toBe(COUNT);
    expect(ids.sort()).toEqual((await serviceLabelIds(back)).sort());
    expect((await resumed.cache.read.stats()).labelsNeedingNotes).toBe(0);
    await resumed.close();
  });
});

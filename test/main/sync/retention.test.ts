import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, type Cache } from '../../../src/main/cache';
import { createApiClient, type ApiClient } from '../../../src/main/service-client/client';
import { createSyncEngine, walkAllAgain, type SyncTuning } from '../../../src/main/sync';
import { startService, type RunningService } from '../../service/harness';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy';
import { useTempDir } from '../cache/helpers';
import { cachedLabelIds, DAY_MS, seedLabels } from './helpers';

/**
 * The sync follows the clinic's text window (retention, issue 29): it lists no record that
 * started earlier and fetches none, also once a cleanup has removed what it had brought, and the
 * records kept on this computer whatever their age are asked for one by one.
 */
const tempDir = useTempDir('sync-retention');
const COUNT = 100;
const TUNING: SyncTuning = { labelPageSize: 10, concurrency: 4 };

describe.each(['seed', 'field'] as const)('the %s dialect', (dialect) => {
  let svc: RunningService;
  let proxy: FaultProxy;
  let api: ApiClient;
  let cache: Cache;
  let organizationId: string;
  /** Every label's id with its start, as seeded (10 days, one every 2.4 hours). */
  let starts: Map<string, number>;

  beforeAll(async () => {
    svc = await startService({ dialect, rateLimit: { requests: 1_000_000, perSeconds: 1 } });
    proxy = await startFaultProxy(svc.baseUrl);
    organizationId = svc.credentials.primary.organizationId;
    const newestMs = Date.now();
    const { ids } = seedLabels(svc, COUNT, { newestMs, spanMs: 10 * DAY_MS });
    starts = new Map(ids.map((id, i) => [id, newestMs - Math.floor((i * 10 * DAY_MS) / COUNT)]));
    api = createApiClient({ baseUrl: proxy.baseUrl, apiKey: svc.credentials.primary.apiKey });
    cache = await openCache({ file: join(tempDir(), 'account.sqlite') });
  });
  afterAll(async () => {
    await api?.close();
    await cache?.close();
    await proxy?.close();
    await svc?.dispose();
  });

  const sync = (textWindowMs: number, tuning: SyncTuning = {}) =>
    createSyncEngine({ cache, api, organizationId, textWindowMs }, { ...TUNING, ...tuning }).run();

  /** The ids of the labels that started at or after `fromMs`. */
  const startingFrom = (fromMs: number) =>
    [...starts].filter(([, start]) => start >= fromMs).map(([id]) => id);

  /** The listings' lower bounds and the labels asked for one by one since the proxy's reset. */
  function asked() {
    const listings = proxy.seen({ path: `/organizations/${organizationId}/labels` });
    return {
      listings: listings.length,
      unbounded: listings.filter((r) => !new URLSearchParams(r.query).has('fromTime')).length,
      earliest: Math.min(
        ...listings.map((r) => Date.parse(new URLSearchParams(r.query).get('fromTime') ?? '')),
      ),
      details: proxy
        .seen({ path: /^\/labels\/[^/]+$/ })
        .map((r) => r.path.slice('/labels/'.length)),
    };
  }

  it('brings in only the records of the text window', async () => {
    proxy.reset();
    const result = await sync(5 * DAY_MS);
    expect(result.outcome).toBe('complete');
    const textFrom = result.startedAt - 5 * DAY_MS;
    const inWindow = startingFrom(textFrom);
    expect(inWindow.length).toBeGreaterThan(40);
    expect(inWindow.length).toBeLessThan(60);
    expect((await cachedLabelIds(cache)).sort()).toEqual(inWindow.sort());
    const seen = asked();
    expect(seen.listings).toBeGreaterThan(2);
    expect(seen.unbounded).toBe(0);
    expect(seen.earliest).toBeGreaterThanOrEqual(textFrom);
    // Listing rows carry no notes: each record is asked for, only those of the window.
    expect(seen.details.sort()).toEqual(inWindow.sort());
  });

  it('does not fetch again what a cleanup removed, nor anything older, at its next full walk', async () => {
    const now = Date.now();
    for (let step = { more: true }; step.more;) {
      step = await cache.write.removeRecords({
        before: now - 2 * DAY_MS,
        spare: [],
        limit: 10,
        at: now,
      });
    }
    const kept = startingFrom(now - 2 * DAY_MS);
    expect((await cachedLabelIds(cache)).sort()).toEqual(kept.sort());

    proxy.reset();
    // Every run walks the whole history again (fullRescanMs 0): still nothing older comes back.
    const result = await sync(2 * DAY_MS, { fullRescanMs: 0 });
    expect(result).toMatchObject({
      outcome: 'complete',
      labels: { added: 0, notesFetched: 0, deleted: 0, historyComplete: true },
    });
    expect((await cachedLabelIds(cache)).sort()).toEqual(kept.sort());
    const seen = asked();
    expect(seen.unbounded).toBe(0);
    expect(seen.earliest).toBeGreaterThanOrEqual(result.startedAt - 2 * DAY_MS);
    expect(seen.details).toEqual([]);
  });

  it('asks for the records kept on this computer one by one, and lets one the service deleted go', async () => {
    const now = Date.now();
    const old = [...starts].filter(([, start]) => start < now - 6 * DAY_MS).map(([id]) => id);
    const [keptOld, deletedOld] = old;
    for (const id of [keptOld!, deletedOld!]) {
      await cache.write.storeLabels([await api.labels.get(id)], now);
      expect(await cache.write.keepRecord(id, now)).toBe(true);
    }
    svc.service.labels.delete(deletedOld!);
    svc.service.labels.assign(
      keptOld!,
      svc.service.labels.createPatient(organizationId, 'Pip', 'cat'),
    );

    proxy.reset();
    const result = await sync(2 * DAY_MS, { fullRescanMs: 0 });
    expect(result.outcome).toBe('complete');
    const seen = asked();
    expect(seen.details.sort()).toEqual([keptOld!, deletedOld!].sort());
    expect(seen.earliest).toBeGreaterThanOrEqual(result.startedAt - 2 * DAY_MS);
    expect((await cache.read.label(keptOld!))?.patient?.name).toBe('Pip');
    expect(await cache.read.label(deletedOld!)).toBeNull();
    expect((await cache.read.keptRecords()).map((r) => r.labelId)).toEqual([keptOld]);
  });

  it('brings back what a shorter window left out once the window grows and everything is walked again', async () => {
    // A longer window alone: the history walk is not due, so only the 72-hour re-scan lists.
    const alone = await sync(5 * DAY_MS);
    expect(alone.labels.historyComplete).toBe(true);
    const notYet = startingFrom(alone.startedAt - 5 * DAY_MS).filter(
      (id) => starts.get(id)! < alone.startedAt - 3 * DAY_MS,
    );
    expect(notYet.length).toBeGreaterThan(10);
    const cached = new Set(await cachedLabelIds(cache));
    expect(notYet.filter((id) => cached.has(id))).toEqual([]);
    // What Settings does when the text window grows.
    await walkAllAgain(cache.write, Date.now());
    const again = await sync(5 * DAY_MS);
    expect(again.labels.added).toBe(notYet.length);
    const ids = new Set(await cachedLabelIds(cache));
    expect(startingFrom(again.startedAt - 5 * DAY_MS).every((id) => ids.has(id))).toBe(true);
  });
});

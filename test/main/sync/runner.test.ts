import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openCache } from '../../../src/main/cache';
import { connectService } from '../../../src/main/service-client/connect';
import { SyncRunner } from '../../../src/main/sync/runner';
import type { Core } from '../../../src/main/core';
import type { SyncStatus } from '../../../src/shared/ipc';
import type { SearchHit } from '../../../src/shared/search';
import { startService, type RunningService } from '../../service/harness';
import * as fx from '../audio/fixtures';
import { DAY_MS, seedLabels, type SeededLabels } from './helpers';
import { ipcCalls } from '../../support/ipc-calls';
import { testCore } from '../../support/core';

/** Three batches of notes written (100 each): the reach moves back twice before it is all. */
const COUNT = 300;
const SPAN_MS = 20 * DAY_MS;
const NEWEST_MS = Date.now();
/** When seeded record `index` starts (seedLabels spreads them evenly, index 0 the newest). */
const startOf = (index: number) => NEWEST_MS - Math.floor((index * SPAN_MS) / COUNT);
const labelIdOf = (hit: SearchHit) => ('label' in hit ? [hit.label.id] : []);

/**
 * The sync status the renderer shows says how far back search reaches while the first sync
 * brings the history newest first, paced by the service's rate limit (issue 31).
 */
describe.each(['seed', 'field'] as const)('the sync status (%s dialect)', (dialect) => {
  let svc: RunningService;
  let core: Core;
  let seeded: SeededLabels;
  const { call } = ipcCalls(() => core);

  beforeAll(async () => {
    // 50 requests a second after a burst of 50: the notes take some five seconds.
    svc = await startService({ dialect, rateLimit: { requests: 50, perSeconds: 1 } });
    seeded = seedLabels(svc, COUNT, { newestMs: NEWEST_MS, spanMs: SPAN_MS });
    core = testCore({
      dataDir: fx.tempFolder('earmark-sync-reach-'),
      exportFolder: fx.tempFolder('earmark-sync-reach-exports-'),
    });
  });
  afterAll(async () => {
    await core?.close();
    await svc?.dispose();
  });

  it('says how far back search reaches, further back as the sync goes on, then that all is', async () => {
    await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
    await call('sync.run', {});
    const reaches: string[] = [];
    let status: SyncStatus;
    for (;;) {
      status = await call('sync.status', {});
      if (status.searchComplete) break;
      if (status.searchableFrom !== null && status.searchableFrom !== reaches.at(-1)) {
        reaches.push(status.searchableFrom);
        // What the status promises: the oldest record it reaches is found.
        const from = Date.parse(status.searchableFrom);
        const last = seeded.ids.findLastIndex((_, index) => startOf(index) >= from);
        expect(last).toBeGreaterThanOrEqual(0);
        const hits = await call('search', { query: `"visit number ${last} about"` });
        expect(hits.flatMap(labelIdOf)).toContain(seeded.ids[last]);
      }
      await sleep(50);
    }
    expect(status.state).not.toBe('failed');
    // It moved back in steps, never forwards.
    expect(reaches.length).toBeGreaterThanOrEqual(2);
    expect(reaches).toEqual([...reaches].sort().reverse());
    const oldest = await call('search', {
      query: `"visit number ${COUNT - 1} about"`,
    });
    expect(oldest.flatMap(labelIdOf)).toContain(seeded.ids[COUNT - 1]);
  }, 60_000);
});

describe.each(['seed', 'field'] as const)('the sync runner (%s dialect)', (dialect) => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ dialect });
    seedLabels(svc, 5, { newestMs: NEWEST_MS, spanMs: DAY_MS });
  });
  afterAll(() => svc?.dispose());

  it('a run begun before the cache was started anew does not end its "rebuilding"; the next run does', async () => {
    const cache = await openCache({
      file: join(fx.tempFolder('earmark-sync-rebuild-'), 'account.sqlite'),
    });
    const service = connectService(svc.baseUrl, svc.credentials.primary.apiKey);
    const runner = new SyncRunner(
      () => undefined,
      () => undefined,
    );
    const { organizationId } = svc.credentials.primary;
    try {
      runner.start(cache, service, organizationId);
      // The cache is found damaged and started anew while that run is under way.
      runner.rebuilding();
      await vi.waitFor(() => expect(runner.current.state).toBe('idle'), { timeout: 15_000 });
      expect(runner.current).toMatchObject({ rebuilding: true, lastSyncAt: null });

      // Started once the first run has let go (its status says idle a moment before).
      await vi.waitFor(() =>
        expect(runner.start(cache, service, organizationId).state).toBe('running'),
      );
      await vi.waitFor(() => expect(runner.current.state).toBe('idle'), { timeout: 15_000 });
      expect(runner.current.rebuilding).toBe(false);
      expect(runner.current.lastSyncAt).not.toBeNull();
    } finally {
      await runner.stop();
      await service.close();
      await cache.close();
    }
  });
});

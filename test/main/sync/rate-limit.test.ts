import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/main/service-client/errors';
import { createSyncEngine, type SyncProgress } from '../../../src/main/sync';
import { startService, type RunningService } from '../../service/harness';
import { useTempDir } from '../cache/helpers';
import { cachedLabelIds, seedLabels, serviceLabelIds, setUpSync } from './helpers';

const tempDir = useTempDir('sync-rate');
const COUNT = 60;

let svc: RunningService;

beforeAll(async () => {
  // 20 requests in a burst, then 10 a second; the sync needs about 65.
  svc = await startService({ rateLimit: { requests: 20, perSeconds: 2 } });
  seedLabels(svc, COUNT, { spanMs: 24 * 60 * 60 * 1000 });
});
afterAll(() => svc?.dispose());

describe('a sync against a rate-limited service', () => {
  it(
    'waits Retry-After after a 429, sends nothing meanwhile, and completes',
    { timeout: 60_000 },
    async () => {
      // The client does not retry 429s itself here, so every one reaches the sync.
      const setup = await setUpSync(svc, tempDir(), { maxRetries: 0 });
      const starts: number[] = [];
      const refusals: { at: number; retryAfterMs: number }[] = [];
      const labels = setup.api.labels;
      const watched = {
        ...setup.api,
        labels: {
          ...labels,
          get: (...args: Parameters<typeof labels.get>) => {
            starts.push(performance.now());
            return labels.get(...args).catch((error: unknown) => {
              if (isApiError(error) && error.kind === 'rate_limited')
                refusals.push({ at: performance.now(), retryAfterMs: error.retryAfterMs ?? 0 });
              throw error;
            });
          },
        },
      };
      const progress: SyncProgress[] = [];
      const result = await createSyncEngine(
        {
          cache: setup.cache,
          api: watched,
          organizationId: svc.credentials.primary.organizationId,
        },
        { concurrency: 4 },
      ).run({ onProgress: (p) => progress.push(p) });

      expect(result).toMatchObject({ outcome: 'complete', labels: { notesFetched: COUNT } });
      expect(result.rateLimitWaits).toBeGreaterThan(0);
      expect(refusals.length).toBeGreaterThan(0);
      for (const refusal of refusals) {
        expect(refusal.retryAfterMs).toBeGreaterThanOrEqual(1000);
        // Every request that began after a 429 came back waited until its Retry-After had passed.
        const early = starts.filter(
          (s) => s > refusal.at && s < refusal.at + refusal.retryAfterMs - 15,
        );
        expect(early).toEqual([]);
      }
      expect(progress.some((p) => p.waitingUntil !== null)).toBe(true);
      expect(progress.at(-1)?.waitingUntil).toBeNull();
      const ids = await cachedLabelIds(setup.cache);
      expect(ids.sort()).toEqual((await serviceLabelIds(svc)).sort());
      await setup.close();
    },
  );
});

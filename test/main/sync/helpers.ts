import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/main/service-client/client';
import type { HttpTuning } from '../../../src/main/service-client/http';
import { openCache, type Cache } from '../../../src/main/cache';
import {
  createSyncEngine,
  type RunOptions,
  type SearchReach,
  type SyncProgress,
  type SyncResult,
  type SyncTuning,
} from '../../../src/main/sync';
import { MINUTE_MS, RECORD_TYPES } from '../../../src/shared/api';
import { expect } from 'vitest';
import type { RunningService } from '../../service/harness';

export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

const WORDS = ['appetite', 'coughing', 'itching', 'limping', 'sneezing', 'thirsty', 'lethargic'];

/** What a seeded label says, so tests can search for it. */
export const transcriptOf = (index: number) =>
  `Speaker 1: visit number ${index} about ${WORDS[index % WORDS.length]}\nSpeaker 2: thank you`;

export interface SeededLabels {
  ids: string[];
  patients: string[];
}

/**
 * `count` labels with one transcript each, spread evenly from `newestMs` back over `spanMs`
 * (index 0 is the newest), written straight into the service's store in one transaction.
 */
export function seedLabels(
  svc: RunningService,
  count: number,
  { newestMs = Date.now(), spanMs = 10 * DAY_MS } = {},
): SeededLabels {
  const organizationId = svc.credentials.primary.organizationId;
  const { db, labels } = svc.service;
  return db.transaction(() => {
    const patients = ['Maple Leaf', 'Rocky', 'Biscuit'].map((name) =>
      labels.createPatient(organizationId, name, 'dog'),
    );
    const ids = Array.from({ length: count }, (_, i) => {
      const fromMs = newestMs - Math.floor((i * spanMs) / count);
      return labels.create({
        organizationId,
        type: RECORD_TYPES[i % RECORD_TYPES.length]!,
        fromMs,
        toMs: fromMs + 10 * MINUTE_MS,
        patientId: patients[i % patients.length]!,
        friendlyName: 'Exam Room iPad',
        deviceSerial: 'IPAD-1',
        notes: [
          {
            type: 'Transcript',
            content: transcriptOf(i),
            createdMs: fromMs + 11 * MINUTE_MS,
            timeMs: fromMs + 11 * MINUTE_MS,
          },
        ],
      });
    });
    return { ids, patients };
  })();
}

export const apiOf = (svc: RunningService, tuning: HttpTuning = {}): ApiClient =>
  createApiClient({ baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey, ...tuning });

export interface SyncSetup {
  cache: Cache;
  api: ApiClient;
  progress: SyncProgress[];
  sync: (tuning?: SyncTuning, options?: RunOptions) => Promise<SyncResult>;
  close(): Promise<void>;
}

/** A cache (in its worker threads) and an API client for the primary organization. */
export async function setUpSync(
  svc: RunningService,
  dir: string,
  clientTuning: HttpTuning = {},
): Promise<SyncSetup> {
  const cache = await openCache({ file: join(dir, 'account.sqlite') });
  const api = apiOf(svc, clientTuning);
  const progress: SyncProgress[] = [];
  return {
    cache,
    api,
    progress,
    sync: (tuning = {}, options = {}) =>
      createSyncEngine(
        { cache, api, organizationId: svc.credentials.primary.organizationId },
        tuning,
      ).run({
        ...options,
        onProgress: (p) => {
          progress.push(p);
          options.onProgress?.(p);
        },
      }),
    async close() {
      await api.close();
      await cache.close();
    },
  };
}

/** Every label id of the primary organization, as the service lists them. */
export async function serviceLabelIds(svc: RunningService): Promise<string[]> {
  const api = apiOf(svc);
  const ids: string[] = [];
  for await (const page of api.labels.pages(svc.credentials.primary.organizationId, {
    limit: 1000,
  }))
    ids.push(...page.items.map((l) => l.id));
  await api.close();
  return ids;
}

/** Every label id the cache holds, newest first (duplicates would show). */
export async function cachedLabelIds(cache: Cache): Promise<string[]> {
  const { items } = await cache.read.labels({ limit: 1_000_000 });
  return items.map((l) => l.id);
}

/**
 * Every record of the service that starts at or after the reach has its notes in the cache
 * (listed and fetched): what "searchable back to" promises.
 */
export async function expectReachKept(setup: SyncSetup, seeded: SeededLabels, reach: SearchReach) {
  const { fromMs } = reach;
  expect(fromMs).not.toBeNull();
  const starts = await Promise.all(
    seeded.ids.map(async (id) => ({ id, label: await setup.cache.read.label(id) })),
  );
  const reached = starts.filter(({ label }) => label && Date.parse(label.fromTime) >= fromMs!);
  // Seeded evenly, newest first: the reached ones are the first of the seeded ids.
  for (const [index, { id, label }] of reached.entries()) {
    expect(id).toBe(seeded.ids[index]);
    expect(label!.ownedPatientNotes, id).not.toBeNull();
  }
  return reached.length;
}

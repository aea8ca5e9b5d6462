import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DayMinutes, IpcResult, Sourced, SyncStatus } from '../../../src/shared/ipc';
import { ApiError } from '../../../src/main/service-client/errors';
import type { Cache, CacheReader, CacheWriter } from '../../../src/main/cache';
import {
  readSourced,
  type OfflinePolicyDeps,
  type SourcedRead,
} from '../../../src/main/connection/offline';
import type { ServiceClient } from '../../../src/main/service-client/connect';
import type { Device, Label } from '../../../src/shared/api';
import type { SearchHit } from '../../../src/shared/search';
import { SessionSecretStore, type SecretStore } from '../../../src/main/accounts/secret-store';
import type { Core } from '../../../src/main/core';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../../service/harness';
import { testCore } from '../../support/core';

/**
 * The policy's decisions, step by step. Its steps are plain functions here (the real client and
 * cache run in the suites below and in test/main/sync/offline.test.ts).
 */
describe('the offline policy (readSourced)', () => {
  const NOW = Date.UTC(2026, 10, 20, 15);
  const FETCHED = NOW - 3_600_000;
  const logs: string[] = [];
  const asked: string[] = [];
  const deps = (answer: () => Promise<string>): OfflinePolicyDeps => ({
    ask: (call) => {
      asked.push('service');
      return answer().then(() => call({} as ServiceClient));
    },
    cache: async () => ({ read: {} as CacheReader, write: {} as CacheWriter }) as Cache,
    now: () => NOW,
    log: (message) => logs.push(message),
  });
  const steps = (
    cached: string | null | Error,
    kept: string[] = [],
    keepFails = false,
  ): SourcedRead<string> => ({
    fetch: async () => 'fresh',
    keep: async (_write, value, at) => {
      if (keepFails) throw new Error('disk full');
      kept.push(`${value}@${at}`);
    },
    cached: async () => {
      if (cached instanceof Error) throw cached;
      return cached === null ? null : { value: cached, fetchedAt: FETCHED };
    },
  });
  const read = (answer: () => Promise<string>, read: SourcedRead<string>, from?: 'cache') =>
    readSourced(deps(answer), read, from);
  const online = async () => 'ok';
  const failing = (kind: ApiError['kind']) => () => Promise.reject(new ApiError(kind));

  it('answers the service, says so with the time, and keeps the answer', async () => {
    const kept: string[] = [];
    const answer = await read(online, { ...steps('old', kept), keepBeforeAnswer: true });
    expect(answer).toEqual<Sourced<string>>({
      value: 'fresh',
      source: 'service',
      fetchedAt: new Date(NOW).toISOString(),
    });
    expect(kept).toEqual([`fresh@${NOW}`]);
  });

  it('answers the cache, with when it was fetched, when the service cannot be reached', async () => {
    for (const kind of ['offline', 'timeout'] as const) {
      expect(await read(failing(kind), steps('old'))).toEqual({
        value: 'old',
        source: 'cache',
        fetchedAt: new Date(FETCHED).toISOString(),
      });
    }
  });

  it('passes on every other error: the service answered, and the cache is not asked', async () => {
    for (const kind of ['server_error', 'not_found', 'key_revoked', 'rate_limited'] as const) {
      await expect(read(failing(kind), steps('old'))).rejects.toMatchObject({ kind });
    }
  });

  it('passes on the service’s error when the cache holds nothing, or cannot be read', async () => {
    await expect(read(failing('offline'), steps(null))).rejects.toMatchObject({ kind: 'offline' });
    await expect(read(failing('offline'), steps(new Error('closed')))).rejects.toMatchObject({
      kind: 'offline',
    });
  });

  it('still answers when the service’s answer cannot be kept (and says why in the log)', async () => {
    logs.length = 0;
    const answer = await read(online, { ...steps(null, [], true), keepBeforeAnswer: true });
    expect(answer).toMatchObject({ value: 'fresh', source: 'service' });
    expect(logs).toEqual([expect.stringContaining('disk full')]);
  });

  it('asked for the cache (a first paint), answers it without asking the service', async () => {
    asked.length = 0;
    expect(await read(online, steps('old'), 'cache')).toMatchObject({
      value: 'old',
      source: 'cache',
    });
    await expect(read(online, steps(null), 'cache')).rejects.toMatchObject({ kind: 'not_found' });
    expect(asked).toEqual([]);
  });
});

/** The app with its service gone: what was synced or fetched stays readable and searchable. */
let svc: RunningService;
let dataDir: string;
let keys: SecretStore;
let core: Core;
let labelId: string;
const BASE = baseMinute(1);
const device = DEMO_DEVICES[0].id;

const value = <T>(result: IpcResult<unknown>): T => {
  if (!result.ok) throw new Error(`${result.error.kind}: ${result.error.message}`);
  return result.value as T;
};
const openCore = () => testCore({ dataDir, keychain: keys });

beforeAll(async () => {
  svc = await startService();
  const { labels, hub } = svc.service;
  const orgId = svc.credentials.primary.organizationId;
  const patient = labels.createPatient(orgId, 'Bramble', 'rabbit');
  labelId = labels.create({
    organizationId: orgId,
    type: 'ClinicConversation',
    fromMs: BASE,
    toMs: BASE + 600_000,
    patientId: patient,
    friendlyName: 'iPad',
    deviceSerial: 'X',
    notes: [
      {
        type: 'Transcript',
        content: 'Vet: The rabbit has gut stasis; start fluids.',
        createdMs: BASE,
        timeMs: BASE,
      },
    ],
  });
  hub.insertMinutes(device, [hubMinute(BASE, 0, 20_000), hubMinute(BASE, 1, 0)]);
  dataDir = mkdtempSync(join(tmpdir(), 'earmark-offline-'));
  keys = new SessionSecretStore();
  core = openCore();
  value(
    await core.rpc.invoke('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: svc.credentials.primary.apiKey,
    }),
  );
});
afterAll(async () => {
  await core.close();
  await svc.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('offline', () => {
  it('syncs in the background once the service answers', async () => {
    value<Sourced<Device[]>>(await core.rpc.invoke('devices.list', {}));
    value<Sourced<DayMinutes>>(
      await core.rpc.invoke('hub.minutes', {
        deviceId: device,
        startMs: BASE,
        endMs: BASE + 3_600_000,
      }),
    );
    await expect
      .poll(async () => value<SyncStatus>(await core.rpc.invoke('sync.status', {})).lastSyncAt, {
        timeout: 20_000,
      })
      .not.toBeNull();
  });

  it('answers from the cache when the service is gone, and says it is offline', async () => {
    await svc.close();
    const label = value<Sourced<Label>>(await core.rpc.invoke('labels.get', { labelId }));
    expect(label.source).toBe('cache');
    expect(label.value.patient?.name).toBe('Bramble');
    expect(label.value.ownedPatientNotes?.[0]?.content).toContain('gut stasis');
    const devices = value<Sourced<Device[]>>(await core.rpc.invoke('devices.list', {}));
    expect(devices).toMatchObject({ source: 'cache', fetchedAt: expect.any(String) });
    expect(devices.value.map((d) => d.value)).toContain(device);
    const day = value<Sourced<DayMinutes>>(
      await core.rpc.invoke('hub.minutes', {
        deviceId: device,
        startMs: BASE,
        endMs: BASE + 3_600_000,
      }),
    );
    expect(day.source).toBe('cache');
    expect(Date.parse(day.fetchedAt!)).toBeLessThan(Date.now());
    expect(day.value.minutes.map((m) => m.minuteStartMs)).toEqual([BASE, BASE + 60_000]);
    expect(value<{ state: string }>(await core.rpc.invoke('app.connection', {})).state).toBe(
      'offline',
    );
    const hits = value<SearchHit[]>(await core.rpc.invoke('search', { query: 'stasis' }));
    expect(hits[0]).toMatchObject({ kind: 'note', label: { id: labelId } });
    expect(hits[0]!.snippet.some((part) => part.hit && /stasis/i.test(part.text))).toBe(true);
    // Something never fetched is still an honest error.
    expect(
      (await core.rpc.invoke('labels.get', { labelId: '00000000-0000-4000-8000-000000000000' })).ok,
    ).toBe(false);
  });

  it('starts with no network at all and shows what is cached', async () => {
    await core.close();
    core = openCore();
    const label = value<Sourced<Label>>(await core.rpc.invoke('labels.get', { labelId }));
    expect(label.value.id).toBe(labelId);
    expect(
      value<SearchHit[]>(await core.rpc.invoke('search', { query: 'Bramble' })).length,
    ).toBeGreaterThan(0);
  });
});

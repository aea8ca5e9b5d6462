import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DayMinutes, IpcResult, SyncStatus } from '../../src/shared/ipc';
import type { Device, Label } from '../../src/shared/api';
import type { SearchHit } from '../../src/shared/search';
import { SessionSecretStore, type SecretStore } from '../../src/main/accounts/secret-store';
import { createCore, type Core } from '../../src/main/core';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../service/harness';

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
const openCore = () =>
  createCore({ dataDir, shell: 'browser', version: 'test', keychain: keys, log: () => undefined });

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
    value<Device[]>(await core.rpc.invoke('devices.list', {}));
    value<DayMinutes>(
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
    const label = value<Label>(await core.rpc.invoke('labels.get', { labelId }));
    expect(label.patient?.name).toBe('Bramble');
    expect(label.ownedPatientNotes?.[0]?.content).toContain('gut stasis');
    expect(
      value<Device[]>(await core.rpc.invoke('devices.list', {})).map((d) => d.value),
    ).toContain(device);
    const day = value<DayMinutes>(
      await core.rpc.invoke('hub.minutes', {
        deviceId: device,
        startMs: BASE,
        endMs: BASE + 3_600_000,
      }),
    );
    expect(day.minutes.map((m) => m.minuteStartMs)).toEqual([BASE, BASE + 60_000]);
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
    const label = value<Label>(await core.rpc.invoke('labels.get', { labelId }));
    expect(label.id).toBe(labelId);
    expect(
      value<SearchHit[]>(await core.rpc.invoke('search', { query: 'Bramble' })).length,
    ).toBeGreaterThan(0);
  });
});

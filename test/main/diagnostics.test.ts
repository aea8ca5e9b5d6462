import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnoseConversations } from '../../src/main/accounts/diagnostics';
import { connectService } from '../../src/main/service-client/connect';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../service/harness';

let svc: RunningService;
beforeAll(async () => {
  svc = await startService();
});
afterAll(() => svc.dispose());

async function diagnose(apiKey: string) {
  const client = connectService(svc.baseUrl, apiKey);
  try {
    return await diagnoseConversations({
      me: () => client.me(),
      devices: (organizationId) => client.devices(organizationId),
      firstConversations: () => client.firstConversations(),
    });
  } finally {
    await client.close();
  }
}

/** A key of a new organization with the hub entitlement and `devices` hub devices. */
function organizationWithDevices(devices: number): string {
  const { identity, hub } = svc.service;
  const full = {
    vet: true,
    call: true,
    hub: true,
    vetForceSubscriptionEndDate: null,
    callForceSubscriptionEndDate: null,
  };
  const org = identity.createOrganization({
    name: `Clinic with ${devices} devices`,
    entitlements: full,
  });
  const user = identity.createUser({
    email: `owner-${devices}@example.com`,
    displayName: 'Owner',
    password: 'pw',
  });
  identity.addMembership(user, org, 'owner');
  for (let i = 0; i < devices; i++)
    hub.createDevice({
      id: `hub-d${devices}-${i}`,
      organization_id: org,
      display_name: `Room ${i}`,
      serial: `S${i}`,
    });
  return identity.createApiKey({ userId: user, organizationId: org, name: 'test' }).key;
}

describe('diagnostics for an empty conversation list (seed §7)', () => {
  it('fails at the key when it cannot be used', async () => {
    const report = await diagnose(svc.credentials.revoked.apiKey);
    expect(report.failedStep).toBe('identity');
    expect(report.checks).toHaveLength(1);
    expect(report.checks[0]!.summary).toContain('revoked');
  });

  it('fails at the identity check without the hub entitlement', async () => {
    const report = await diagnose(svc.credentials.noHub.apiKey);
    expect(report.failedStep).toBe('identity');
    expect(report.checks[0]!.summary).toContain('no hub subscription');
    expect(report.checks[0]!.advice).toBeTruthy();
  });

  it('fails at the identity check for a key without hub access', async () => {
    const report = await diagnose(svc.credentials.labelsOnly.apiKey);
    expect(report.failedStep).toBe('identity');
    expect(report.checks[0]!.summary).toContain('not hub access');
  });

  it('fails at the devices check when the organization has none', async () => {
    const report = await diagnose(organizationWithDevices(0));
    expect(report.failedStep).toBe('devices');
    expect(report.checks.map((c) => c.ok)).toEqual([true, false]);
  });

  it('fails at the list when devices have recorded no conversation', async () => {
    const report = await diagnose(organizationWithDevices(2));
    expect(report.failedStep).toBe('conversations');
    expect(report.checks[1]!.summary).toContain('Room 0, Room 1');
  });

  it('passes every check when conversations exist', async () => {
    const base = baseMinute(1);
    svc.service.hub.insertMinutes(DEMO_DEVICES[0].id, [
      hubMinute(base, 0, 20_000),
      hubMinute(base, 1, 20_000),
    ]);
    svc.service.conversations.create(
      svc.service.hub.device(DEMO_DEVICES[0].id)!,
      base,
      base + 120_000,
    );
    const report = await diagnose(svc.credentials.primary.apiKey);
    expect(report.failedStep).toBeNull();
    expect(report.checks.map((c) => c.step)).toEqual(['identity', 'devices', 'conversations']);
    expect(report.checks.every((c) => c.ok)).toBe(true);
  });
});

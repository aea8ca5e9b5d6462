import { randomBytes } from 'node:crypto';
import type { ClinicService } from '../app';
import type { HubStore } from '../db/hub-store';
import { STAFF } from './dialogue';

interface OrganizationCredentials {
  apiKey: string;
  organizationId: string;
  organizationName: string;
}

/** The credentials the CLI prints (the command-line contract tests and tools rely on). */
export interface DemoCredentials {
  primary: OrganizationCredentials;
  secondary: OrganizationCredentials;
  noHub: OrganizationCredentials;
  expired: { apiKey: string };
  revoked: { apiKey: string };
  /** A key of the primary organization allowed only the "labels" feature. */
  labelsOnly: { apiKey: string };
  admin: { email: string; password: string; organizationId: string };
}

export interface SeededIdentity {
  credentials: DemoCredentials;
  /** Staff of the primary organization (recorders of labels). */
  staffIds: string[];
}

const DAY_MS = 24 * 60 * 60 * 1000;

export const DEMO_DEVICES = [
  {
    id: 'hub-consult-1',
    displayName: 'Consult Room 1',
    serial: 'HUB-7Q4K-0193',
    offAtNight: false,
  },
  {
    id: 'hub-consult-2',
    displayName: 'Consult Room 2',
    serial: 'HUB-7Q4K-0207',
    offAtNight: false,
  },
  {
    id: 'hub-surgery-prep',
    displayName: 'Surgery Prep',
    serial: 'HUB-9X2M-0045',
    offAtNight: true,
  },
] as const;
export const SECONDARY_DEVICE = {
  id: 'hub-northside-1',
  displayName: 'Northside Consult',
  serial: 'HUB-3C8T-1120',
  offAtNight: false,
} as const;

type DeviceSpec = { id: string; displayName: string; serial: string };

/**
 * Organizations, staff, hub devices and the keys of the command-line contract. The primary
 * organization's devices are the demo clinic's unless others are given (the scale seed's ten).
 */
export function seedIdentity(
  service: ClinicService,
  now: number,
  primaryDevices: readonly DeviceSpec[] = DEMO_DEVICES,
): SeededIdentity {
  const { identity, hub } = service;
  const primaryName = 'Riverside Veterinary Clinic';
  const secondaryName = 'Northside Animal Hospital';
  const noHubName = 'Harbour Mobile Vets';
  const full = {
    vet: true,
    call: true,
    hub: true,
    vetForceSubscriptionEndDate: null,
    callForceSubscriptionEndDate: null,
  };
  const primary = identity.createOrganization({ name: primaryName, entitlements: full });
  const secondary = identity.createOrganization({ name: secondaryName, entitlements: full });
  const noHub = identity.createOrganization({
    name: noHubName,
    entitlements: {
      ...full,
      hub: false,
      vetForceSubscriptionEndDate: new Date(now + 45 * DAY_MS).toISOString(),
    },
  });

  const password = randomBytes(9).toString('base64url');
  const staffIds = STAFF.map((member) => {
    const id = identity.createUser({ email: member.email, displayName: member.name, password });
    identity.addMembership(id, primary, member.role);
    return id;
  });
  const [ownerId, adminId] = staffIds as [string, string, ...string[]];
  const admin = STAFF.find((member) => member.role === 'admin') ?? STAFF[0]!;
  identity.addMembership(adminId, secondary, 'admin');
  const mobileVet = identity.createUser({
    email: 'sam.carter@harbour-mobile.example',
    displayName: 'Sam Carter',
    password,
  });
  identity.addMembership(mobileVet, noHub, 'owner');

  const key = (userId: string, organizationId: string, name: string, extra: object = {}) =>
    identity.createApiKey({ userId, organizationId, name, ...extra });
  const revoked = key(ownerId, primary, 'Old reception PC');
  identity.revokeApiKey(revoked.row.id);

  addDevices(hub, primary, primaryDevices);
  addDevices(hub, secondary, [SECONDARY_DEVICE]);

  return {
    staffIds,
    credentials: {
      primary: {
        apiKey: key(adminId, primary, 'Earmark desktop').key,
        organizationId: primary,
        organizationName: primaryName,
      },
      secondary: {
        apiKey: key(adminId, secondary, 'Earmark desktop').key,
        organizationId: secondary,
        organizationName: secondaryName,
      },
      noHub: {
        apiKey: key(mobileVet, noHub, 'Earmark desktop').key,
        organizationId: noHub,
        organizationName: noHubName,
      },
      expired: {
        apiKey: key(ownerId, primary, 'Trial integration', { expiresMs: now - DAY_MS }).key,
      },
      revoked: { apiKey: revoked.key },
      labelsOnly: {
        apiKey: key(ownerId, primary, 'Records export', { allowedFeatures: ['labels'] }).key,
      },
      admin: { email: admin.email, password, organizationId: primary },
    },
  };
}

function addDevices(hub: HubStore, organizationId: string, devices: readonly DeviceSpec[]) {
  for (const device of devices) {
    hub.createDevice({
      id: device.id,
      organization_id: organizationId,
      display_name: device.displayName,
      serial: device.serial,
    });
  }
}

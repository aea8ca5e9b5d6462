import { Type, type Static } from '@sinclair/typebox';
import { DeviceId, Uuid } from './common';

/** Seed §2.4: an item of GET /devices. */
export const Device = Type.Object({
  value: DeviceId,
  displayName: Type.String(),
  serial: Type.String(),
});
export type Device = Static<typeof Device>;

const DEVICE_LIST_MAX_LIMIT = 500;

export const DeviceListQuery = Type.Object(
  {
    organizationId: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DEVICE_LIST_MAX_LIMIT })),
  },
  { additionalProperties: false },
);
export type DeviceListQuery = Static<typeof DeviceListQuery>;

export const DeviceList = Type.Array(Device);

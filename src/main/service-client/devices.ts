import type { Device, DeviceListQuery } from '../../shared/api';
import type { CallOptions, HttpClient } from './http';
import { listOf, requiredText, text, type JsonObject } from './read';

const readDevice = (source: JsonObject): Device => ({
  value: requiredText(source, 'value', 'device'),
  displayName: text(source, 'displayName'),
  serial: text(source, 'serial'),
});

/**
 * The service in the field also lists web and phone-app sign-ins as devices, marked by a
 * `deviceType` other than HUB; they have no timeline, so the app's devices are the hubs. A row
 * without `deviceType` (the seed's) is a hub.
 */
const isHub = (source: JsonObject) =>
  source.deviceType === undefined ||
  source.deviceType === null ||
  String(source.deviceType).toUpperCase() === 'HUB';

/** Seed §4.1: the organization's hubs. */
export const deviceEndpoints = (http: HttpClient) => ({
  list: (query: DeviceListQuery = {}, options: CallOptions = {}): Promise<Device[]> =>
    http.data({ method: 'GET', path: '/devices', query, ...options }, (body) =>
      listOf(body, 'devices', (source) => (isHub(source) ? readDevice(source) : null)).filter(
        (device): device is Device => device !== null,
      ),
    ),
});
export type DevicesApi = ReturnType<typeof deviceEndpoints>;

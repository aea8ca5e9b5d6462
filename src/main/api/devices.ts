import type { Device, DeviceListQuery } from '../../shared/api';
import type { CallOptions, HttpClient } from './http';
import { listOf, requiredText, text, type JsonObject } from './read';

const readDevice = (source: JsonObject): Device => ({
  value: requiredText(source, 'value', 'device'),
  displayName: text(source, 'displayName'),
  serial: text(source, 'serial'),
});

/** Seed §4.1. */
export const deviceEndpoints = (http: HttpClient) => ({
  list: (query: DeviceListQuery = {}, options: CallOptions = {}): Promise<Device[]> =>
    http.data({ method: 'GET', path: '/devices', query, ...options }, (body) =>
      listOf(body, 'devices', readDevice),
    ),
});
export type DevicesApi = ReturnType<typeof deviceEndpoints>;

import type { ConversationList, Device, Identity } from '../../shared/api';
import type { IpcError } from '../../shared/ipc';
import { createApiClient, type ApiClient } from './client';
import { isApiError, serializeApiError } from './errors';
import type { HttpTuning } from './http';

/** The API client of the active account, with the calls the core makes directly. */
export interface ServiceClient {
  api: ApiClient;
  me(): Promise<Identity>;
  devices(organizationId: string): Promise<Device[]>;
  /** The conversation list's first page without filters (the diagnostics' last check). */
  firstConversations(): Promise<ConversationList>;
  close(): Promise<void>;
}

/** A client of the service at `baseUrl`; `tuning` overrides the client's retries and time-outs (tests). */
export function connectService(
  baseUrl: string,
  apiKey: string,
  tuning: HttpTuning = {},
): ServiceClient {
  const api = createApiClient({ ...tuning, baseUrl, apiKey });
  return {
    api,
    me: () => api.identity.me(),
    devices: (organizationId) => api.devices.list({ organizationId }),
    firstConversations: () => api.conversations.list({}),
    close: () => api.close(),
  };
}

/** The client's errors as IPC errors; undefined for anything else. */
export function translateServiceError(error: unknown): IpcError | undefined {
  if (!isApiError(error)) return undefined;
  const { name: _name, ...shape } = serializeApiError(error);
  return shape;
}

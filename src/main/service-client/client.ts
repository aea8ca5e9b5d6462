import { apiKeyEndpoints, type ApiKeysApi } from './api-keys';
import { conversationEndpoints, type ConversationsApi } from './conversations';
import { deviceEndpoints, type DevicesApi } from './devices';
import { createHttpClient, type HttpOptions } from './http';
import { identityEndpoints, type IdentityApi } from './identity';
import { labelEndpoints, type LabelsApi } from './labels';
import { taskBoardEndpoints, taskEndpoints, type TaskBoardsApi, type TasksApi } from './tasks';
import { webhookEndpoints, type WebhooksApi } from './webhooks';

/** The API root, the key, and optional tuning of retries, time-outs and the clock. */
export type ApiClientOptions = HttpOptions;

/** One typed function per endpoint of seed §4, grouped by resource. */
export interface ApiClient {
  identity: IdentityApi;
  devices: DevicesApi;
  labels: LabelsApi;
  conversations: ConversationsApi;
  taskBoards: TaskBoardsApi;
  tasks: TasksApi;
  apiKeys: ApiKeysApi;
  webhooks: WebhooksApi;
  /**
   * Opens the pool's keep-alive connections ahead of use: as many `/auth/me` at once (undici
   * opens a connection only for a request), their answers dropped. Never fails; gives up on a
   * service that does not answer within `timeoutMs`, retries included.
   */
  openConnections(timeoutMs: number): Promise<void>;
  /** Closes the keep-alive connections; requests after it fail. */
  close(): Promise<void>;
}

/** A client of one clinic service with one key: one keep-alive connection pool. */
export function createApiClient(options: ApiClientOptions): ApiClient {
  const http = createHttpClient(options);
  const identity = identityEndpoints(http);
  return {
    identity,
    devices: deviceEndpoints(http),
    labels: labelEndpoints(http),
    conversations: conversationEndpoints(http),
    taskBoards: taskBoardEndpoints(http),
    tasks: taskEndpoints(http),
    apiKeys: apiKeyEndpoints(http),
    webhooks: webhookEndpoints(http),
    async openConnections(timeoutMs) {
      const signal = AbortSignal.timeout(timeoutMs);
      await Promise.allSettled(
        Array.from({ length: http.connections }, () => identity.me({ signal })),
      );
    },
    close: () => http.close(),
  };
}

import type { ApiKey, CreateApiKeyRequest, CreatedApiKey } from '../../shared/api';
import { pathOf, type CallOptions, type HttpClient } from './http';
import {
  flag,
  listOf,
  nullableTimestamp,
  objectOf,
  requiredText,
  text,
  textList,
  timestamp,
  type JsonObject,
} from './read';

const readKeyBase = (source: JsonObject) => ({
  id: requiredText(source, 'id', 'API key'),
  name: text(source, 'name'),
  keyPrefix: text(source, 'keyPrefix'),
  organizationId: text(source, 'organizationId'),
  allowedFeatures: textList(source, 'allowedFeatures'),
  createdAt: timestamp(source, 'createdAt'),
  expiresAt: nullableTimestamp(source, 'expiresAt'),
});

const readApiKey = (source: JsonObject): ApiKey => ({
  ...readKeyBase(source),
  lastUsedAt: nullableTimestamp(source, 'lastUsedAt'),
  isRevoked: flag(source, 'isRevoked'),
});

function readCreatedKey(body: unknown): CreatedApiKey {
  const source = objectOf(body, 'created API key');
  return { ...readKeyBase(source), key: requiredText(source, 'key', 'created API key') };
}

/** Seed §4.5. Creating a key needs a user session; with an API key the service refuses it. */
export const apiKeyEndpoints = (http: HttpClient) => ({
  /** The only answer that ever holds the full key. */
  create: (request: CreateApiKeyRequest, options: CallOptions = {}): Promise<CreatedApiKey> =>
    http.data({ method: 'POST', path: '/api-keys', body: request, ...options }, readCreatedKey),
  list: (options: CallOptions = {}): Promise<ApiKey[]> =>
    http.data({ method: 'GET', path: '/api-keys', ...options }, (body) =>
      listOf(body, 'API keys', readApiKey),
    ),
  /** Immediate and irreversible (204). */
  revoke: (keyId: string, options: CallOptions = {}): Promise<void> =>
    http.send({ method: 'DELETE', path: pathOf`/api-keys/${keyId}`, ...options }),
});
export type ApiKeysApi = ReturnType<typeof apiKeyEndpoints>;

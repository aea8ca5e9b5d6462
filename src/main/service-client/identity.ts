import type { Entitlements, Identity, IdentityApiKey } from '../../shared/api';
import type { CallOptions, HttpClient } from './http';
import {
  flag,
  nullableTimestamp,
  objectOf,
  optionalObject,
  requiredText,
  text,
  textList,
  timestamp,
  type JsonObject,
} from './read';

const readEntitlements = (source: JsonObject): Entitlements => ({
  vet: flag(source, 'vet'),
  call: flag(source, 'call'),
  hub: flag(source, 'hub'),
  vetForceSubscriptionEndDate: nullableTimestamp(source, 'vetForceSubscriptionEndDate'),
  callForceSubscriptionEndDate: nullableTimestamp(source, 'callForceSubscriptionEndDate'),
});

const readIdentityApiKey = (source: JsonObject, organizationId: string): IdentityApiKey => ({
  id: requiredText(source, 'id', 'apiKey'),
  name: text(source, 'name'),
  keyPrefix: text(source, 'keyPrefix'),
  organizationId: text(source, 'organizationId', organizationId),
  allowedFeatures: textList(source, 'allowedFeatures'),
  createdAt: timestamp(source, 'createdAt'),
  expiresAt: nullableTimestamp(source, 'expiresAt'),
});

function readIdentity(body: unknown): Identity {
  const source = objectOf(body, 'identity');
  const organizationId = requiredText(source, 'organizationId', 'identity');
  const entitlements = optionalObject(source, 'entitlements');
  const apiKey = optionalObject(source, 'apiKey');
  return {
    userId: text(source, 'userId'),
    email: text(source, 'email'),
    authMethod: text(source, 'authMethod') === 'Cookie' ? 'Cookie' : 'ApiKey',
    organizationId,
    organizationName: text(source, 'organizationName'),
    entitlements: entitlements && readEntitlements(entitlements),
    apiKey: apiKey && readIdentityApiKey(apiKey, organizationId),
  };
}

/** Seed §4.1: the first call of an integration. */
export const identityEndpoints = (http: HttpClient) => ({
  me: (options: CallOptions = {}): Promise<Identity> =>
    http.data({ method: 'GET', path: '/auth/me', ...options }, readIdentity),
});
export type IdentityApi = ReturnType<typeof identityEndpoints>;

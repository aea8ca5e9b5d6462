import type { ADMIN_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import { invalidInput } from '../errors';
import type { RpcHandlers } from '../rpc';

export type AdminContext = Pick<CoreContext, 'accounts' | 'service'>;

/** An absolute http(s) address with a host, as the service requires; nothing else leaves main. */
function webhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidInput('The address is not a valid URL.');
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '')
    throw invalidInput('The address must start with http:// or https:// and name a host.');
  return url;
}

/**
 * Administration of the active account's organization: webhooks (owner or admin; the service
 * refuses others with 403, which reaches the UI as `scope_missing` and its detail) and API keys.
 * A webhook's secret passes through once, in createWebhook's answer; main keeps and logs nothing
 * of it.
 */
export function adminHandlers({
  accounts,
  service,
}: AdminContext): RpcHandlers<typeof ADMIN_CHANNELS> {
  const orgId = () => accounts.active().account.organizationId;
  return {
    'admin.webhooks': () => service.call((client) => client.api.webhooks.list(orgId())),
    'admin.createWebhook': ({ url, description, eventTypes }) =>
      service.call((client) =>
        client.api.webhooks.create(orgId(), {
          url: webhookUrl(url),
          description,
          ...(eventTypes && eventTypes.length > 0 ? { eventTypes } : {}),
        }),
      ),
    'admin.deleteWebhook': ({ webhookId }) =>
      service.call(async (client) => {
        await client.api.webhooks.delete(orgId(), webhookId);
        return client.api.webhooks.list(orgId());
      }),
    'admin.testWebhook': ({ webhookId }) =>
      service.call((client) => client.api.webhooks.test(orgId(), webhookId)),
    'admin.enableWebhook': ({ webhookId }) =>
      service.call(async (client) => {
        await client.api.webhooks.enable(orgId(), webhookId);
        return client.api.webhooks.list(orgId());
      }),
    'admin.deliveries': ({ webhookId }) =>
      service.call((client) => client.api.webhooks.deliveries(orgId(), webhookId)),
    'admin.apiKeys': () => service.call((client) => client.api.apiKeys.list()),
    'admin.revokeApiKey': ({ keyId }) =>
      service.call(async (client) => {
        if (keyId !== accounts.active().account.keyId) {
          await client.api.apiKeys.revoke(keyId);
          return client.api.apiKeys.list();
        }
        // The key this app uses: once revoked, it cannot list the keys any more.
        const before = await client.api.apiKeys.list();
        await client.api.apiKeys.revoke(keyId);
        return before.map((key) => (key.id === keyId ? { ...key, isRevoked: true } : key));
      }),
  };
}

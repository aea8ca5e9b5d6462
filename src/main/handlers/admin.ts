import type { CoreContext } from '../context';
import { invalidInput } from '../errors';
import type { RpcHandlers } from '../rpc';

type AdminChannels =
  | 'admin.webhooks'
  | 'admin.createWebhook'
  | 'admin.deleteWebhook'
  | 'admin.testWebhook'
  | 'admin.enableWebhook'
  | 'admin.deliveries'
  | 'admin.apiKeys'
  | 'admin.revokeApiKey';

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
  withService,
}: CoreContext): Pick<RpcHandlers, AdminChannels> {
  const orgId = () => accounts.active().account.organizationId;
  return {
    'admin.webhooks': () => withService((service) => service.api.webhooks.list(orgId())),
    'admin.createWebhook': ({ url, description, eventTypes }) =>
      withService((service) =>
        service.api.webhooks.create(orgId(), {
          url: webhookUrl(url),
          description,
          ...(eventTypes && eventTypes.length > 0 ? { eventTypes } : {}),
        }),
      ),
    'admin.deleteWebhook': ({ webhookId }) =>
      withService(async (service) => {
        await service.api.webhooks.delete(orgId(), webhookId);
        return service.api.webhooks.list(orgId());
      }),
    'admin.testWebhook': ({ webhookId }) =>
      withService((service) => service.api.webhooks.test(orgId(), webhookId)),
    'admin.enableWebhook': ({ webhookId }) =>
      withService(async (service) => {
        await service.api.webhooks.enable(orgId(), webhookId);
        return service.api.webhooks.list(orgId());
      }),
    'admin.deliveries': ({ webhookId }) =>
      withService((service) => service.api.webhooks.deliveries(orgId(), webhookId)),
    'admin.apiKeys': () => withService((service) => service.api.apiKeys.list()),
    'admin.revokeApiKey': ({ keyId }) =>
      withService(async (service) => {
        if (keyId !== accounts.active().account.keyId) {
          await service.api.apiKeys.revoke(keyId);
          return service.api.apiKeys.list();
        }
        // The key this app uses: once revoked, it cannot list the keys any more.
        const before = await service.api.apiKeys.list();
        await service.api.apiKeys.revoke(keyId);
        return before.map((key) => (key.id === keyId ? { ...key, isRevoked: true } : key));
      }),
  };
}

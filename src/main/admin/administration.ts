import type { ApiKey, CreatedWebhook, Delivery, EventType, Webhook } from '../../shared/api';
import type { AccountService } from '../accounts/accounts';
import type { ActiveService } from '../connection/active-service';
import { invalidInput } from '../base/errors';

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

export interface AdministrationDeps {
  accounts: AccountService;
  service: Pick<ActiveService, 'call'>;
}

/**
 * Administration of the active account's organization: webhooks (owner or admin; the service
 * refuses others with 403, which reaches the UI as `scope_missing` and its detail) and API keys.
 * A webhook's secret passes through once, in createWebhook's answer; main keeps and logs nothing
 * of it.
 */
export class Administration {
  constructor(private readonly deps: AdministrationDeps) {}

  private orgId = () => this.deps.accounts.active().account.organizationId;

  webhooks(): Promise<Webhook[]> {
    return this.deps.service.call((client) => client.api.webhooks.list(this.orgId()));
  }

  createWebhook(
    url: string,
    description: string,
    eventTypes?: EventType[],
  ): Promise<CreatedWebhook> {
    return this.deps.service.call((client) =>
      client.api.webhooks.create(this.orgId(), {
        url: webhookUrl(url),
        description,
        ...(eventTypes && eventTypes.length > 0 ? { eventTypes } : {}),
      }),
    );
  }

  /** Deletes a webhook; answers the list as it is afterwards. */
  deleteWebhook(webhookId: string): Promise<Webhook[]> {
    return this.deps.service.call(async (client) => {
      await client.api.webhooks.delete(this.orgId(), webhookId);
      return client.api.webhooks.list(this.orgId());
    });
  }

  testWebhook(webhookId: string) {
    return this.deps.service.call((client) => client.api.webhooks.test(this.orgId(), webhookId));
  }

  /** Re-enables a disabled webhook; answers the list as it is afterwards. */
  enableWebhook(webhookId: string): Promise<Webhook[]> {
    return this.deps.service.call(async (client) => {
      await client.api.webhooks.enable(this.orgId(), webhookId);
      return client.api.webhooks.list(this.orgId());
    });
  }

  deliveries(webhookId: string): Promise<Delivery[]> {
    return this.deps.service.call((client) =>
      client.api.webhooks.deliveries(this.orgId(), webhookId),
    );
  }

  apiKeys(): Promise<ApiKey[]> {
    return this.deps.service.call((client) => client.api.apiKeys.list());
  }

  /** Revokes a key; answers the list as it is afterwards. */
  revokeApiKey(keyId: string): Promise<ApiKey[]> {
    return this.deps.service.call(async (client) => {
      if (keyId !== this.deps.accounts.active().account.keyId) {
        await client.api.apiKeys.revoke(keyId);
        return client.api.apiKeys.list();
      }
      // The key this app uses: once revoked, it cannot list the keys any more.
      const before = await client.api.apiKeys.list();
      await client.api.apiKeys.revoke(keyId);
      return before.map((key) => (key.id === keyId ? { ...key, isRevoked: true } : key));
    });
  }
}

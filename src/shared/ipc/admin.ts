import { Type } from '@sinclair/typebox';
import {
  EVENT_TYPES,
  Uuid,
  type ApiKey,
  type CreatedWebhook,
  type Delivery,
  type Webhook,
  type WebhookTestResponse,
} from '../api';
import { channel, None } from './channel';

const WebhookRef = Type.Object({ webhookId: Uuid }, { additionalProperties: false });

/** Administration of the organization (owners and admins): webhooks and API keys. */
export const ADMIN_CHANNELS = {
  /** The organization's webhooks (owner or admin). */
  'admin.webhooks': channel<Webhook[]>()(None),
  /** The answer holds the signing secret: the only time it is ever shown. */
  'admin.createWebhook': channel<CreatedWebhook>()(
    Type.Object(
      {
        url: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://' }),
        description: Type.String({ maxLength: 500 }),
        eventTypes: Type.Optional(
          Type.Array(Type.Union(EVENT_TYPES.map((type) => Type.Literal(type))), {
            maxItems: EVENT_TYPES.length,
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  /** Deletes a webhook; answers the list as it is afterwards. */
  'admin.deleteWebhook': channel<Webhook[]>()(WebhookRef),
  /** Sends a ping to the webhook; answers once the first attempt has an outcome. */
  'admin.testWebhook': channel<WebhookTestResponse>()(WebhookRef),
  /** Re-enables a disabled webhook; answers the list as it is afterwards. */
  'admin.enableWebhook': channel<Webhook[]>()(WebhookRef),
  /** The last 50 delivery attempts, newest first. */
  'admin.deliveries': channel<Delivery[]>()(WebhookRef),
  'admin.apiKeys': channel<ApiKey[]>()(None),
  /** Revokes a key (immediate, irreversible); answers the list as it is afterwards. */
  'admin.revokeApiKey': channel<ApiKey[]>()(
    Type.Object({ keyId: Uuid }, { additionalProperties: false }),
  ),
} as const;

import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common';
import { EVENT_TYPES } from './values';

/** Seed §2.8, §3.3, §4.6, §6.2, §8. */
export const WEBHOOKS_PER_ORGANIZATION = 10;
export const DELIVERIES_RETURNED = 50;
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** Ours (the seed leaves it open): this many failed attempts in a row disable a webhook. */
export const WEBHOOK_DISABLE_AFTER_FAILURES = 20;

export const SIGNATURE_HEADER = 'x-service-signature';
export const EVENT_HEADER = 'x-service-event';
export const DELIVERY_HEADER = 'x-service-delivery';

export const Webhook = Type.Object({
  id: Uuid,
  url: Type.String(),
  description: Type.String(),
  eventTypes: Type.Array(Type.String()),
  isActive: Type.Boolean(),
  consecutiveFailures: Type.Integer({ minimum: 0 }),
  createdAt: Timestamp,
});
export type Webhook = Static<typeof Webhook>;

export const WebhookList = Type.Array(Webhook);

/** The creation response: the only time the secret is returned. */
export const CreatedWebhook = Type.Composite([Webhook, Type.Object({ secret: Type.String() })]);
export type CreatedWebhook = Static<typeof CreatedWebhook>;

export const CreateWebhookRequest = Type.Object(
  {
    url: Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 }),
    description: Type.String({ maxLength: 500 }),
    eventTypes: Type.Optional(
      Type.Array(StringEnum(EVENT_TYPES), { maxItems: EVENT_TYPES.length }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWebhookRequest = Static<typeof CreateWebhookRequest>;

export const Delivery = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  attemptNumber: Type.Integer({ minimum: 1 }),
  /** 0 when no response arrived (network error or time-out). */
  httpStatusCode: Type.Integer(),
  responseTimeMs: Type.Integer({ minimum: 0 }),
  errorMessage: Nullable(Type.String()),
  success: Type.Boolean(),
  createdAt: Timestamp,
});
export type Delivery = Static<typeof Delivery>;

export const DeliveryList = Type.Array(Delivery);

/** POST test (body not shown in the seed): whether the ping's first attempt succeeded. */
export const WebhookTestResponse = Type.Object({ success: Type.Boolean(), eventId: Type.String() });
export type WebhookTestResponse = Static<typeof WebhookTestResponse>;

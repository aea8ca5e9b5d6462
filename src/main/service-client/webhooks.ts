import type {
  CreatedWebhook,
  CreateWebhookRequest,
  Delivery,
  Webhook,
  WebhookTestResponse,
} from '../../shared/api';
import { pathOf, type CallOptions, type HttpClient } from './http';
import {
  flag,
  listOf,
  nullableText,
  numberOf,
  objectOf,
  requiredText,
  text,
  textList,
  timestamp,
  type JsonObject,
} from './read';

const readWebhook = (source: JsonObject): Webhook => ({
  id: requiredText(source, 'id', 'webhook'),
  url: text(source, 'url'),
  description: text(source, 'description'),
  eventTypes: textList(source, 'eventTypes'),
  isActive: flag(source, 'isActive', true),
  consecutiveFailures: numberOf(source, 'consecutiveFailures'),
  createdAt: timestamp(source, 'createdAt'),
});

function readCreatedWebhook(body: unknown): CreatedWebhook {
  const source = objectOf(body, 'created webhook');
  return { ...readWebhook(source), secret: requiredText(source, 'secret', 'created webhook') };
}

const readDelivery = (source: JsonObject): Delivery => ({
  id: text(source, 'id'),
  eventId: text(source, 'eventId'),
  eventType: text(source, 'eventType'),
  attemptNumber: numberOf(source, 'attemptNumber', 1),
  httpStatusCode: numberOf(source, 'httpStatusCode'),
  responseTimeMs: numberOf(source, 'responseTimeMs'),
  errorMessage: nullableText(source, 'errorMessage'),
  success: flag(source, 'success'),
  createdAt: timestamp(source, 'createdAt'),
});

/** The seed does not show the test answer; a 2xx without a body is a success. */
function readTestResponse(body: unknown): WebhookTestResponse {
  const source = body === undefined ? {} : objectOf(body, 'test response');
  return { success: flag(source, 'success', true), eventId: text(source, 'eventId') };
}

/** Seed §4.6. */
export const webhookEndpoints = (http: HttpClient) => {
  const path = (orgId: string, webhookId: string, action = '') =>
    pathOf`/organizations/${orgId}/webhooks/${webhookId}` + action;
  return {
    /** The only answer that holds the signing secret. At most 10 per organization. */
    create: (orgId: string, request: CreateWebhookRequest, options: CallOptions = {}) =>
      http.data(
        {
          method: 'POST',
          path: pathOf`/organizations/${orgId}/webhooks`,
          body: request,
          ...options,
        },
        readCreatedWebhook,
      ),
    list: (orgId: string, options: CallOptions = {}): Promise<Webhook[]> =>
      http.data(
        { method: 'GET', path: pathOf`/organizations/${orgId}/webhooks`, ...options },
        (body) => listOf(body, 'webhooks', readWebhook),
      ),
    delete: (orgId: string, webhookId: string, options: CallOptions = {}): Promise<void> =>
      http.send({ method: 'DELETE', path: path(orgId, webhookId), ...options }),
    /** Sends a ping event to the webhook. */
    test: (orgId: string, webhookId: string, options: CallOptions = {}) =>
      http.data(
        { method: 'POST', path: path(orgId, webhookId, '/test'), ...options },
        readTestResponse,
      ),
    /** Re-enables a webhook the service disabled. */
    enable: (orgId: string, webhookId: string, options: CallOptions = {}): Promise<void> =>
      http.send({ method: 'POST', path: path(orgId, webhookId, '/enable'), ...options }),
    /** The last 50 delivery attempts. */
    deliveries: (
      orgId: string,
      webhookId: string,
      options: CallOptions = {},
    ): Promise<Delivery[]> =>
      http.data(
        { method: 'GET', path: path(orgId, webhookId, '/deliveries'), ...options },
        (body) => listOf(body, 'deliveries', readDelivery),
      ),
  };
};
export type WebhooksApi = ReturnType<typeof webhookEndpoints>;

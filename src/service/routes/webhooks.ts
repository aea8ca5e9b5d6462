import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { randomBytes } from 'node:crypto';
import {
  CreatedWebhook,
  CreateWebhookRequest,
  DeliveryList,
  Uuid,
  Webhook,
  WebhookList,
  WebhookTestResponse,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOKS_PER_ORGANIZATION,
} from '../../shared/api';
import { toWebhook } from '../db/webhook-store';
import { reachable, requireOrganization, type Principal } from '../http/auth';
import type { RouteModule, ServiceContext } from '../http/context';
import { checkDestination, DestinationRefused } from '../webhooks/destinations';
import { conflict, ProblemError } from '../http/problems';

const OrgParams = Type.Object({ orgId: Uuid });
const WebhookParams = Type.Object({ orgId: Uuid, id: Uuid });

/** 32 random bytes: the seed asks for at least 24 after the whsec_ prefix. */
const newSecret = () => WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');

function visibleWebhook(
  { webhookStore }: ServiceContext,
  principal: Principal,
  params: { orgId: string; id: string },
) {
  requireOrganization(principal, params.orgId);
  return reachable(
    principal,
    webhookStore.webhook(params.id),
    (webhook) => webhook.organization_id,
    `No webhook ${params.id}.`,
  );
}

/**
 * Seed §4.6 webhooks. Every route needs the `webhooks` scope and an owner or admin: a webhook
 * sends the organization's events to any address.
 */
export const webhookRoutes: RouteModule = (fastify, context) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, webhookStore, dispatcher, events, now } = context;
  const config = { scope: 'webhooks', admin: true } as const;

  app.post(
    '/organizations/:orgId/webhooks',
    {
      config,
      schema: { params: OrgParams, body: CreateWebhookRequest, response: { 201: CreatedWebhook } },
    },
    async (request, reply) => {
      const { orgId } = request.params;
      requireOrganization(request.principal, orgId);
      await checkDestination(request.body.url, context.webhookDestinations).catch((error) => {
        if (!(error instanceof DestinationRefused)) throw error;
        throw new ProblemError(
          400,
          'validation_failed',
          'Invalid request',
          `body "url": ${error.message}`,
        );
      });
      const row = db.transaction(() => {
        if (webhookStore.webhooks(orgId).length >= WEBHOOKS_PER_ORGANIZATION) {
          throw new ProblemError(
            409,
            'limit_reached',
            'Limit reached',
            `The organization already has ${WEBHOOKS_PER_ORGANIZATION} webhooks, the most it may have; delete one first.`,
          );
        }
        return webhookStore.create({
          organizationId: orgId,
          url: request.body.url,
          description: request.body.description,
          eventTypes: request.body.eventTypes ?? [],
          secret: newSecret(),
          createdMs: now(),
          afterSeq: events.lastSeq(),
        });
      })();
      return reply.code(201).send({ ...toWebhook(row), secret: row.secret });
    },
  );

  app.get(
    '/organizations/:orgId/webhooks',
    { config, schema: { params: OrgParams, response: { 200: WebhookList } } },
    async (request) => {
      requireOrganization(request.principal, request.params.orgId);
      return webhookStore.webhooks(request.params.orgId).map(toWebhook);
    },
  );

  app.delete(
    '/organizations/:orgId/webhooks/:id',
    { config, schema: { params: WebhookParams } },
    async (request, reply) => {
      webhookStore.delete(visibleWebhook(context, request.principal, request.params).id);
      return reply.code(204).send();
    },
  );

  app.post(
    '/organizations/:orgId/webhooks/:id/test',
    { config, schema: { params: WebhookParams, response: { 200: WebhookTestResponse } } },
    async (request) => {
      const webhook = visibleWebhook(context, request.principal, request.params);
      if (webhook.is_active !== 1) {
        throw conflict(`Webhook ${webhook.id} is disabled; POST …/enable first, then test it.`);
      }
      return dispatcher.ping(webhook);
    },
  );

  app.post(
    '/organizations/:orgId/webhooks/:id/enable',
    { config, schema: { params: WebhookParams, response: { 200: Webhook } } },
    async (request) => {
      const webhook = visibleWebhook(context, request.principal, request.params);
      webhookStore.enable(webhook.id, events.lastSeq());
      return toWebhook(webhookStore.webhook(webhook.id)!);
    },
  );

  app.get(
    '/organizations/:orgId/webhooks/:id/deliveries',
    { config, schema: { params: WebhookParams, response: { 200: DeliveryList } } },
    async (request) =>
      webhookStore.deliveries(visibleWebhook(context, request.principal, request.params).id),
  );
};

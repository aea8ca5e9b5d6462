import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiKeyList, CreateApiKeyRequest, CreatedApiKey, Uuid } from '../../shared/api';
import { toApiKey } from '../db/identity-store';
import { isOwnerOrAdmin, reachable, requireOrganization } from '../http/auth';
import type { RouteModule } from '../http/context';
import { forbidden, invalidFields } from '../http/problems';

/**
 * Seed §4.5 and §5. Creating a key takes an owner's or admin's session cookie; listing and
 * revoking take a session or a key allowed everything (`logged-in`). Owners and admins see and
 * revoke every key of the organization, members only their own.
 */
export const apiKeyRoutes: RouteModule = (fastify, { identity, now }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const config = { scope: 'logged-in' } as const;

  app.post(
    '/api-keys',
    {
      config: { session: true, admin: true },
      schema: { body: CreateApiKeyRequest, response: { 201: CreatedApiKey } },
    },
    async (request, reply) => {
      const { name, organizationId, expiresAt, allowedFeatures } = request.body;
      requireOrganization(request.principal, organizationId);
      const expiresMs = expiresAt ? Date.parse(expiresAt) : null;
      if (expiresMs !== null && expiresMs <= now()) {
        throw invalidFields([
          { location: 'body', pointer: '/expiresAt', message: 'must be in the future' },
        ]);
      }
      const { row, key } = identity.createApiKey({
        userId: request.principal.userId,
        organizationId,
        name,
        allowedFeatures,
        expiresMs,
      });
      return reply.code(201).send({ ...toApiKey(row), key });
    },
  );

  app.get('/api-keys', { config, schema: { response: { 200: ApiKeyList } } }, async (request) => {
    const { principal } = request;
    const mine = isOwnerOrAdmin(principal) ? undefined : principal.userId;
    return identity.apiKeys(principal.organizationId, mine).map(toApiKey);
  });

  app.delete(
    '/api-keys/:keyId',
    { config, schema: { params: Type.Object({ keyId: Uuid }) } },
    async (request, reply) => {
      const { principal } = request;
      const { keyId } = request.params;
      const row = reachable(
        principal,
        identity.apiKey(keyId),
        (key) => key.organization_id,
        `No API key ${keyId}.`,
      );
      if (row.user_id !== principal.userId && !isOwnerOrAdmin(principal)) {
        throw forbidden(
          'role_missing',
          "Only an owner or admin of the organization may revoke another user's key.",
        );
      }
      identity.revokeApiKey(row.id);
      return reply.code(204).send();
    },
  );
};

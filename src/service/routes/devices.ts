import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { DeviceList, DeviceListQuery } from '../../shared/api';
import { toDevice } from '../db/hub-store';
import { requireOrganization } from '../http/auth';
import type { RouteModule } from '../http/context';

/** Seed §4.1 GET /devices. */
export const deviceRoutes: RouteModule = (fastify, { hub }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/devices',
    { schema: { querystring: DeviceListQuery, response: { 200: DeviceList } } },
    async (request) => {
      requireOrganization(request.principal, request.query.organizationId);
      return hub.devices(request.principal.organizationId, request.query.limit).map(toDevice);
    },
  );
};

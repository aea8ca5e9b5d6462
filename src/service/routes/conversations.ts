import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  CONVERSATION_MAX_RANGE_MS,
  CONVERSATION_PAGE_DEFAULT_SIZE,
  Conversation,
  ConversationList,
  ConversationListQuery,
  ConversationParams,
  CreateConversationRequest,
  CreateConversationResponse,
  DeviceId,
  Preview,
  PreviewQuery,
  SuccessResponse,
  Timeline,
  TimeRangeQuery,
  TIMELINE_MAX_WINDOW_MS,
} from '../../shared/api';
import type { DeviceRow } from '../db/hub-store';
import { conversationView, previewOf, toTimelineMinute } from '../hub/conversations';
import { requireOrganization, type Principal } from '../http/auth';
import type { RouteModule, ServiceContext } from '../http/context';
import { badRequest, invalidFields, notFound, ProblemError } from '../http/problems';

/** A device the caller may use: 404 when unknown, 403 when another organization's. */
function visibleDevice({ hub }: ServiceContext, principal: Principal, deviceId: string): DeviceRow {
  const device = hub.device(deviceId);
  if (!device) throw notFound(`No device ${deviceId}.`);
  requireOrganization(principal, device.organization_id);
  return device;
}

/** Rejects an empty, reversed or too long [startMs, endMs) range with a 400 that says which. */
function checkRange(startMs: number, endMs: number, maxMs: number, what: string): void {
  if (endMs <= startMs) throw badRequest('query parameter "endMs" must be later than "startMs".');
  if (endMs - startMs > maxMs) {
    throw new ProblemError(
      400,
      'range_too_long',
      'Range too long',
      `The ${what} spans ${Math.ceil((endMs - startMs) / 60_000)} minutes; at most ${maxMs / 60_000} minutes are allowed.`,
    );
  }
}

interface PageCursor {
  createdMs: number;
  id: string;
  /** The scope and filters the token was issued for. */
  scope: string;
}

const encodeCursor = (cursor: PageCursor) =>
  Buffer.from(JSON.stringify(cursor)).toString('base64url');

function decodeCursor(token: string, scope: string): PageCursor {
  let cursor: Partial<PageCursor>;
  try {
    cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as Partial<PageCursor>;
  } catch {
    throw badRequest('query parameter "pageToken" is not a token this service issued.');
  }
  if (
    typeof cursor.createdMs !== 'number' ||
    typeof cursor.id !== 'string' ||
    typeof cursor.scope !== 'string'
  ) {
    throw badRequest('query parameter "pageToken" is not a token this service issued.');
  }
  if (cursor.scope !== scope) {
    throw badRequest(
      'query parameter "pageToken" belongs to a listing with other filters; start again without it.',
    );
  }
  return cursor as PageCursor;
}

/**
 * A service started to send exactly the seed's fields knows no time-range filter names either:
 * it refuses them as it refuses any unknown parameter.
 */
function refuseRangeFilter(query: { startMs?: number; endMs?: number }): void {
  const unknown = (['startMs', 'endMs'] as const).filter((name) => query[name] !== undefined);
  if (unknown.length > 0) {
    throw invalidFields(
      unknown.map((name) => ({
        location: 'query',
        pointer: `/${name}`,
        message: 'is not a known property',
      })),
    );
  }
}

/** Seed §4.3 hub conversations. Every route needs the hub entitlement. */
export const conversationRoutes: RouteModule = (fastify, context) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { hub, conversations } = context;
  const config = { scope: 'hub', hub: true } as const;

  app.get(
    '/hub/conversations',
    { config, schema: { querystring: ConversationListQuery, response: { 200: ConversationList } } },
    async (request) => {
      const { principal } = request;
      const {
        deviceId,
        status,
        startMs,
        endMs,
        pageToken,
        pageSize = CONVERSATION_PAGE_DEFAULT_SIZE,
      } = request.query;
      if (!context.conversationRanges) refuseRangeFilter(request.query);
      requireOrganization(principal, request.query.organizationId);
      if (startMs !== undefined && endMs !== undefined && endMs <= startMs)
        throw badRequest('query parameter "endMs" must be later than "startMs".');
      const scope = [principal.organizationId, deviceId ?? '', status ?? '', startMs, endMs].join(
        '|',
      );
      const after = pageToken === undefined ? undefined : decodeCursor(pageToken, scope);
      const rows = hub.conversationPage({
        organizationId: principal.organizationId,
        deviceId,
        status,
        startMs,
        endMs,
        after,
        limit: pageSize + 1,
      });
      const items = rows.slice(0, pageSize);
      const last = items[items.length - 1];
      const hasMore = rows.length > pageSize && last !== undefined;
      return {
        items: items.map((row) => conversationView(row, context.conversationRanges)),
        hasMore,
        ...(hasMore
          ? { nextPageToken: encodeCursor({ createdMs: last.created_ms, id: last.id, scope }) }
          : {}),
      };
    },
  );

  app.get(
    '/hub/conversations/timeline/:deviceId',
    {
      config,
      schema: {
        params: Type.Object({ deviceId: DeviceId }),
        querystring: TimeRangeQuery,
        response: { 200: Timeline },
      },
    },
    async (request) => {
      const device = visibleDevice(context, request.principal, request.params.deviceId);
      const { startMs, endMs } = request.query;
      checkRange(startMs, endMs, TIMELINE_MAX_WINDOW_MS, 'timeline window');
      return { minutes: hub.minutes(device.id, startMs, endMs).map(toTimelineMinute) };
    },
  );

  app.get(
    '/hub/conversations/create/preview',
    { config, schema: { querystring: PreviewQuery, response: { 200: Preview } } },
    async (request) => {
      const { deviceId, startMs, endMs } = request.query;
      const device = visibleDevice(context, request.principal, deviceId);
      checkRange(startMs, endMs, CONVERSATION_MAX_RANGE_MS, 'preview range');
      return previewOf(hub.minutes(device.id, startMs, endMs));
    },
  );

  app.post(
    '/hub/conversations/create',
    {
      config,
      schema: { body: CreateConversationRequest, response: { 200: CreateConversationResponse } },
    },
    async (request) => {
      const { deviceId, startMs, endMs } = request.body;
      const device = visibleDevice(context, request.principal, deviceId);
      return conversations.create(device, startMs, endMs);
    },
  );

  /** The conversation named by the path: 404 when the device has no such conversation. */
  const visibleConversation = (principal: Principal, deviceId: string, conversationId: string) => {
    const device = visibleDevice(context, principal, deviceId);
    const row = hub.conversation(conversationId);
    if (!row || row.device_id !== device.id)
      throw notFound(`No conversation ${conversationId} on device ${deviceId}.`);
    return row;
  };

  app.get(
    '/hub/conversations/:deviceId/:conversationId',
    { config, schema: { params: ConversationParams, response: { 200: Conversation } } },
    async (request) =>
      conversationView(
        visibleConversation(
          request.principal,
          request.params.deviceId,
          request.params.conversationId,
        ),
        context.conversationRanges,
      ),
  );

  app.post(
    '/hub/conversations/:deviceId/:conversationId/complete',
    { config, schema: { params: ConversationParams, response: { 200: SuccessResponse } } },
    async (request) => {
      conversations.complete(
        visibleConversation(
          request.principal,
          request.params.deviceId,
          request.params.conversationId,
        ),
      );
      return { success: true };
    },
  );
};

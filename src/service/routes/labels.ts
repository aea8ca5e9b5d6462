import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import {
  AssignRequest,
  Label,
  LabelList,
  LabelListQuery,
  TOTAL_COUNT_HEADER,
  Uuid,
} from '../../shared/api';
import { contentDisposition, openLabelAudio } from '../audio/label-audio';
import { parseRange } from '../audio/range';
import { requireOrganization, type Principal } from '../http/auth';
import type { RouteModule, ServiceContext } from '../http/context';
import { notFound, ProblemError } from '../http/problems';

export const LabelParams = Type.Object({ labelId: Uuid });

/** A label the caller may see: 404 when there is none, 403 when it belongs to another organization. */
export function visibleLabel({ labels }: ServiceContext, principal: Principal, labelId: string) {
  const organizationId = labels.organizationOf(labelId);
  if (organizationId === undefined) throw notFound(`No label ${labelId}.`);
  requireOrganization(principal, organizationId);
  return labels.get(labelId)!;
}

/** Seed §4.2 labels. */
export const labelRoutes: RouteModule = (fastify, context) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, labels, events, clips, resourcesDir } = context;
  const config = { scope: 'labels' } as const;

  app.get(
    '/organizations/:orgId/labels',
    {
      config,
      schema: {
        params: Type.Object({ orgId: Uuid }),
        querystring: LabelListQuery,
        response: { 200: LabelList },
      },
    },
    async (request, reply) => {
      requireOrganization(request.principal, request.params.orgId);
      const { fromTime, toTime } = request.query;
      if (
        fromTime !== undefined &&
        toTime !== undefined &&
        Date.parse(toTime) < Date.parse(fromTime)
      ) {
        throw new ProblemError(
          400,
          'validation_failed',
          'Invalid request',
          'query parameter "toTime" must not be earlier than "fromTime".',
        );
      }
      const page = labels.list(request.params.orgId, request.query);
      reply.header(TOTAL_COUNT_HEADER, String(page.total));
      return page.items;
    },
  );

  app.get(
    '/labels/:labelId',
    { config, schema: { params: LabelParams, response: { 200: Label } } },
    async (request) => visibleLabel(context, request.principal, request.params.labelId),
  );

  app.post(
    '/labels/:labelId/assign',
    { config, schema: { params: LabelParams, body: AssignRequest, response: { 200: Label } } },
    async (request) => {
      const label = visibleLabel(context, request.principal, request.params.labelId);
      const patient = labels.patient(request.body.patientId);
      if (!patient || patient.organization_id !== request.principal.organizationId) {
        throw notFound(`No patient ${request.body.patientId} in this organization.`);
      }
      db.transaction(() => {
        labels.assign(label.id, patient.id);
        events.append(request.principal.organizationId, 'label_updated', { labelId: label.id });
      })();
      return labels.get(label.id)!;
    },
  );

  app.get(
    '/labels/:labelId/audio',
    { config, schema: { params: LabelParams } },
    async (request, reply) => {
      const label = visibleLabel(context, request.principal, request.params.labelId);
      const audio = labels.audio(label.id);
      if (!audio)
        throw new ProblemError(
          404,
          'no_audio',
          'No audio',
          `Label ${label.id} has no audio recording.`,
        );
      const size = audio.byte_length;
      const etag = `"${label.id}-${size}"`;
      const ifRange = request.headers['if-range'];
      const range =
        ifRange === undefined || ifRange === etag
          ? parseRange(request.headers.range, size)
          : undefined;
      if (range === 'unsatisfiable') {
        throw new ProblemError(
          416,
          'range_not_satisfiable',
          'Range not satisfiable',
          `The audio is ${size} bytes long.`,
          undefined,
          {
            'content-range': `bytes */${size}`,
          },
        );
      }
      reply.headers({
        'accept-ranges': 'bytes',
        'content-type': audio.content_type,
        'content-disposition': contentDisposition(label, audio.content_type),
        etag,
        'cache-control': 'private, no-cache',
      });
      const { start, end } = range ?? { start: 0, end: size - 1 };
      if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
      reply.header('content-length', String(end - start + 1));
      return reply.send(openLabelAudio(audio, clips, resourcesDir, start, end));
    },
  );
};

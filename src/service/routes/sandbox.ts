import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Label, RegenerateNoteRequest, sandboxNotesPath } from '../../shared/api';
import type { RouteModule } from '../http/context';
import { regenerateNote } from '../sandbox/regenerate';
import { LabelParams, visibleLabel } from './labels';

/**
 * The sandbox's controls (src/shared/api/sandbox.ts): outside the seed's API, for the demo and
 * the tests. Registered in the seed dialect only: the field dialect answers them 404, as the
 * real service would.
 */
export const sandboxRoutes: RouteModule = (fastify, context) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    sandboxNotesPath(':labelId'),
    {
      config: { scope: 'labels' },
      schema: { params: LabelParams, body: RegenerateNoteRequest, response: { 200: Label } },
    },
    async (request) => {
      const label = visibleLabel(context, request.principal, request.params.labelId);
      regenerateNote(context, label.id, request.body.type, request.body.content);
      return context.labels.get(label.id)!;
    },
  );
};

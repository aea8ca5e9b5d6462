import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { TOTAL_COUNT_HEADER } from '../../shared/api';
import { RECORD_TYPES, SOAP_NOTE_TYPE } from '../../shared/api/values';
import { parseSoap } from '../../shared/record/soap';

/**
 * The reference service as the real one behaves in the field, where public integrations found
 * it differs from the seed's letter (docs/reference-service.md, "Dialects", lists each
 * difference and where it was observed). Installed on the API scope by `dialect: 'field'`;
 * everything not listed here is the seed dialect's behaviour.
 *
 * - label `fromTime`/`toTime` are epoch milliseconds (numbers), not ISO 8601;
 * - list rows carry `ownedPatientNotes: null` (notes only with GET /labels/{id});
 * - a SOAP note's content is a JSON document in a string
 *   (`{"clinical_note": {"subjective": {"value": …}, …}}`), `"{}"` until it is written;
 * - the device list carries more fields (`lastReportAt`, `firmwareVersions`, `deviceType`) and
 *   also lists the organization's web and phone-app sign-ins (`deviceType` WEB, PHONE), which
 *   have no timeline;
 * - an unknown value in `types` matches nothing (200, an empty list) and `types[]=` is ignored;
 * - unknown query parameters are ignored;
 * - audio comes without an ETag.
 */
export function installFieldDialect(api: FastifyInstance, prefix: string): void {
  const route = (request: FastifyRequest) => request.routeOptions.url?.slice(prefix.length) ?? '';

  api.addHook('preValidation', async (request, reply) => {
    const query = request.query as Record<string, unknown> | undefined;
    const schema = request.routeOptions.schema?.querystring as TSchema | undefined;
    if (!query || typeof query !== 'object') return;
    // Unknown parameters are ignored rather than refused.
    const known = new Set(Object.keys((schema?.properties as object | undefined) ?? {}));
    for (const key of Object.keys(query)) if (!known.has(key)) delete query[key];
    if (route(request) === '/organizations/:orgId/labels' && 'types' in query) {
      const asked = [query.types]
        .flat()
        .map(String)
        .filter((type) => type !== '');
      const valid = asked.filter((type) => (RECORD_TYPES as readonly string[]).includes(type));
      if (asked.length === 0)
        delete query.types; // `types[]=`: no filter at all
      else if (valid.length === 0)
        return emptyList(reply); // nothing matches an unknown type
      else query.types = valid;
    }
  });

  api.addHook('preSerialization', async (request, reply, payload: unknown) => {
    const path = route(request);
    if (reply.statusCode >= 300) return payload;
    if (path === '/organizations/:orgId/labels' && Array.isArray(payload)) {
      reply.serializer(JSON.stringify);
      return payload.map((label: Record<string, unknown>) => ({
        ...fieldLabel(label),
        ownedPatientNotes: null,
      }));
    }
    if ((path === '/labels/:labelId' || path === '/labels/:labelId/assign') && isObject(payload)) {
      reply.serializer(JSON.stringify);
      return fieldLabel(payload);
    }
    if (path === '/devices' && Array.isArray(payload)) {
      reply.serializer(JSON.stringify);
      return fieldDevices(payload as Record<string, unknown>[]);
    }
    return payload;
  });

  api.addHook('onSend', async (request, reply, payload) => {
    if (route(request) === '/labels/:labelId/audio') reply.removeHeader('etag');
    return payload;
  });
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function emptyList(reply: FastifyReply) {
  return reply.header(TOTAL_COUNT_HEADER, '0').code(200).send([]);
}

/** A label with epoch-ms times and its SOAP notes as the JSON documents the field sends. */
function fieldLabel(label: Record<string, unknown>): Record<string, unknown> {
  const notes = Array.isArray(label.ownedPatientNotes) ? label.ownedPatientNotes : null;
  return {
    ...label,
    fromTime: Date.parse(String(label.fromTime)),
    toTime: Date.parse(String(label.toTime)),
    ownedPatientNotes:
      notes?.map((note: Record<string, unknown>) =>
        note.type === SOAP_NOTE_TYPE
          ? { ...note, content: soapDocument(String(note.content)) }
          : note,
      ) ?? null,
  };
}

/** A SOAP note's text as the field's JSON document; "{}" while it is not written. */
function soapDocument(text: string): string {
  const parsed = parseSoap(text);
  if (parsed.kind === 'processing') return '{}';
  const sections =
    parsed.kind === 'sections' ? parsed.sections : [{ heading: 'Subjective', text: parsed.text }];
  const note: Record<string, { value: string }> = {};
  for (const { heading, text: value } of sections) {
    const key = (heading ?? 'note').toLowerCase().replace(/\s+/g, '_');
    note[key] = { value };
  }
  return JSON.stringify({ clinical_note: note });
}

/** Hubs with the field's extra fields, then the sign-ins that are listed as devices too. */
function fieldDevices(devices: Record<string, unknown>[]): Record<string, unknown>[] {
  return [
    ...devices.map((device, i) => ({
      ...device,
      deviceType: 'HUB',
      lastReportAt: new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString(),
      firmwareVersions: { hub: '4.2.1', dsp: '1.9.0' },
    })),
    {
      value: 'web-sign-in',
      displayName: 'Web app',
      serial: '',
      deviceType: 'WEB',
      lastReportAt: null,
      firmwareVersions: null,
    },
    {
      value: 'phone-sign-in',
      displayName: 'Phone app',
      serial: '',
      deviceType: 'PHONE',
      lastReportAt: null,
      firmwareVersions: null,
    },
  ];
}

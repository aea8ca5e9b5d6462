import type { Readable } from 'node:stream';
import {
  LABEL_LIST_DEFAULT_LIMIT,
  TOTAL_COUNT_HEADER,
  type Label,
  type LabelListQuery,
  type Note,
  type Patient,
  type RecordType,
} from '../../shared/api';
import { headerOf, pathOf, type CallOptions, type HttpClient } from './http';
import { offsetPages } from './pagination';
import {
  enumText,
  listOf,
  objectOf,
  optionalObject,
  requiredText,
  text,
  timestamp,
  timestampOf,
  type JsonObject,
} from './read';

/** A note version. Without createdAt it takes its time: the seed's fallback for ordering (§2.3). */
function readNote(source: JsonObject): Note {
  const createdAt = timestampOf(source.createdAt);
  const time = timestampOf(source.time);
  const content = source.content;
  return {
    type: text(source, 'type'),
    // Content is text ("{}" while a transcript is processing); a structured one is kept as JSON.
    content:
      typeof content === 'string' || content === undefined || content === null
        ? (content ?? '')
        : JSON.stringify(content),
    createdAt: createdAt ?? time ?? '',
    time: time ?? createdAt ?? '',
  };
}

function readPatient(source: JsonObject): Patient | null {
  const patient = optionalObject(source, 'patient');
  const id = patient && text(patient, 'id');
  return patient && id ? { id, name: text(patient, 'name') } : null;
}

/** List rows may carry `ownedPatientNotes: null` (or none); the detail carries the notes. */
function readLabel(source: JsonObject): Label {
  const notes = source.ownedPatientNotes;
  return {
    id: requiredText(source, 'id', 'label'),
    type: enumText<RecordType>(source, 'type', 'label'),
    fromTime: timestamp(source, 'fromTime'),
    toTime: timestamp(source, 'toTime'),
    patient: readPatient(source),
    ownedPatientNotes: Array.isArray(notes) ? listOf(notes, 'ownedPatientNotes', readNote) : null,
    friendlyName: text(source, 'friendlyName'),
    deviceSerial: text(source, 'deviceSerial'),
  };
}

export interface LabelPage {
  items: Label[];
  /** X-Total-Count: labels matching the filters, regardless of limit and offset. */
  total: number | null;
}

export interface AudioRequest extends CallOptions {
  /** Bytes from `start` to `end` inclusive (to the end when absent), to resume a download. */
  range?: { start: number; end?: number };
  /** The ETag of the partial file: the service answers the whole file if it has changed. */
  ifRange?: string;
}

export interface LabelAudio {
  /** 200 for the whole file, 206 for a range. */
  status: number;
  contentType: string;
  contentLength: number | null;
  contentRange: string | null;
  etag: string | null;
  /** The file's Last-Modified date, a validator where the service sends no ETag. */
  lastModified: string | null;
  /** From Content-Disposition (its RFC 8187 filename* when present). */
  filename: string | null;
  body: Readable;
}

/** The file name of a Content-Disposition header, preferring the RFC 8187 `filename*`. */
export function filenameOf(disposition: string | undefined): string | null {
  if (!disposition) return null;
  const extended = /filename\*\s*=\s*[^']*'[^']*'([^;\s]+)/i.exec(disposition)?.[1];
  if (extended) {
    try {
      return decodeURIComponent(extended);
    } catch {
      // A malformed escape: fall back to the plain filename.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/i.exec(disposition);
  const name = plain?.[1]?.replace(/\\(.)/g, '$1') ?? plain?.[2];
  return name || null;
}

const countOf = (value: string | undefined): number | null => {
  const count = value === undefined ? Number.NaN : Number.parseInt(value, 10);
  return Number.isFinite(count) && count >= 0 ? count : null;
};

/** Seed §4.2 labels (records). */
export const labelEndpoints = (http: HttpClient) => {
  const list = async (
    orgId: string,
    query: LabelListQuery = {},
    options: CallOptions = {},
  ): Promise<LabelPage> => {
    const response = await http.json(
      { method: 'GET', path: pathOf`/organizations/${orgId}/labels`, query, ...options },
      (body) => listOf(body, 'labels', readLabel),
    );
    return { items: response.data, total: countOf(headerOf(response.headers, TOTAL_COUNT_HEADER)) };
  };

  return {
    /** `types` goes on the wire repeated, `types=HubMic&types=HubBatch`: the real service ignores `types[]=`. */
    list,
    /** Every page of a listing, from `query.offset`, `query.limit` at a time. */
    pages: (orgId: string, query: LabelListQuery = {}, options: CallOptions = {}) =>
      offsetPages((offset, limit) => list(orgId, { ...query, offset, limit }, options), {
        offset: query.offset ?? 0,
        limit: query.limit ?? LABEL_LIST_DEFAULT_LIMIT,
      }),
    get: (labelId: string, options: CallOptions = {}): Promise<Label> =>
      http.data({ method: 'GET', path: pathOf`/labels/${labelId}`, ...options }, (body) =>
        readLabel(objectOf(body, 'label')),
      ),
    assign: (labelId: string, patientId: string, options: CallOptions = {}): Promise<void> =>
      http.send({
        method: 'POST',
        path: pathOf`/labels/${labelId}/assign`,
        body: { patientId },
        ...options,
      }),
    /** The audio file as a stream; 404 (not_found) when the label has none. */
    audio: async (labelId: string, request: AudioRequest = {}): Promise<LabelAudio> => {
      const { range, ifRange, ...options } = request;
      const response = await http.stream({
        method: 'GET',
        path: pathOf`/labels/${labelId}/audio`,
        headers: {
          accept: 'audio/*',
          ...(range ? { range: `bytes=${range.start}-${range.end ?? ''}` } : {}),
          ...(ifRange ? { 'if-range': ifRange } : {}),
        },
        ...options,
      });
      const header = (name: string) => headerOf(response.headers, name) ?? null;
      return {
        status: response.status,
        contentType: header('content-type') ?? 'application/octet-stream',
        contentLength: countOf(header('content-length') ?? undefined),
        contentRange: header('content-range'),
        etag: header('etag'),
        lastModified: header('last-modified'),
        filename: filenameOf(header('content-disposition') ?? undefined),
        body: response.body,
      };
    },
  };
};
export type LabelsApi = ReturnType<typeof labelEndpoints>;

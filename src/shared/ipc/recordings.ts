import { Type, type Static } from '@sinclair/typebox';
import { RECORD_TYPES, RECORDING_ORDERS, Timestamp, Uuid, type Label } from '../api';
import type { TimedLine } from '../record/timed-transcript';
import { channel } from './channel';
import type { Sourced } from './results';

/**
 * A page of recordings. From the service, `total` is its X-Total-Count; from the cache (offline,
 * or asked for with source 'cache'), the number of cached rows matching the same query, and its
 * `fetchedAt` is when the cache last completed a sync.
 */
export interface LabelPage {
  items: Label[];
  total: number;
}

/** A patient seen on cached recordings (the seed has no patient list), for assigning. */
export interface KnownPatient {
  id: string;
  name: string;
  /** Cached recordings assigned to this patient. */
  recordings: number;
}

const LabelQueryInput = {
  sortingProperty: Type.Optional(
    Type.Union(RECORDING_ORDERS.map((property) => Type.Literal(property))),
  ),
  isSortingDescending: Type.Optional(Type.Boolean()),
  patientSearch: Type.Optional(Type.String({ maxLength: 200 })),
  types: Type.Optional(
    Type.Array(Type.Union(RECORD_TYPES.map((type) => Type.Literal(type))), {
      maxItems: RECORD_TYPES.length,
    }),
  ),
  fromTime: Type.Optional(Timestamp),
  toTime: Type.Optional(Timestamp),
};
/** The recordings list's filters (also what "export all matching" exports). */
export const LabelFilterInput = Type.Object(LabelQueryInput, { additionalProperties: false });
export type LabelFilter = Static<typeof LabelFilterInput>;

/** Recordings (labels): one, a page of the list, patients, assignment. */
export const RECORDING_CHANNELS = {
  /** A recording with its notes; offline, the cache's copy. */
  'labels.get': channel<Sourced<Label>>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  /**
   * A hub record's transcript line by line at the clock time of its minute (its device's
   * per-minute timeline; offline, the cached one), with each line's offset into the audio; null
   * for records without per-line times.
   */
  'labels.transcriptLines': channel<TimedLine[] | null>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  /**
   * A page of recordings with the service's filters and sorting. source 'service' (the default)
   * asks the service and keeps the rows in the cache, answering from the cache when the service
   * is unreachable; 'cache' answers from the cache at once (the renderer's first paint).
   */
  'labels.list': channel<Sourced<LabelPage>>()(
    Type.Object(
      {
        ...LabelQueryInput,
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
        source: Type.Optional(Type.Union([Type.Literal('service'), Type.Literal('cache')])),
      },
      { additionalProperties: false },
    ),
  ),
  /** Patients of cached recordings whose name contains `search` (all when empty), by name. */
  'labels.patients': channel<KnownPatient[]>()(
    Type.Object(
      {
        search: Type.String({ maxLength: 200 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      },
      { additionalProperties: false },
    ),
  ),
  /** POST assign, then answers the recording as the service now holds it (and caches it). */
  'labels.assign': channel<Label>()(
    Type.Object(
      { labelId: Uuid, patientId: Type.String({ minLength: 1, maxLength: 64 }) },
      { additionalProperties: false },
    ),
  ),
} as const;

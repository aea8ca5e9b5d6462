import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common';
import {
  LABEL_LIST_MAX_LIMIT,
  LABEL_SORTING_PROPERTIES,
  LIST_MAX_OFFSET,
  RECORD_TYPES,
} from './values';

const RecordTypeSchema = StringEnum(RECORD_TYPES);

export const Note = Type.Object({
  type: Type.String(),
  content: Type.String(),
  createdAt: Timestamp,
  time: Timestamp,
});
export type Note = Static<typeof Note>;

export const Patient = Type.Object({ id: Uuid, name: Type.String() });
export type Patient = Static<typeof Patient>;

/**
 * A label. `patient` is null until one is assigned (the seed shows only assigned patients).
 * List rows carry no notes (`ownedPatientNotes` null) to keep pages small; the detail has them.
 */
export const Label = Type.Object({
  id: Uuid,
  type: RecordTypeSchema,
  fromTime: Timestamp,
  toTime: Timestamp,
  patient: Nullable(Patient),
  ownedPatientNotes: Nullable(Type.Array(Note)),
  friendlyName: Type.String(),
  deviceSerial: Type.String(),
});
export type Label = Static<typeof Label>;

export const LabelListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LABEL_LIST_MAX_LIMIT })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: LIST_MAX_OFFSET })),
    sortingProperty: Type.Optional(StringEnum(LABEL_SORTING_PROPERTIES)),
    isSortingDescending: Type.Optional(Type.Boolean()),
    patientSearch: Type.Optional(Type.String({ maxLength: 200 })),
    /** Repeated once per type: `types=HubMic&types=HubBatch`. */
    types: Type.Optional(Type.Array(RecordTypeSchema, { maxItems: RECORD_TYPES.length })),
    fromTime: Type.Optional(Timestamp),
    /** Exclusive upper bound on the record's start time. */
    toTime: Type.Optional(Timestamp),
    /** The seed's unnamed user filter: labels recorded by this user. */
    userId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type LabelListQuery = Static<typeof LabelListQuery>;

export const LabelList = Type.Array(Label);

export const AssignRequest = Type.Object(
  { patientId: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);
export type AssignRequest = Static<typeof AssignRequest>;

export const TOTAL_COUNT_HEADER = 'x-total-count';

import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common';

/** Seed §2.3 record types. */
export const RECORD_TYPES = [
  'ClinicConversation',
  'HubBatch',
  'HubMic',
  'DictationAudio',
  'PhoneCallAudio',
  'ButtonRecording',
  'AudioButtonRecording',
  'AggregateLabel',
] as const;
export type RecordType = (typeof RECORD_TYPES)[number];
export const RecordTypeSchema = StringEnum(RECORD_TYPES);

/** Transcript note types (§2.3); other types, such as SOAP, are free-form strings. */
export const TRANSCRIPT_NOTE_TYPES = ['Transcript', 'NotesTranscript'] as const;
export const SOAP_NOTE_TYPE = 'SOAP';

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

export const LABEL_SORTING_PROPERTIES = ['FromTime', 'Type', 'Patient'] as const;
export type LabelSortingProperty = (typeof LABEL_SORTING_PROPERTIES)[number];

export const LABEL_LIST_DEFAULT_LIMIT = 50;
export const LABEL_LIST_MAX_LIMIT = 1000;

export const LabelListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LABEL_LIST_MAX_LIMIT })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
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

/**
 * The contract's plain values — enumerations, limits and defaults — with no schema code, so the
 * renderer and the pure domain modules can import them without bundling TypeBox. The schema
 * modules beside this one build their schemas from these.
 */

/** Seed §2.5 / §3.1. */
export const CONVERSATION_STATUSES = [
  'ACTIVE',
  'COMPLETED',
  'PROCESSING',
  'UPLOADED',
  'FAILED',
  'FILTERED',
] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];
/** Statuses a conversation never leaves. */
export const TERMINAL_STATUSES: readonly ConversationStatus[] = ['UPLOADED', 'FAILED', 'FILTERED'];

/**
 * The seed leaves transcriptState open. Ours follows the status:
 * PENDING (ACTIVE: nothing transcribed yet), PROCESSING (COMPLETED, PROCESSING),
 * READY (UPLOADED), NONE (FILTERED: never transcribed), FAILED (FAILED).
 */
export const TRANSCRIPT_STATES = ['PENDING', 'PROCESSING', 'READY', 'NONE', 'FAILED'] as const;
export type TranscriptState = (typeof TRANSCRIPT_STATES)[number];

export const CONVERSATION_PAGE_DEFAULT_SIZE = 20;
export const CONVERSATION_PAGE_MAX_SIZE = 100;

/** Seed §8 limits. */
export const MINUTE_MS = 60_000;
export const TIMELINE_MAX_WINDOW_MS = 6 * 60 * MINUTE_MS;
export const CONVERSATION_MAX_RANGE_MS = 90 * MINUTE_MS;

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

/** Transcript note types (§2.3); other types, such as SOAP, are free-form strings. */
export const TRANSCRIPT_NOTE_TYPES = ['Transcript', 'NotesTranscript'] as const;
export const SOAP_NOTE_TYPE = 'SOAP';

export const LABEL_SORTING_PROPERTIES = ['FromTime', 'Type', 'Patient'] as const;
export type LabelSortingProperty = (typeof LABEL_SORTING_PROPERTIES)[number];

/**
 * The Recordings list's orders: the service's, and Duration, which the seed's listing cannot sort
 * by: that order comes from the recordings on this computer (the cache holds every one a sync
 * has listed).
 */
export const RECORDING_ORDERS = [...LABEL_SORTING_PROPERTIES, 'Duration'] as const;
export type RecordingOrder = (typeof RECORDING_ORDERS)[number];
/** Whether only the cache can list in this order. */
export const isCacheOnlyOrder = (order: RecordingOrder | undefined): boolean =>
  order === 'Duration';
/** The order as the service's listing takes it: left out when only the cache has it. */
export const serviceOrder = (
  order: RecordingOrder | undefined,
): { sortingProperty?: LabelSortingProperty } =>
  order === undefined || order === 'Duration' ? {} : { sortingProperty: order };
export const LABEL_LIST_DEFAULT_LIMIT = 50;
export const LABEL_LIST_MAX_LIMIT = 1000;
/**
 * The largest `offset` a list takes (labels, tasks): beyond it a list is certainly empty, and a
 * bound keeps values like 2^63 or 1e20 a 400 naming the field rather than a database error.
 */
export const LIST_MAX_OFFSET = 1_000_000_000;

/** Seed §6.1 event types (task events are defined by the task boards module). */
export const EVENT_TYPES = [
  'new_label',
  'label_updated',
  'label_deleted',
  'conversation_created',
  'conversation_completed',
  'ping',
  'task_created',
  'task_updated',
  'task_comment_added',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Feature scopes a key may carry. `logged-in` (the seed's value) grants everything its user may do. */
export const FEATURE_SCOPES = ['logged-in', 'labels', 'hub', 'tasks', 'webhooks'] as const;
export type FeatureScope = (typeof FEATURE_SCOPES)[number];

/**
 * Seed §2.6, §2.7: a task status has a category (open or done); a field has a type and, for
 * select fields, its options.
 */
export const STATUS_CATEGORIES = ['open', 'done'] as const;
export type StatusCategory = (typeof STATUS_CATEGORIES)[number];
export const FIELD_TYPES = ['text', 'number', 'date', 'select'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * The default template of a new board (seed §4.4), in the shapes of tasks.ts's TaskStatus and
 * FieldDefinition (written out here: tasks.ts builds its schemas from this module).
 */
export const DEFAULT_STATUSES: readonly { id: string; name: string; category: StatusCategory }[] = [
  { id: 'not_addressed', name: 'Not addressed', category: 'open' },
  { id: 'in_progress', name: 'In progress', category: 'open' },
  { id: 'completed', name: 'Completed', category: 'done' },
  { id: 'no_action_needed', name: 'No Action Needed', category: 'done' },
];
export const DEFAULT_FIELDS: readonly {
  key: string;
  name: string;
  type: FieldType;
  options?: string[];
}[] = [
  { key: 'patient', name: 'Patient', type: 'text' },
  { key: 'doctor', name: 'Doctor', type: 'text' },
  { key: 'invoiced_items', name: 'Invoiced items', type: 'text' },
  { key: 'initials', name: 'Initials', type: 'text' },
];

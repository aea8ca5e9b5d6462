import { Type, type Static } from '@sinclair/typebox';
import { DeviceId, EpochMs, StringEnum, Uuid } from './common';

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
export const ConversationStatusSchema = StringEnum(CONVERSATION_STATUSES);
export const TERMINAL_STATUSES: readonly ConversationStatus[] = ['UPLOADED', 'FAILED', 'FILTERED'];

/**
 * The seed leaves transcriptState open. Ours follows the status:
 * PENDING (ACTIVE: nothing transcribed yet), PROCESSING (COMPLETED, PROCESSING),
 * READY (UPLOADED), NONE (FILTERED: never transcribed), FAILED (FAILED).
 */
export const TRANSCRIPT_STATES = ['PENDING', 'PROCESSING', 'READY', 'NONE', 'FAILED'] as const;
export type TranscriptState = (typeof TRANSCRIPT_STATES)[number];

export const Conversation = Type.Object({
  conversationId: Type.String(),
  deviceId: DeviceId,
  status: ConversationStatusSchema,
  speechMinuteCount: Type.Integer({ minimum: 0 }),
  transcriptState: StringEnum(TRANSCRIPT_STATES),
  isImportable: Type.Boolean(),
  notImportableReason: Type.String(),
  transcriptText: Type.String(),
});
export type Conversation = Static<typeof Conversation>;

export const CONVERSATION_PAGE_DEFAULT_SIZE = 20;
export const CONVERSATION_PAGE_MAX_SIZE = 100;

export const ConversationListQuery = Type.Object(
  {
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX_SIZE })),
    pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    status: Type.Optional(ConversationStatusSchema),
    deviceId: Type.Optional(DeviceId),
    organizationId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type ConversationListQuery = Static<typeof ConversationListQuery>;

export const ConversationList = Type.Object({
  items: Type.Array(Conversation),
  hasMore: Type.Boolean(),
  nextPageToken: Type.Optional(Type.String()),
});
export type ConversationList = Static<typeof ConversationList>;

export const ConversationParams = Type.Object({
  deviceId: DeviceId,
  conversationId: Type.String({ minLength: 1, maxLength: 64 }),
});

/** Seed §8 limits. */
export const MINUTE_MS = 60_000;
export const TIMELINE_MAX_WINDOW_MS = 6 * 60 * MINUTE_MS;
export const CONVERSATION_MAX_RANGE_MS = 90 * MINUTE_MS;

export const TimelineMinute = Type.Object({
  minuteStartMs: Type.Integer(),
  vadIsSilent: Type.Boolean(),
  vadSpeechDurationMs: Type.Integer({ minimum: 0 }),
  transcriptText: Type.String(),
  diarizedTranscriptText: Type.String(),
});
export type TimelineMinute = Static<typeof TimelineMinute>;

export const Timeline = Type.Object({ minutes: Type.Array(TimelineMinute) });
export type Timeline = Static<typeof Timeline>;

export const TimeRangeQuery = Type.Object(
  { startMs: EpochMs, endMs: EpochMs },
  { additionalProperties: false },
);
export type TimeRangeQuery = Static<typeof TimeRangeQuery>;

export const PreviewQuery = Type.Object(
  { deviceId: DeviceId, startMs: EpochMs, endMs: EpochMs },
  { additionalProperties: false },
);
export type PreviewQuery = Static<typeof PreviewQuery>;

export const Preview = Type.Object({
  totalMinutes: Type.Integer({ minimum: 0 }),
  speechMinutes: Type.Integer({ minimum: 0 }),
  silentMinutes: Type.Integer({ minimum: 0 }),
});
export type Preview = Static<typeof Preview>;

export const CreateConversationRequest = Type.Object(
  { deviceId: DeviceId, startMs: EpochMs, endMs: EpochMs },
  { additionalProperties: false },
);
export type CreateConversationRequest = Static<typeof CreateConversationRequest>;

export const CreateConversationResponse = Type.Object({
  success: Type.Boolean(),
  conversation: Type.Optional(Type.Object({ conversationId: Type.String() })),
  message: Type.Optional(Type.String()),
});
export type CreateConversationResponse = Static<typeof CreateConversationResponse>;

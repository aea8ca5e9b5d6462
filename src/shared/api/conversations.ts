import { Type, type Static } from '@sinclair/typebox';
import { ConversationId, DeviceId, EpochMs, Nullable, StringEnum, Uuid } from './common';
import { CONVERSATION_PAGE_MAX_SIZE, CONVERSATION_STATUSES, TRANSCRIPT_STATES } from './values';

const ConversationStatusSchema = StringEnum(CONVERSATION_STATUSES);
export const Conversation = Type.Object({
  conversationId: Type.String(),
  deviceId: DeviceId,
  status: ConversationStatusSchema,
  speechMinuteCount: Type.Integer({ minimum: 0 }),
  transcriptState: StringEnum(TRANSCRIPT_STATES),
  isImportable: Type.Boolean(),
  notImportableReason: Type.String(),
  transcriptText: Type.String(),
  /**
   * The reference service's extensions (the seed's conversation carries no times, though its
   * list has time-range filters whose names are not shown, so the service knows them): the range
   * [startMs, endMs) of device audio the conversation covers, and the label it became once
   * UPLOADED (null before). A service may leave them out; readers must not depend on them.
   */
  startMs: Type.Optional(EpochMs),
  endMs: Type.Optional(EpochMs),
  labelId: Type.Optional(Nullable(Uuid)),
});
export type Conversation = Static<typeof Conversation>;

export const ConversationListQuery = Type.Object(
  {
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: CONVERSATION_PAGE_MAX_SIZE })),
    pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    status: Type.Optional(ConversationStatusSchema),
    deviceId: Type.Optional(DeviceId),
    organizationId: Type.Optional(Uuid),
    /**
     * The reference service's names for the seed's time-range filter (names not shown): only
     * conversations whose range overlaps [startMs, endMs). Either bound may be given alone.
     */
    startMs: Type.Optional(EpochMs),
    endMs: Type.Optional(EpochMs),
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
  conversationId: ConversationId,
});

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

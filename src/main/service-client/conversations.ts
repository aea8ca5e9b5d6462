import type {
  Conversation,
  ConversationList,
  ConversationListQuery,
  ConversationStatus,
  CreateConversationRequest,
  CreateConversationResponse,
  Preview,
  PreviewQuery,
  SuccessResponse,
  Timeline,
  TimelineMinute,
  TimeRangeQuery,
  TranscriptState,
} from '../../shared/api';
import { pathOf, type CallOptions, type HttpClient } from './http';
import { tokenPages } from './pagination';
import {
  enumText,
  epochMs,
  flag,
  listOf,
  nullableText,
  numberOf,
  objectOf,
  optionalObject,
  readSuccess,
  requiredText,
  text,
  timestampOf,
  type JsonObject,
} from './read';

/**
 * The range a service with the reference's extension sends (`startMs`, `endMs`: epoch ms, also
 * read as ISO), and the label the conversation became; left out when the service sends none, or
 * no range that makes sense.
 */
function extensions(source: JsonObject): Pick<Conversation, 'startMs' | 'endMs' | 'labelId'> {
  const startMs = timestampOf(source.startMs);
  const endMs = timestampOf(source.endMs);
  const range =
    startMs !== null && endMs !== null && Date.parse(endMs) > Date.parse(startMs)
      ? { startMs: Date.parse(startMs), endMs: Date.parse(endMs) }
      : {};
  const labelId = nullableText(source, 'labelId');
  return { ...range, ...(labelId !== null || 'labelId' in source ? { labelId } : {}) };
}

const readConversation = (source: JsonObject): Conversation => ({
  conversationId: requiredText(source, 'conversationId', 'conversation'),
  deviceId: requiredText(source, 'deviceId', 'conversation'),
  status: enumText<ConversationStatus>(source, 'status', 'conversation'),
  speechMinuteCount: numberOf(source, 'speechMinuteCount'),
  // The seed leaves transcriptState open: whatever the service says is kept.
  transcriptState: enumText<TranscriptState>(source, 'transcriptState', 'conversation'),
  isImportable: flag(source, 'isImportable'),
  notImportableReason: text(source, 'notImportableReason'),
  transcriptText: text(source, 'transcriptText'),
  ...extensions(source),
});

function readConversationList(body: unknown): ConversationList {
  const source = objectOf(body, 'conversation list');
  const nextPageToken = text(source, 'nextPageToken');
  return {
    items: listOf(source.items ?? [], 'conversation list items', readConversation),
    hasMore: flag(source, 'hasMore'),
    ...(nextPageToken ? { nextPageToken } : {}),
  };
}

const readMinute = (source: JsonObject): TimelineMinute => ({
  minuteStartMs: epochMs(source, 'minuteStartMs'),
  vadIsSilent: flag(source, 'vadIsSilent'),
  vadSpeechDurationMs: numberOf(source, 'vadSpeechDurationMs'),
  transcriptText: text(source, 'transcriptText'),
  diarizedTranscriptText: text(source, 'diarizedTranscriptText'),
});

function readPreview(body: unknown): Preview {
  const source = objectOf(body, 'preview');
  return {
    totalMinutes: numberOf(source, 'totalMinutes'),
    speechMinutes: numberOf(source, 'speechMinutes'),
    silentMinutes: numberOf(source, 'silentMinutes'),
  };
}

/** A refusal comes back as `success: false` with a message (seed §7), not as an error. */
function readCreateResponse(body: unknown): CreateConversationResponse {
  const source = objectOf(body, 'create response');
  const conversation = optionalObject(source, 'conversation');
  const conversationId = conversation && text(conversation, 'conversationId');
  const message = text(source, 'message');
  return {
    success: flag(source, 'success'),
    ...(conversationId ? { conversation: { conversationId } } : {}),
    ...(message ? { message } : {}),
  };
}

/** Seed §4.3 hub conversations. */
export const conversationEndpoints = (http: HttpClient) => {
  const list = (query: ConversationListQuery = {}, options: CallOptions = {}) =>
    http.data(
      { method: 'GET', path: '/hub/conversations', query, ...options },
      readConversationList,
    );

  return {
    list,
    /** Every page of a listing, following nextPageToken while hasMore. */
    pages: (query: ConversationListQuery = {}, options: CallOptions = {}) =>
      tokenPages((pageToken) => list({ ...query, pageToken }, options), query.pageToken),
    get: (deviceId: string, conversationId: string, options: CallOptions = {}) =>
      http.data(
        {
          method: 'GET',
          path: pathOf`/hub/conversations/${deviceId}/${conversationId}`,
          ...options,
        },
        (body) => readConversation(objectOf(body, 'conversation')),
      ),
    /** The recorded minutes of [startMs, endMs): at most 6 hours. */
    timeline: (
      deviceId: string,
      range: TimeRangeQuery,
      options: CallOptions = {},
    ): Promise<Timeline> =>
      http.data(
        {
          method: 'GET',
          path: pathOf`/hub/conversations/timeline/${deviceId}`,
          query: range,
          ...options,
        },
        (body) => ({
          minutes: listOf(objectOf(body, 'timeline').minutes ?? [], 'minutes', readMinute),
        }),
      ),
    /** Minute counts of a range of at most 90 minutes. */
    preview: (query: PreviewQuery, options: CallOptions = {}): Promise<Preview> =>
      http.data(
        { method: 'GET', path: '/hub/conversations/create/preview', query, ...options },
        readPreview,
      ),
    /** Never retried after a server error or a lost connection: a retry could create a duplicate. */
    create: (request: CreateConversationRequest, options: CallOptions = {}) =>
      http.data(
        { method: 'POST', path: '/hub/conversations/create', body: request, ...options },
        readCreateResponse,
      ),
    /** Triggers processing; answers success for a conversation already completed. */
    complete: (
      deviceId: string,
      conversationId: string,
      options: CallOptions = {},
    ): Promise<SuccessResponse> =>
      http.data(
        {
          method: 'POST',
          path: pathOf`/hub/conversations/${deviceId}/${conversationId}/complete`,
          ...options,
        },
        readSuccess,
      ),
  };
};
export type ConversationsApi = ReturnType<typeof conversationEndpoints>;

import { Type } from '@sinclair/typebox';
import { CONVERSATION_STATUSES, DeviceId, EpochMs, type Conversation, type Label } from '../api';
import { channel, ConversationRef } from './channel';
import type { CreatedRange } from './hub';
import type { Sourced } from './results';

/** A conversation as a list shows it: when it was, and the record it became with its patient. */
export interface ConversationSummary {
  conversation: Conversation;
  /** Its range: the service's, else the one this app created it from; null when unknown. */
  startMs: number | null;
  endMs: number | null;
  /** The record it became (the service's labelId, else found by its range), when known. */
  labelId: string | null;
  /** That record's patient, when it is cached and has one. */
  patient: string | null;
  createdHere: boolean;
}

export interface ConversationPage {
  items: ConversationSummary[];
  hasMore: boolean;
  nextPageToken?: string;
}

/** A conversation's new state, pushed while main follows it (conversations.follow). */
export interface ConversationChange {
  deviceId: string;
  conversation: Conversation;
}

export const CONVERSATION_CHANNELS = {
  /**
   * A page of conversations, each with when it was and the record it became. `startMs`/`endMs`
   * keep those overlapping that range (a day): the service's filter where it has one, else the
   * conversations whose range is known. Offline, the cache's listing (the sync keeps the
   * service's order); its nextPageToken then goes on in the cache.
   */
  'conversations.list': channel<Sourced<ConversationPage>>()(
    Type.Object(
      {
        pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        // Literals, not the API's one-enum schema: main checks IPC with TypeBox's own compiler.
        status: Type.Optional(
          Type.Union(CONVERSATION_STATUSES.map((status) => Type.Literal(status))),
        ),
        deviceId: Type.Optional(DeviceId),
        startMs: Type.Optional(EpochMs),
        endMs: Type.Optional(EpochMs),
      },
      { additionalProperties: false },
    ),
  ),
  /** One conversation; offline, the cache's copy. */
  'conversations.get': channel<Sourced<Conversation>>()(ConversationRef),
  /**
   * Main follows the conversation until its status is final (TERMINAL_STATUSES), polling the
   * service with a backoff and pushing conversation.changed on each change; answers it as it is
   * now (as conversations.get does, offline too). Following one already followed joins that; a
   * switch of account or quitting stops it.
   */
  'conversations.follow': channel<Sourced<Conversation>>()(ConversationRef),
  /**
   * The record (label) an UPLOADED conversation became: the one the service names (labelId),
   * else the hub record of the range this app created it from (the seed links them by nothing
   * else); null when neither is known or it is not there yet.
   */
  'conversations.record': channel<Sourced<Label | null>>()(ConversationRef),
  /**
   * The range this app created the conversation from (kept in the cache, so offline too); null
   * when it was created elsewhere (a hub in auto mode, another program): the seed's conversation
   * carries no times of its own.
   */
  'conversations.createdRange': channel<CreatedRange | null>()(ConversationRef),
} as const;

import { Type } from '@sinclair/typebox';
import {
  CONVERSATION_STATUSES,
  DeviceId,
  type Conversation,
  type ConversationList,
  type Label,
} from '../api';
import { channel, ConversationRef } from './channel';
import type { CreatedRange } from './hub';
import type { Sourced } from './results';

/** A conversation's new state, pushed while main follows it (conversations.follow). */
export interface ConversationChange {
  deviceId: string;
  conversation: Conversation;
}

export const CONVERSATION_CHANNELS = {
  /**
   * A page of conversations. Offline, the cache's listing (the sync keeps the service's order);
   * its nextPageToken then goes on in the cache.
   */
  'conversations.list': channel<Sourced<ConversationList>>()(
    Type.Object(
      {
        pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        // Literals, not the API's one-enum schema: main checks IPC with TypeBox's own compiler.
        status: Type.Optional(
          Type.Union(CONVERSATION_STATUSES.map((status) => Type.Literal(status))),
        ),
        deviceId: Type.Optional(DeviceId),
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
   * The record (label) an UPLOADED conversation became, found by its remembered range (the seed
   * links them by nothing else); null when this app did not create it or it is not there yet.
   */
  'conversations.record': channel<Sourced<Label | null>>()(ConversationRef),
  /**
   * The range this app created the conversation from (kept in the cache, so offline too); null
   * when it was created elsewhere (a hub in auto mode, another program): the seed's conversation
   * carries no times of its own.
   */
  'conversations.createdRange': channel<CreatedRange | null>()(ConversationRef),
} as const;

import type { CONVERSATION_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type ConversationContext = Pick<CoreContext, 'conversations' | 'conversationFollower'>;

export const conversationHandlers = ({
  conversations,
  conversationFollower,
}: ConversationContext): RpcHandlers<typeof CONVERSATION_CHANNELS> => ({
  'conversations.list': (query) => conversations.list(query),
  'conversations.get': (ref) => conversations.get(ref),
  'conversations.follow': (ref) => conversationFollower.follow(ref),
  'conversations.record': (ref) => conversations.record(ref),
  'conversations.createdRange': (ref) => conversations.createdRange(ref),
});

import { TERMINAL_STATUSES } from '../../shared/api';
import type { ConversationChange, ReviewNotification } from '../../shared/ipc';
import { formatClock } from '../../shared/timeline';
import type { Cache } from '../cache';
import type { Conversations } from '../conversations/conversations';
import type { Review } from './review';

export interface ReadyNotifierDeps {
  cache(): Promise<Cache>;
  review: Pick<Review, 'settings'>;
  conversations: Pick<Conversations, 'record'>;
  notify(notification: ReviewNotification): void;
  log(message: string): void;
}

/**
 * Tells the user when a conversation they created here is done: a followed conversation
 * (src/main/conversations/follow.ts) that reaches a final status and was created on this
 * computer (its range is in the cache) becomes a review.notification — processed, with the
 * record to open, or failed or excluded with the service's reason — unless notifications are
 * off. Each conversation is told once per run.
 */
export class ReadyNotifier {
  private readonly told = new Set<string>();

  constructor(private readonly deps: ReadyNotifierDeps) {}

  changed(change: ConversationChange): void {
    void this.tell(change).catch((error: unknown) =>
      this.deps.log(
        `no notification for ${change.conversation.conversationId}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  }

  private async tell({ deviceId, conversation }: ConversationChange): Promise<void> {
    const { conversationId, status } = conversation;
    if (!TERMINAL_STATUSES.includes(status) || this.told.has(conversationId)) return;
    const { read } = await this.deps.cache();
    const created = await read.createdRange(conversationId);
    if (!created || !(await this.deps.review.settings()).settings.notifications) return;
    this.told.add(conversationId);
    const device =
      (await read.devices()).find((d) => d.value === deviceId)?.displayName ?? 'the hub';
    const when = `${device}, ${formatClock(created.startMs)}–${formatClock(created.endMs)}`;
    if (status === 'UPLOADED') {
      const label =
        conversation.labelId ??
        (await this.deps.conversations.record({ deviceId, conversationId })).value?.id ??
        null;
      this.deps.notify({
        outcome: 'processed',
        conversationId,
        deviceId,
        labelId: label,
        title: 'Conversation processed',
        body: `${when}: its recording and transcript are ready.`,
      });
      return;
    }
    const failed = status === 'FAILED';
    this.deps.notify({
      outcome: failed ? 'failed' : 'excluded',
      conversationId,
      deviceId,
      labelId: null,
      title: failed ? 'Conversation failed' : 'Conversation excluded',
      body: `${when}: ${conversation.notImportableReason || (failed ? 'the service could not process it.' : 'too little speech.')}`,
    });
  }
}

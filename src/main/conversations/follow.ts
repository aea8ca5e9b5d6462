import { setTimeout as sleep } from 'node:timers/promises';
import { TERMINAL_STATUSES, type Conversation } from '../../shared/api';
import type { ConversationChange, Sourced } from '../../shared/ipc';
import type { ActiveService } from '../connection/active-service';
import { isApiError } from '../service-client/errors';
import { isTransient } from '../service-client/failures';
import type { Cache } from '../cache';
import type { ConversationRef, Conversations } from './conversations';

/** How often a followed conversation is asked for: soon after a change, then less and less often. */
export interface FollowBackoff {
  firstMs: number;
  factor: number;
  maxMs: number;
}

const FOLLOW_BACKOFF: FollowBackoff = { firstMs: 1000, factor: 1.5, maxMs: 15_000 };

export interface FollowerDeps {
  service: Pick<ActiveService, 'call'>;
  conversations: Pick<Conversations, 'get'>;
  cache(): Promise<Cache>;
  /** A followed conversation changed (the conversation.changed event). */
  changed(change: ConversationChange): void;
  log(message: string): void;
  backoff?: FollowBackoff;
}

const isFinal = (conversation: Conversation) => TERMINAL_STATUSES.includes(conversation.status);

/** What a screen shows of a conversation: any difference is a change worth pushing. */
const sameState = (a: Conversation, b: Conversation) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The service may answer again later: a transient failure (unreachable or busy), or an answer
 * it could not read (a bad moment of a proxy or of the service): a follow outlives both.
 */
const isPassing = (error: unknown) =>
  isTransient(error) || (isApiError(error) && error.kind === 'invalid_response');

interface Follow {
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Follows an account's conversations to their final state, once, in main: each followed
 * conversation is asked for with a backoff until its status is in TERMINAL_STATUSES, and every
 * change is kept in the cache and pushed. One follow per conversation (a second caller joins it);
 * one follower per open account (its AccountScope), stopped with it: when another account becomes
 * active and when the app quits. While the service cannot be reached it keeps asking (at the
 * slowest pace), so it goes on when the connection comes back.
 */
export class ConversationFollower {
  private readonly follows = new Map<string, Follow>();
  private readonly backoff: FollowBackoff;
  private stopped = false;

  constructor(private readonly deps: FollowerDeps) {
    this.backoff = deps.backoff ?? FOLLOW_BACKOFF;
  }

  /** Follows a conversation (or joins its follow) and answers it as it is now. */
  async follow(ref: ConversationRef): Promise<Sourced<Conversation>> {
    const key = `${ref.deviceId}\n${ref.conversationId}`;
    let now: Sourced<Conversation> | undefined;
    try {
      now = await this.deps.conversations.get(ref);
    } catch (error) {
      // Unreachable and nothing cached: follow all the same, and say why there is no answer yet.
      if (!isPassing(error)) throw error;
      this.start(key, ref, undefined);
      throw error;
    }
    if (!isFinal(now.value)) this.start(key, ref, now.value);
    return now;
  }

  /** The conversations followed now (tests, diagnostics). */
  get following(): number {
    return this.follows.size;
  }

  /**
   * Stops every follow (its account closes, the app quits) and waits for them to end; a follow
   * asked for afterwards answers but is not started.
   */
  async stopAll(): Promise<void> {
    this.stopped = true;
    const follows = [...this.follows];
    for (const [key, follow] of follows) this.stop(key, follow);
    await Promise.all(follows.map(([, follow]) => follow.done));
  }

  private stop(key: string, follow: Follow): void {
    follow.abort.abort();
    if (this.follows.get(key) === follow) this.follows.delete(key);
  }

  private start(key: string, ref: ConversationRef, known: Conversation | undefined): void {
    if (this.stopped || this.follows.has(key)) return;
    const abort = new AbortController();
    const follow: Follow = { abort, done: Promise.resolve() };
    this.follows.set(key, follow);
    follow.done = this.run(ref, known, abort.signal)
      .catch((error: unknown) => {
        if (!abort.signal.aborted)
          this.deps.log(
            `stopped following conversation ${ref.conversationId}: ${error instanceof Error ? error.message : String(error)}`,
          );
      })
      .finally(() => {
        if (this.follows.get(key) === follow) this.follows.delete(key);
      });
  }

  private async run(
    { deviceId, conversationId }: ConversationRef,
    known: Conversation | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    let latest = known;
    let delayMs = this.backoff.firstMs;
    for (;;) {
      await sleep(delayMs, undefined, { signal, ref: false });
      let conversation: Conversation;
      try {
        conversation = await this.deps.service.call((service) =>
          service.api.conversations.get(deviceId, conversationId, { signal }),
        );
      } catch (error) {
        if (signal.aborted || !isPassing(error)) throw error;
        delayMs = this.backoff.maxMs;
        continue;
      }
      if (signal.aborted) return;
      if (!latest || !sameState(latest, conversation)) {
        latest = conversation;
        await (
          await this.deps.cache()
        ).write
          .storeConversation(conversation, Date.now())
          .catch(() => undefined);
        this.deps.changed({ deviceId, conversation });
        delayMs = this.backoff.firstMs;
      } else {
        delayMs = Math.min(this.backoff.maxMs, delayMs * this.backoff.factor);
      }
      if (isFinal(conversation)) return;
    }
  }
}

import { TERMINAL_STATUSES } from '../../shared/api';
import { isApiError } from '../service-client/errors';
import type { RunContext } from './context';

/**
 * Conversations by token pages, newest created first. A walk stores each page at its listing
 * positions, with the next page token, in one transaction (a killed run resumes from the token).
 * It stops early once a page brings nothing new or changed, only terminal conversations, and no
 * conversation below it can still change; every `fullRescanMs` it walks to the end instead and
 * deletes what the service no longer lists.
 */

export const CONVERSATIONS_STREAM = 'conversations';

interface ConversationsState {
  /** The walk under way (when it began), or null between walks. */
  walk: number | null;
  pageToken: string | null;
  position: number;
  /** This walk goes to the end (and sweeps). */
  full: boolean;
  lastCompleteAt: number | null;
  lastFullAt: number | null;
}

const IDLE: ConversationsState = {
  walk: null,
  pageToken: null,
  position: 0,
  full: true,
  lastCompleteAt: null,
  lastFullAt: null,
};

export async function walkConversations(ctx: RunContext): Promise<void> {
  const { read, write } = ctx.deps.cache;
  const now = ctx.tuning.now;
  const saved = ((await read.syncState(CONVERSATIONS_STREAM)) as ConversationsState | null) ?? IDLE;
  let state: ConversationsState =
    saved.walk !== null
      ? saved
      : {
          ...saved,
          walk: ctx.startedAt,
          pageToken: null,
          position: 0,
          full:
            saved.lastFullAt === null ||
            ctx.startedAt - saved.lastFullAt >= ctx.tuning.fullRescanMs,
        };
  const walk = state.walk!;
  const listPage = (pageToken: string | null) =>
    ctx.call((options) =>
      ctx.deps.api.conversations.list(
        { pageSize: ctx.tuning.conversationPageSize, ...(pageToken ? { pageToken } : {}) },
        options,
      ),
    );
  let nextPage: ReturnType<typeof listPage> | null = null;
  for (;;) {
    const asked = nextPage ?? listPage(state.pageToken);
    nextPage = null;
    let page;
    try {
      page = await asked;
    } catch (error) {
      // A saved token the service no longer takes: walk again from the top.
      if (isApiError(error) && error.kind === 'bad_request' && state.pageToken !== null) {
        state = { ...state, pageToken: null, position: 0 };
        continue;
      }
      throw error;
    }
    const end = !page.hasMore || !page.nextPageToken;
    const next: ConversationsState = {
      ...state,
      pageToken: end ? null : page.nextPageToken!,
      position: state.position + page.items.length,
    };
    // A full walk reads every page: the next is asked for while this one is stored (an
    // incremental walk may stop at this page, and would have asked for nothing).
    if (state.full && !end) {
      nextPage = listPage(next.pageToken);
      nextPage.catch(() => undefined); // awaited next turn, or dropped if this one fails
    }
    const stored = await write.storeConversationPage({
      items: page.items,
      walk,
      startPosition: state.position,
      seenAt: now(),
      ...(ctx.textFromMs === undefined ? {} : { textFromMs: ctx.textFromMs }),
      state: { stream: CONVERSATIONS_STREAM, value: next, at: now() },
    });
    ctx.progress.conversationsListed += page.items.length;
    ctx.progress.conversationsAdded += stored.added;
    ctx.progress.conversationsChanged += stored.changed;
    ctx.progress.emit();
    state = next;
    if (end) break;
    const settled =
      !state.full &&
      stored.added === 0 &&
      stored.changed === 0 &&
      page.items.every((c) => TERMINAL_STATUSES.includes(c.status)) &&
      (await read.openConversationsNotListedIn(walk)) === 0;
    if (settled) {
      await write.saveSyncState({
        stream: CONVERSATIONS_STREAM,
        value: { ...IDLE, full: false, lastCompleteAt: now(), lastFullAt: state.lastFullAt },
        at: now(),
      });
      return;
    }
  }
  const finished: ConversationsState = {
    ...IDLE,
    full: false,
    lastCompleteAt: now(),
    lastFullAt: state.full ? now() : state.lastFullAt,
  };
  if (state.full) {
    await write.sweepConversations(walk, {
      stream: CONVERSATIONS_STREAM,
      value: finished,
      at: now(),
    });
  } else {
    await write.saveSyncState({ stream: CONVERSATIONS_STREAM, value: finished, at: now() });
  }
}

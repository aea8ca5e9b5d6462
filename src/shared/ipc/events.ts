import type { AccountSummary } from './accounts';
import type { ConnectionStatus } from './app';
import type { ConversationChange } from './conversations';
import type { AudioProgress } from './audio';
import type { ExportProgressEvent } from './export';
import type { ReviewNotification } from './review';
import type { CleanupStatus } from './retention';
import type { LockedCache, SyncStatus } from './sync';

/**
 * The events main pushes to the renderer. Schema-free (the renderer and the preload import the
 * table): the shells forward exactly the events of EVENT_TABLE.
 */
export interface IpcEvents {
  'accounts.changed': AccountSummary[];
  'connection.changed': ConnectionStatus;
  'audio.progress': AudioProgress;
  'sync.changed': SyncStatus;
  /** The active account's offline copy was found locked (its key gone), or no longer is. */
  'cache.locked': LockedCache | null;
  'export.progress': ExportProgressEvent;
  /** A followed conversation changed (conversations.follow). */
  'conversation.changed': ConversationChange;
  /** The review queue's count changed (a sync, a mark, a sign-off). */
  'review.changed': { count: number };
  /** A conversation created here was processed or failed: a system notification. */
  'review.notification': ReviewNotification;
  /** The active account's cleanup (retention): its progress, and how it ended. */
  'retention.changed': CleanupStatus;
}
export type EventName = keyof IpcEvents;

/**
 * Every event, checked by the compiler against IpcEvents: an event added there and left out
 * here fails to compile (so no event is silently never forwarded), and so does a name here that
 * IpcEvents does not declare.
 */
const EVENT_TABLE = {
  'accounts.changed': true,
  'connection.changed': true,
  'audio.progress': true,
  'sync.changed': true,
  'cache.locked': true,
  'export.progress': true,
  'conversation.changed': true,
  'review.changed': true,
  'review.notification': true,
  'retention.changed': true,
} as const satisfies Record<EventName, true>;

export const EVENT_NAMES = Object.keys(EVENT_TABLE) as readonly EventName[];

/** Whether a name from the other side of a boundary is one of the contract's events. */
export const isEventName = (name: unknown): name is EventName =>
  typeof name === 'string' && Object.hasOwn(EVENT_TABLE, name);

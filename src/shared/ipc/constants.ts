/**
 * The IPC contract's plain values, with no schema code: the renderer imports these (and only
 * types from the rest of src/shared/ipc), so its bundle carries no TypeBox.
 */
import type { CleanupStatus } from './retention';
import type { SyncStatus } from './sync';

import type { ReviewSettings } from './review';

/** The path prefix, under the renderer's origin, of the media main serves. */
export const MEDIA_PATH_PREFIX = 'media/';

/** The most recordings one export takes (by id, or matching a filter). */
export const EXPORT_MAX_LABELS = 10_000;

/** No cleanup under way, none remembered yet (retention). */
export const CLEANUP_IDLE: CleanupStatus = {
  state: 'idle',
  done: 0,
  total: 0,
  last: null,
  message: null,
};

/** No run yet (or the account just opened). */
export const SYNC_IDLE: SyncStatus = {
  state: 'idle',
  done: 0,
  total: 0,
  lastSyncAt: null,
  message: null,
  searchableFrom: null,
  searchComplete: false,
  upgrading: false,
  rebuilding: false,
};

/** The link a task made from a recording carries back to it (see docs/architecture.md). */
export const RECORD_LINK_PREFIX = 'earmark://record/';

/** Electron ipc channel names carrying the contract. */
export const ELECTRON_INVOKE_CHANNEL = 'earmark:invoke';
export const ELECTRON_EVENT_CHANNEL = 'earmark:event';

/** The browser shell's WebSocket subprotocol: the contract's wire messages. */
export const SHELL_RPC_PROTOCOL = 'earmark.rpc';
/**
 * The browser shell's token travels as a second subprotocol, `earmark-token.<token>` (base64url
 * is valid there): a header only this server receives, where a cookie would go to every port.
 */
export const SHELL_TOKEN_PROTOCOL_PREFIX = 'earmark-token.';

/**
 * The error kinds by which the service refuses an account's key itself: no call can succeed
 * until a new key is added (the connection's `refused` state).
 */
export const KEY_REFUSAL_KINDS: readonly string[] = ['key_invalid', 'key_revoked', 'key_expired'];
/** Whether an error (of any shape carrying a kind) is the service refusing the key itself. */
export function isKeyRefusal(error: unknown): boolean {
  const kind = (error as { kind?: unknown } | null | undefined)?.kind;
  return typeof kind === 'string' && KEY_REFUSAL_KINDS.includes(kind);
}

/** Review's settings before the user changes any (main's answer when none are saved). */
export const DEFAULT_REVIEW_SETTINGS: ReviewSettings = {
  markOnOpen: 'after-viewing',
  notifications: true,
  signOff: false,
};

/** How long a record's transcript or note must be in view before it counts as reviewed. */
export const REVIEW_VIEWING_MS = 3000;

/** The name of the board Earmark creates for a clinic's sign-offs. */
export const SIGN_OFF_BOARD_NAME = 'Earmark sign-off';

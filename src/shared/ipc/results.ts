import type { InvalidFieldValues, StatusInUse } from '../api';

/**
 * What comes back across the boundary: a result (a value or an error as data), the kinds of
 * error main can produce, and a read that says where its answer came from. Schema-free: the
 * renderer imports these.
 */

/**
 * The kinds of a failure of the clinic service or the network: the API client's
 * (src/main/service-client/errors.ts); what each means is src/main/service-client/failures.ts.
 */
export const SERVICE_ERROR_KINDS = [
  'key_invalid',
  'key_revoked',
  'key_expired',
  'organization_mismatch',
  'scope_missing',
  'entitlement_missing',
  'not_found',
  'conflict',
  'rate_limited',
  'offline',
  'timeout',
  'server_error',
  'bad_request',
  'cancelled',
  'invalid_response',
] as const;

/**
 * Every kind of error main can produce, by where it arises. The compiler holds main to this
 * list (AppError, the API client's and the audio code's kinds are checked against it), so the
 * renderer can switch over `IpcError.kind` exhaustively.
 */
export const IPC_ERROR_KINDS = [
  // The clinic service and the network (the API client: src/main/service-client/errors.ts).
  ...SERVICE_ERROR_KINDS,
  // Files: downloads, the audio cache, exports (src/main/audio/errors.ts).
  'file_exists',
  'no_audio',
  'folder_missing',
  'folder_not_writable',
  'disk_full',
  'length_mismatch',
  'not_audio',
  'io_error',
  /** A cached file that failed its integrity check: refused, never played. */
  'tampered',
  // Accounts and the keychain.
  'no_account',
  'key_missing',
  'keychain_unavailable',
  /** What this computer keeps of the account is sealed with a key that is gone or another. */
  'cache_locked',
  // This computer: no folder dialog, no way to open links or folders.
  'unsupported',
  'open_failed',
  // The boundary itself: src/main/rpc.ts; a call from outside the app's own frame (Electron);
  // the browser shell's WebSocket lost (the renderer's bridge).
  'invalid_input',
  'unknown_channel',
  'forbidden',
  'disconnected',
  /** Anything unexpected: logged in main, shown only as a generic sentence. */
  'internal',
] as const;
export type IpcErrorKind = (typeof IPC_ERROR_KINDS)[number];

/** The 409 of PATCH board, as the UI needs it to offer the two choices. */
export interface BoardConflict {
  /** Removed statuses that tasks still use: choose a status to move them to (migrateTo). */
  statusesInUse: StatusInUse[];
  /** Fields whose stored values would become invalid: confirm dropping them. */
  invalidFieldValues: InvalidFieldValues[];
}

/** Every error that crosses the boundary: a kind the UI can explain and a message to show. */
export interface IpcError {
  kind: IpcErrorKind;
  message: string;
  status?: number;
  /** The service's own message, verbatim. */
  detail?: string;
  retryAfterMs?: number;
  /** PATCH board's 409: what blocks the save, so the UI can offer the choices. */
  boardConflict?: BoardConflict;
}

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** Where a read came from: the service now, or what main kept of an earlier read (offline). */
export type ReadSource = 'service' | 'cache';

/**
 * The answer of a read that has cached data (main's one offline policy, src/main/connection/offline.ts):
 * the value, where it came from, and when the service gave it — now for 'service'; for 'cache',
 * when what the cache holds was fetched (null when the cache cannot tell).
 */
export interface Sourced<T> {
  value: T;
  source: ReadSource;
  /** ISO 8601. */
  fetchedAt: string | null;
}

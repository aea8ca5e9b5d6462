import { ApiError, type ApiErrorKind } from './errors';

/**
 * What a failed call to the clinic service means, decided here once for the whole main process:
 * the client's retries (retry.ts, http.ts), the offline policy (offline.ts), the connection
 * status (active-service.ts), the sync (sync/engine.ts), audio (audio/audio-stream.ts) and the
 * conversation follower all ask these functions, so the same failure is read the same way
 * everywhere. The table of failures and what they become is in docs/faults.md and
 * test/main/service-client/failures.test.ts.
 *
 * Two steps: what happened on the wire becomes an ApiError kind (`kindOfErrorResponse` for an
 * answer, `kindOfNetworkFailure` for no answer), and a kind belongs to one class.
 */

/** How a failure is dealt with. */
export type FailureClass =
  /** The caller stopped it: nothing to tell, nothing to retry. */
  | 'cancelled'
  /**
   * No answer came (no connection, a reset, DNS, TLS, a time-out): reads answer from the cache,
   * the connection shows offline, and a later attempt may succeed.
   */
  | 'unreachable'
  /** The service answered that it cannot now (429, 5xx): a later attempt may succeed. */
  | 'busy'
  /** The service refused the account's key: nothing succeeds until the user adds a new one. */
  | 'key_refused'
  /** The service answered, and its answer stands (404, 403, 409, 400, an unreadable answer). */
  | 'answered'
  /** Not a failure of the service or the network (a file, a bug): passed on as it is. */
  | 'local';

const CLASS_OF_KIND: Record<ApiErrorKind, FailureClass> = {
  cancelled: 'cancelled',
  offline: 'unreachable',
  timeout: 'unreachable',
  rate_limited: 'busy',
  server_error: 'busy',
  // The contract's key refusals (KEY_REFUSAL_KINDS: the renderer says "Key revoked" for them).
  key_invalid: 'key_refused',
  key_revoked: 'key_refused',
  key_expired: 'key_refused',
  organization_mismatch: 'answered',
  scope_missing: 'answered',
  entitlement_missing: 'answered',
  not_found: 'answered',
  conflict: 'answered',
  bad_request: 'answered',
  invalid_response: 'answered',
};

/** The class of any thrown value: an ApiError by its kind, anything else is local. */
export function classify(error: unknown): FailureClass {
  return error instanceof ApiError ? CLASS_OF_KIND[error.kind] : 'local';
}

/** No answer from the service at all (after the client's own retries, where it made them). */
export const isUnreachable = (error: unknown): boolean => classify(error) === 'unreachable';

/** Asking again later, unchanged, may succeed: the service was unreachable or busy. */
export const isTransient = (error: unknown): boolean => {
  const failure = classify(error);
  return failure === 'unreachable' || failure === 'busy';
};

const UNAUTHORIZED_KINDS: Partial<Record<string, ApiErrorKind>> = {
  key_revoked: 'key_revoked',
  key_expired: 'key_expired',
};

const FORBIDDEN_KINDS: Partial<Record<string, ApiErrorKind>> = {
  organization_mismatch: 'organization_mismatch',
  scope_missing: 'scope_missing',
  entitlement_missing: 'entitlement_missing',
  // A user without the owner or admin role, or a call only a signed-in user may make: the key
  // cannot do it, which is what scope_missing tells the user.
  role_missing: 'scope_missing',
  session_required: 'scope_missing',
};

/**
 * The kind of an error response, from its status and the problem `code` when the service sends
 * one. Undefined for a 403 without a code it knows: the caller asks /auth/me which cause it is.
 */
export function kindOfErrorResponse(
  status: number,
  code: string | undefined,
): ApiErrorKind | undefined {
  if (status === 401) return (code && UNAUTHORIZED_KINDS[code]) || 'key_invalid';
  if (status === 403) return code ? FORBIDDEN_KINDS[code] : undefined;
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server_error';
  return 'bad_request';
}

/** Waited too long: for a connection, for the headers, or for the next bytes of a body. */
const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/** A request the client built wrong: a bug to see, not the network to wait out. */
const REQUEST_MISTAKE_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_URL',
]);

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/**
 * The kind of a request that got no usable answer, from the error Node or undici threw (its
 * `code`, or its cause's): a time-out, or `offline` for every other failure of the connection —
 * refused, reset, closed mid-body, a name that does not resolve, a TLS handshake or certificate
 * that fails. Undefined for what is not the network (no code, or a mistake in the request).
 */
export function kindOfNetworkFailure(error: unknown): 'timeout' | 'offline' | undefined {
  const code = codeOf(error) ?? codeOf((error as { cause?: unknown } | null)?.cause);
  if (code === undefined || REQUEST_MISTAKE_CODES.has(code)) return undefined;
  return TIMEOUT_CODES.has(code) ? 'timeout' : 'offline';
}

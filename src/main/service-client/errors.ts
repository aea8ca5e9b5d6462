import { SERVICE_ERROR_KINDS } from '../../shared/ipc/results';

/**
 * The errors of the API client, as values the UI can explain. Their kinds are the contract's
 * (SERVICE_ERROR_KINDS in src/shared/ipc/results.ts): the renderer explains the same list.
 */

export const API_ERROR_KINDS = SERVICE_ERROR_KINDS;
export type ApiErrorKind = (typeof API_ERROR_KINDS)[number];

/** What crosses an IPC boundary: plain data, no stack, never the API key. */
export interface ApiErrorShape {
  name: 'ApiError';
  kind: ApiErrorKind;
  /** A short sentence for the user, in plain words. */
  message: string;
  /** The HTTP status; absent when no response arrived. */
  status?: number;
  /** The service's own message (problem detail), verbatim; or what went wrong on the network. */
  detail?: string;
  /** How long the service asked us to wait (429 with Retry-After). */
  retryAfterMs?: number;
}

const MESSAGES: Record<ApiErrorKind, string> = {
  key_invalid:
    'The API key is not valid. Check that it was copied in full, or add a new key for this clinic.',
  key_revoked: 'The API key has been revoked. Add a new key for this clinic.',
  key_expired: 'The API key has expired. Add a new key for this clinic.',
  organization_mismatch:
    'This API key belongs to another organization. Use the key made for this clinic.',
  scope_missing:
    'The API key is not allowed to do this. Ask an administrator for a key with access to this feature.',
  entitlement_missing: "The clinic's subscription does not include this feature.",
  not_found: 'It was not found. It may have been deleted.',
  conflict: 'The change conflicts with the data as it is now, so it was not saved.',
  rate_limited: 'The clinic service is busy. Try again in a moment.',
  offline: 'The clinic service cannot be reached. Check the network connection.',
  timeout: 'The clinic service took too long to answer. Try again.',
  server_error: 'The clinic service ran into a problem. Try again later.',
  bad_request: 'The clinic service refused the request.',
  cancelled: 'The request was cancelled.',
  invalid_response: 'The clinic service sent an answer Earmark cannot read.',
};

function userMessage(kind: ApiErrorKind, retryAfterMs: number | undefined): string {
  if (kind === 'rate_limited' && retryAfterMs !== undefined && retryAfterMs >= 1000) {
    const seconds = Math.ceil(retryAfterMs / 1000);
    const wait = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
    return `The clinic service is busy. Try again in ${wait}.`;
  }
  return MESSAGES[kind];
}

export interface ApiErrorInit {
  status?: number;
  detail?: string;
  retryAfterMs?: number;
  /** The problem body's members beyond RFC 9457's and `code` (e.g. the 409 of PATCH board). */
  extensions?: Readonly<Record<string, unknown>>;
  cause?: unknown;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly status: number | undefined;
  readonly detail: string | undefined;
  readonly retryAfterMs: number | undefined;
  /**
   * Extension members of the problem body (RFC 9457 §3.2), as the service sent them: read by the
   * caller that knows them (tolerantly); not part of the serialized shape that crosses IPC.
   */
  readonly extensions: Readonly<Record<string, unknown>> | undefined;

  constructor(kind: ApiErrorKind, init: ApiErrorInit = {}) {
    super(userMessage(kind, init.retryAfterMs), { cause: init.cause });
    this.kind = kind;
    this.status = init.status;
    this.detail = init.detail;
    this.retryAfterMs = init.retryAfterMs;
    this.extensions = init.extensions;
  }

  toJSON(): ApiErrorShape {
    return serializeApiError(this);
  }
}

export function serializeApiError(error: ApiError): ApiErrorShape {
  return {
    name: 'ApiError',
    kind: error.kind,
    message: error.message,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }),
  };
}

export function isApiErrorShape(value: unknown): value is ApiErrorShape {
  if (typeof value !== 'object' || value === null) return false;
  const shape = value as Record<string, unknown>;
  return (
    shape.name === 'ApiError' &&
    (API_ERROR_KINDS as readonly unknown[]).includes(shape.kind) &&
    typeof shape.message === 'string' &&
    (shape.status === undefined || typeof shape.status === 'number') &&
    (shape.detail === undefined || typeof shape.detail === 'string') &&
    (shape.retryAfterMs === undefined || typeof shape.retryAfterMs === 'number')
  );
}

export const isApiError = (error: unknown): error is ApiError => error instanceof ApiError;

import { Type, type Static } from '@sinclair/typebox';

/**
 * Seed §7 leaves the error body open. The reference service answers every error with RFC 9457
 * problem details (Content-Type application/problem+json), plus a stable machine-readable `code`.
 */
export type ProblemCode =
  | 'validation_failed'
  | 'malformed_json'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'not_found'
  | 'method_not_allowed'
  | 'unauthenticated'
  | 'key_invalid'
  | 'key_revoked'
  | 'key_expired'
  | 'session_invalid'
  | 'session_required'
  | 'login_failed'
  | 'organization_mismatch'
  | 'scope_missing'
  | 'entitlement_missing'
  | 'role_missing'
  | 'no_audio'
  | 'range_not_satisfiable'
  | 'range_too_long'
  | 'conflict'
  | 'limit_reached'
  | 'rate_limited'
  | 'internal_error';

export const ProblemFieldError = Type.Object({
  /** Where the bad value was: `body`, `query`, `params` or `headers`, then a JSON pointer. */
  location: Type.String(),
  pointer: Type.String(),
  message: Type.String(),
});
export type ProblemFieldError = Static<typeof ProblemFieldError>;

export const Problem = Type.Object({
  type: Type.String(),
  title: Type.String(),
  status: Type.Integer(),
  detail: Type.String(),
  code: Type.String(),
  instance: Type.Optional(Type.String()),
  errors: Type.Optional(Type.Array(ProblemFieldError)),
});
export type Problem = Static<typeof Problem>;

export const problemType = (code: ProblemCode): string =>
  `https://earmark.dev/problems/${code.replaceAll('_', '-')}`;

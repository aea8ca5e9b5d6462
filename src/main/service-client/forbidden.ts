import type { ApiErrorKind } from './errors';
import { flag, objectOf, optionalObject, requiredText } from './read';

/** What /auth/me tells about the key, as far as telling the causes of a 403 apart needs. */
export interface KeyStanding {
  organizationId: string;
  hubEntitled: boolean;
}

/** Where a refused request went: its API path (no query) and its query parameters. */
export interface RefusedRequest {
  path: string;
  query: URLSearchParams;
}

/** The organization ids a request names: a path segment after /organizations/ and ?organizationId. */
function organizationsNamed({ path, query }: RefusedRequest): string[] {
  const segments = path.split('/');
  const named = segments.flatMap((segment, index) =>
    segments[index - 1] === 'organizations' && segment ? [segment] : [],
  );
  return [...named, ...query.getAll('organizationId')];
}

/**
 * The cause of a 403 whose body does not say (the real service sends no code): another
 * organization named in the path or query, a hub route without the hub entitlement, or else a
 * scope the key lacks. Without a standing (/auth/me failed too) the cause is a missing scope.
 */
export function forbiddenCause(
  request: RefusedRequest,
  standing: KeyStanding | undefined,
): ApiErrorKind {
  if (!standing) return 'scope_missing';
  const organizationId = standing.organizationId.toLowerCase();
  if (organizationsNamed(request).some((id) => id.toLowerCase() !== organizationId)) {
    return 'organization_mismatch';
  }
  if (/^\/hub(\/|$)/.test(request.path) && !standing.hubEntitled) return 'entitlement_missing';
  return 'scope_missing';
}

/** Reads the standing from an /auth/me body; entitlements null means no hub. */
export function readKeyStanding(body: unknown): KeyStanding {
  const identity = objectOf(body, 'identity');
  const entitlements = optionalObject(identity, 'entitlements');
  return {
    organizationId: requiredText(identity, 'organizationId', 'identity'),
    hubEntitled: entitlements !== null && flag(entitlements, 'hub'),
  };
}

import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  SESSION_COOKIE,
  type Entitlements,
  type FeatureScope,
  type Identity,
  type IdentityApiKey,
} from '../../shared/api';
import { entitlementsOf, toApiKey, type IdentityStore, type Role } from '../db/identity-store';
import { forbidden, notFound, unauthorized } from './problems';

/** Who is calling: resolved from a Bearer key or a session cookie for every authenticated route. */
export interface Principal {
  userId: string;
  email: string;
  organizationId: string;
  organizationName: string;
  entitlements: Entitlements;
  authMethod: Identity['authMethod'];
  apiKey: IdentityApiKey | null;
  role: Role | undefined;
}

/** What a route needs beyond authentication; set as the route's `config`. */
interface RouteAccess {
  /** No authentication (the login itself). */
  public?: boolean;
  /**
   * The feature scope a key must carry (a `logged-in` key or a session has every scope);
   * `logged-in` itself admits only keys allowed everything.
   */
  scope?: FeatureScope;
  /** Requires entitlements.hub of the organization. */
  hub?: boolean;
  /** The user must be an owner or admin of the organization. */
  admin?: boolean;
  /** Only a signed-in user's session cookie, never an API key. */
  session?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal;
  }
  // Module augmentation merges interfaces, so this one adds RouteAccess to every route's config.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends RouteAccess {}
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

function principalFromKey(store: IdentityStore, key: string, now: number): Principal {
  const row = store.apiKeyBySecret(key);
  if (!row) throw unauthorized('key_invalid', 'The API key is not valid.');
  if (row.revoked_ms !== null) throw unauthorized('key_revoked', 'The API key has been revoked.');
  if (row.expires_ms !== null && row.expires_ms <= now) {
    throw unauthorized(
      'key_expired',
      `The API key expired at ${new Date(row.expires_ms).toISOString()}.`,
    );
  }
  store.touchApiKey(row);
  const principal = principalOf(store, row.user_id, row.organization_id);
  if (!principal) throw unauthorized('key_invalid', 'The API key is not valid.');
  return { ...principal, authMethod: 'ApiKey', apiKey: toApiKey(row) };
}

/** The user acting in the organization, or undefined when either is gone. */
function principalOf(store: IdentityStore, userId: string, organizationId: string) {
  const user = store.user(userId);
  const org = store.organization(organizationId);
  if (!user || !org) return undefined;
  return {
    userId: user.id,
    email: user.email,
    organizationId: org.id,
    organizationName: org.name,
    entitlements: entitlementsOf(org),
    role: store.role(user.id, org.id),
  };
}

export function principalFromSession(store: IdentityStore, token: string): Principal {
  const session = store.session(token);
  const principal = session && principalOf(store, session.user_id, session.organization_id);
  // A session needs a membership: a user removed from the organization loses it at once.
  if (!principal?.role) {
    throw unauthorized('session_invalid', 'The session has ended; sign in again.');
  }
  return { ...principal, authMethod: 'Cookie', apiKey: null };
}

function authenticate(store: IdentityStore, request: FastifyRequest, now: number): Principal {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer +(\S+)\s*$/i.exec(header);
    if (!match?.[1]) {
      throw unauthorized('key_invalid', 'The Authorization header must be "Bearer <API key>".');
    }
    return principalFromKey(store, match[1], now);
  }
  const token = readCookie(request, SESSION_COOKIE);
  if (token) return principalFromSession(store, token);
  throw unauthorized('unauthenticated', 'Send an API key as "Authorization: Bearer <API key>".');
}

export const isOwnerOrAdmin = (principal: Principal) =>
  principal.role === 'owner' || principal.role === 'admin';

function checkAccess(principal: Principal, access: RouteAccess): void {
  if (access.session && principal.authMethod !== 'Cookie') {
    throw forbidden(
      'session_required',
      "This request needs a signed-in user's session (POST /auth/login); an API key cannot make it.",
    );
  }
  const features = principal.apiKey?.allowedFeatures;
  if (
    access.scope &&
    features &&
    !features.includes('logged-in') &&
    !features.includes(access.scope)
  ) {
    throw forbidden(
      'scope_missing',
      `The API key lacks the "${access.scope}" feature scope (it allows: ${features.join(', ') || 'nothing'}).`,
    );
  }
  if (access.hub && !principal.entitlements.hub) {
    throw forbidden(
      'entitlement_missing',
      `Organization "${principal.organizationName}" has no hub subscription (entitlements.hub is false).`,
    );
  }
  if (access.admin && !isOwnerOrAdmin(principal)) {
    throw forbidden(
      'role_missing',
      `${principal.email} is a ${principal.role ?? 'non-member'} of "${principal.organizationName}"; this needs the owner or admin role.`,
    );
  }
}

/** Rejects a request naming an organization other than the one the key is bound to. */
export function requireOrganization(
  principal: Principal,
  organizationId: string | undefined,
): void {
  if (organizationId !== undefined && organizationId !== principal.organizationId) {
    const bound =
      principal.authMethod === 'Cookie'
        ? `The session acts in organization ${principal.organizationId} (sign in with organizationId to act in another)`
        : `The API key is bound to organization ${principal.organizationId}`;
    throw forbidden(
      'organization_mismatch',
      `${bound}; it cannot reach organization ${organizationId}.`,
    );
  }
}

/** A resource the caller may reach: 404 when there is none, 403 when another organization's. */
export function reachable<T>(
  principal: Principal,
  found: T | undefined,
  organizationOf: (found: T) => string,
  missing: string,
): T {
  if (found === undefined) throw notFound(missing);
  requireOrganization(principal, organizationOf(found));
  return found;
}

/** Installs authentication on every route of `app` except public ones and unknown paths. */
export function installAuthentication(
  app: FastifyInstance,
  store: IdentityStore,
  now: () => number,
): void {
  app.decorateRequest('principal', null as unknown as Principal);
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config;
    if (request.routeOptions.url === undefined || access.public) return;
    request.principal = authenticate(store, request, now());
    checkAccess(request.principal, access);
  });
}

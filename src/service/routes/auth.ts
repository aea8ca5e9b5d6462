import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  Identity,
  LoginRequest,
  SESSION_COOKIE,
  type Identity as IdentityType,
} from '../../shared/api';
import { SESSION_LIFETIME_MS, verifyPassword } from '../db/identity-store';
import { principalFromSession, readCookie, type Principal } from '../http/auth';
import { RateLimiter } from '../http/rate-limit';
import type { RouteModule } from '../http/context';
import { ProblemError } from '../http/problems';

const identityOf = (principal: Principal): IdentityType => ({
  userId: principal.userId,
  email: principal.email,
  authMethod: principal.authMethod,
  organizationId: principal.organizationId,
  organizationName: principal.organizationName,
  entitlements: principal.entitlements,
  apiKey: principal.apiKey,
});

const loginFailed = () =>
  new ProblemError(
    401,
    'login_failed',
    'Unauthorized',
    'The e-mail address or password is not correct.',
  );

/**
 * Failed logins allowed per e-mail address, and per client address (many users may share one),
 * in 15 minutes before 429 with Retry-After: enough for typing mistakes, too few to guess. Logins
 * under way count until they succeed, so at most this many run at once for one e-mail.
 */
export const LOGIN_FAILURES_PER_EMAIL = { requests: 5, perSeconds: 15 * 60 };
export const LOGIN_FAILURES_PER_ADDRESS = { requests: 20, perSeconds: 15 * 60 };

/** Seed §4.1 GET /auth/me, and the cookie session the seed leaves unshown. */
export const authRoutes: RouteModule = (fastify, { identity, now }) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const byEmail = new RateLimiter(LOGIN_FAILURES_PER_EMAIL, now);
  const byAddress = new RateLimiter(LOGIN_FAILURES_PER_ADDRESS, now);

  app.get('/auth/me', { schema: { response: { 200: Identity } } }, async (request) =>
    identityOf(request.principal),
  );

  app.post(
    '/auth/login',
    { config: { public: true }, schema: { body: LoginRequest, response: { 200: Identity } } },
    async (request, reply) => {
      const { email, password, organizationId } = request.body;
      const emailKey = email.trim().toLowerCase();
      // The attempt is counted before its password is hashed: requests that arrive while an
      // earlier one hashes find its token gone, so parallel guesses get no more than the limit.
      const emailWait = byEmail.take(emailKey);
      const addressWait = byAddress.take(request.ip);
      if (emailWait !== undefined || addressWait !== undefined) {
        // Refused before any check: it costs neither limit what the other one took.
        if (emailWait === undefined) byEmail.giveBack(emailKey);
        if (addressWait === undefined) byAddress.giveBack(request.ip);
        const wait = Math.max(emailWait ?? 0, addressWait ?? 0);
        reply.header('retry-after', String(wait));
        throw new ProblemError(
          429,
          'rate_limited',
          'Too Many Requests',
          `Too many failed logins: try again in ${wait} seconds.`,
        );
      }
      const user = identity.userByEmail(email);
      if (!(await verifyPassword(password, user?.password_hash ?? null)) || !user) {
        throw loginFailed();
      }
      // Signed in: the e-mail's failures are cleared, and this attempt was no failure.
      byEmail.forget(emailKey);
      byAddress.giveBack(request.ip);
      const memberships = identity.memberships(user.id);
      const membership = organizationId
        ? memberships.find((m) => m.organization_id === organizationId)
        : memberships[0];
      if (!membership) {
        throw new ProblemError(
          403,
          'organization_mismatch',
          'Forbidden',
          'The user is not a member of that organization.',
        );
      }
      const token = identity.createSession(user.id, membership.organization_id);
      reply.header(
        'set-cookie',
        `${SESSION_COOKIE}=${token}; Path=/api; HttpOnly; SameSite=Strict; Max-Age=${SESSION_LIFETIME_MS / 1000}`,
      );
      return identityOf(principalFromSession(identity, token));
    },
  );

  app.post('/auth/logout', { config: { public: true } }, async (request, reply) => {
    const token = readCookie(request, SESSION_COOKIE);
    if (token) identity.endSession(token);
    return reply
      .header('set-cookie', `${SESSION_COOKIE}=; Path=/api; HttpOnly; SameSite=Strict; Max-Age=0`)
      .code(204)
      .send();
  });
};

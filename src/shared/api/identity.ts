import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common';

/** Seed §2.1 entitlements of the bound organization. */
export const Entitlements = Type.Object({
  vet: Type.Boolean(),
  call: Type.Boolean(),
  hub: Type.Boolean(),
  vetForceSubscriptionEndDate: Nullable(Timestamp),
  callForceSubscriptionEndDate: Nullable(Timestamp),
});
export type Entitlements = Static<typeof Entitlements>;

export const IdentityApiKey = Type.Object({
  id: Uuid,
  name: Type.String(),
  keyPrefix: Type.String(),
  organizationId: Uuid,
  allowedFeatures: Type.Array(Type.String()),
  createdAt: Timestamp,
  expiresAt: Nullable(Timestamp),
});
export type IdentityApiKey = Static<typeof IdentityApiKey>;

const AUTH_METHODS = ['ApiKey', 'Cookie'] as const;

export const Identity = Type.Object({
  userId: Uuid,
  email: Type.String(),
  authMethod: StringEnum(AUTH_METHODS),
  organizationId: Uuid,
  organizationName: Type.String(),
  entitlements: Nullable(Entitlements),
  apiKey: Nullable(IdentityApiKey),
});
export type Identity = Static<typeof Identity>;

/**
 * The seed does not show the session-cookie login (§5). Ours: POST /auth/login with e-mail and
 * password (and, for a user of several organizations, the organization to act in) sets an
 * HttpOnly session cookie and answers with the identity.
 */
export const LoginRequest = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
    organizationId: Type.Optional(Uuid),
  },
  { additionalProperties: false },
);
export type LoginRequest = Static<typeof LoginRequest>;

export const SESSION_COOKIE = 'earmark_session';

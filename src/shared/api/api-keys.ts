import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, Timestamp, Uuid } from './common';
import { IdentityApiKey } from './identity';
import { FEATURE_SCOPES } from './values';

/** Seed §2.2 and §4.5: the identity's key (§2.1) and, in the listing, its use and state. */
export const ApiKey = Type.Composite([
  IdentityApiKey,
  Type.Object({
    /** null for a key never used. */
    lastUsedAt: Nullable(Timestamp),
    isRevoked: Type.Boolean(),
  }),
]);
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyList = Type.Array(ApiKey);

/**
 * The seed's body (name, organizationId, expiresAt), plus allowedFeatures, ours: the feature
 * scopes of the key, `["logged-in"]` (everything its user may do) when omitted.
 */
export const CreateApiKeyRequest = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    organizationId: Uuid,
    expiresAt: Type.Optional(Nullable(Timestamp)),
    allowedFeatures: Type.Optional(
      Type.Array(StringEnum(FEATURE_SCOPES), {
        minItems: 1,
        maxItems: FEATURE_SCOPES.length,
        uniqueItems: true,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyRequest = Static<typeof CreateApiKeyRequest>;

/** The creation response: the only time the full key is ever returned. */
export const CreatedApiKey = Type.Composite([IdentityApiKey, Type.Object({ key: Type.String() })]);
export type CreatedApiKey = Static<typeof CreatedApiKey>;

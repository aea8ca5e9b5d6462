import {
  createHash,
  randomBytes,
  randomUUID,
  scrypt,
  scryptSync,
  timingSafeEqual,
} from 'node:crypto';
import { promisify } from 'node:util';
import type { ApiKey, Entitlements, FeatureScope } from '../../shared/api';
import { all, get, run } from '../../node-common/sql';
import type { ServiceDatabase } from './database';

/** Every key starts with this; the visible keyPrefix is it plus the next 8 characters and "...". */
const API_KEY_PREFIX = 'csk_';
const VISIBLE_KEY_CHARS = 8;
export const SESSION_LIFETIME_MS = 12 * 60 * 60 * 1000;

export type Role = 'owner' | 'admin' | 'member';

export interface OrganizationRow {
  id: string;
  name: string;
  entitlement_vet: number;
  entitlement_call: number;
  entitlement_hub: number;
  vet_force_end_ms: number | null;
  call_force_end_ms: number | null;
}

export interface ApiKeyRow {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  key_prefix: string;
  allowed_features: string;
  created_ms: number;
  expires_ms: number | null;
  last_used_ms: number | null;
  revoked_ms: number | null;
}

export interface UserRow {
  id: string;
  email: string;
  display_name: string;
  password_hash: string;
}

/** Keys are long random secrets, so one SHA-256 is a sound way to store and look them up. */
const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, 32);
  return `scrypt$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  length: number,
) => Promise<Buffer>;

/** A hash no password matches: an unknown e-mail is checked against it, the same work. */
const NO_USER_HASH = hashPassword(randomBytes(32).toString('base64url'));

/**
 * Checks a password off the event loop (libuv's thread pool), so logins never stall other
 * requests; `stored` null (no such user) costs the same scrypt, so timing does not tell which
 * e-mail addresses exist.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, salt, hash] = (stored ?? NO_USER_HASH).split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length);
  return timingSafeEqual(actual, expected) && stored !== null;
}

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function entitlementsOf(org: OrganizationRow): Entitlements {
  return {
    vet: org.entitlement_vet === 1,
    call: org.entitlement_call === 1,
    hub: org.entitlement_hub === 1,
    vetForceSubscriptionEndDate: isoOrNull(org.vet_force_end_ms),
    callForceSubscriptionEndDate: isoOrNull(org.call_force_end_ms),
  };
}

/** The seed's key as listed (§2.2); never the key itself, which is not stored. */
export const toApiKey = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  keyPrefix: row.key_prefix,
  organizationId: row.organization_id,
  allowedFeatures: JSON.parse(row.allowed_features) as string[],
  createdAt: new Date(row.created_ms).toISOString(),
  expiresAt: isoOrNull(row.expires_ms),
  lastUsedAt: isoOrNull(row.last_used_ms),
  isRevoked: row.revoked_ms !== null,
});

export class IdentityStore {
  constructor(
    private readonly db: ServiceDatabase,
    private readonly now: () => number,
  ) {}

  createOrganization(input: { name: string; entitlements: Entitlements; id?: string }): string {
    const id = input.id ?? randomUUID();
    const ms = (iso: string | null) => (iso === null ? null : Date.parse(iso));
    run(
      this.db,
      `INSERT INTO organizations (id, name, entitlement_vet, entitlement_call, entitlement_hub, vet_force_end_ms, call_force_end_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        input.name,
        Number(input.entitlements.vet),
        Number(input.entitlements.call),
        Number(input.entitlements.hub),
        ms(input.entitlements.vetForceSubscriptionEndDate),
        ms(input.entitlements.callForceSubscriptionEndDate),
      ],
    );
    return id;
  }

  organization(id: string): OrganizationRow | undefined {
    return get<OrganizationRow>(this.db, 'SELECT * FROM organizations WHERE id = ?', id);
  }

  createUser(input: { email: string; displayName: string; password: string }): string {
    const id = randomUUID();
    run(this.db, 'INSERT INTO users (id, email, display_name, password_hash) VALUES (?, ?, ?, ?)', [
      id,
      input.email,
      input.displayName,
      hashPassword(input.password),
    ]);
    return id;
  }

  user(id: string): UserRow | undefined {
    return get<UserRow>(this.db, 'SELECT * FROM users WHERE id = ?', id);
  }

  userByEmail(email: string): UserRow | undefined {
    return get<UserRow>(this.db, 'SELECT * FROM users WHERE email = ?', email);
  }

  addMembership(userId: string, organizationId: string, role: Role): void {
    run(this.db, 'INSERT INTO memberships (user_id, organization_id, role) VALUES (?, ?, ?)', [
      userId,
      organizationId,
      role,
    ]);
  }

  /** The user's memberships, oldest organization first (the default for a login without one). */
  memberships(userId: string): { organization_id: string; role: Role }[] {
    return all<{ organization_id: string; role: Role }>(
      this.db,
      'SELECT organization_id, role FROM memberships WHERE user_id = ? ORDER BY rowid',
      userId,
    );
  }

  role(userId: string, organizationId: string): Role | undefined {
    const row = get<{ role: Role }>(
      this.db,
      'SELECT role FROM memberships WHERE user_id = ? AND organization_id = ?',
      [userId, organizationId],
    );
    return row?.role;
  }

  /** Creates a key and returns its row and the full secret, which is never stored. */
  createApiKey(input: {
    userId: string;
    organizationId: string;
    name: string;
    allowedFeatures?: FeatureScope[];
    expiresMs?: number | null;
  }): { row: ApiKeyRow; key: string } {
    const key = API_KEY_PREFIX + randomBytes(30).toString('base64url');
    const row: ApiKeyRow = {
      id: randomUUID(),
      user_id: input.userId,
      organization_id: input.organizationId,
      name: input.name,
      key_prefix: `${key.slice(0, API_KEY_PREFIX.length + VISIBLE_KEY_CHARS)}...`,
      allowed_features: JSON.stringify(input.allowedFeatures ?? ['logged-in']),
      created_ms: this.now(),
      expires_ms: input.expiresMs ?? null,
      last_used_ms: null,
      revoked_ms: null,
    };
    run(
      this.db,
      `INSERT INTO api_keys (id, user_id, organization_id, name, key_hash, key_prefix, allowed_features, created_ms, expires_ms)
         VALUES (@id, @user_id, @organization_id, @name, @key_hash, @key_prefix, @allowed_features, @created_ms, @expires_ms)`,
      { ...row, key_hash: hashSecret(key) },
    );
    return { row, key };
  }

  apiKeyBySecret(key: string): ApiKeyRow | undefined {
    return get<ApiKeyRow>(this.db, 'SELECT * FROM api_keys WHERE key_hash = ?', hashSecret(key));
  }

  apiKey(id: string): ApiKeyRow | undefined {
    return get<ApiKeyRow>(this.db, 'SELECT * FROM api_keys WHERE id = ?', id);
  }

  /** The organization's keys (only those of `userId` when given), oldest first. */
  apiKeys(organizationId: string, userId?: string): ApiKeyRow[] {
    return all<ApiKeyRow>(
      this.db,
      'SELECT * FROM api_keys WHERE organization_id = @organizationId AND (@userId IS NULL OR user_id = @userId) ORDER BY created_ms, rowid',
      { organizationId, userId: userId ?? null },
    );
  }

  revokeApiKey(id: string): void {
    run(this.db, 'UPDATE api_keys SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL', [
      this.now(),
      id,
    ]);
  }

  /** lastUsedAt is kept to the second: a busy key writes at most once a second. */
  touchApiKey(row: ApiKeyRow): void {
    const now = this.now();
    if (row.last_used_ms !== null && now - row.last_used_ms < 1000) return;
    run(this.db, 'UPDATE api_keys SET last_used_ms = ? WHERE id = ?', [now, row.id]);
  }

  createSession(userId: string, organizationId: string): string {
    const token = randomBytes(32).toString('base64url');
    run(
      this.db,
      'INSERT INTO sessions (token_hash, user_id, organization_id, expires_ms) VALUES (?, ?, ?, ?)',
      [hashSecret(token), userId, organizationId, this.now() + SESSION_LIFETIME_MS],
    );
    return token;
  }

  session(token: string): { user_id: string; organization_id: string } | undefined {
    return get<{ user_id: string; organization_id: string }>(
      this.db,
      'SELECT user_id, organization_id FROM sessions WHERE token_hash = ? AND expires_ms > ?',
      [hashSecret(token), this.now()],
    );
  }

  endSession(token: string): void {
    run(this.db, 'DELETE FROM sessions WHERE token_hash = ?', hashSecret(token));
  }
}

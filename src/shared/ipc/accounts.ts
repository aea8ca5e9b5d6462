import { Type } from '@sinclair/typebox';
import type { Entitlements, Identity } from '../api';
import type { RetentionSettings } from '../retention';
import { channel, None } from './channel';

/** What is remembered of an account between runs (accounts.json): never the key itself. */
export interface AccountRecord {
  id: string;
  baseUrl: string;
  organizationId: string;
  organizationName: string;
  email: string;
  entitlements: Entitlements | null;
  allowedFeatures: string[];
  keyId: string | null;
  keyName: string | null;
  keyPrefix: string | null;
  expiresAt: string | null;
  /** Where the key lives: the OS keychain, or memory for this session only. */
  keyStorage: 'keychain' | 'session';
  /** The embedded demo clinic. */
  demo: boolean;
  /**
   * How long this clinic's data stays on this computer; absent until changed (the defaults).
   * Kept here, beside the account, so it outlives the cache (rebuilt when damaged, emptied by
   * "Remove everything").
   */
  retention?: RetentionSettings;
}

/** An account as the renderer sees it. */
export interface AccountSummary extends AccountRecord {
  /** False when the key is gone (a session-only key after a restart): add it again. */
  hasKey: boolean;
  active: boolean;
}

type DiagnosticStep = 'identity' | 'devices' | 'conversations';

export interface DiagnosticCheck {
  step: DiagnosticStep;
  ok: boolean;
  /** What was found, in plain words. */
  summary: string;
  /** What to do next when the check failed. */
  advice?: string;
}

/** Seed §7: why a conversation list is empty, checked step by step. */
export interface DiagnosticsReport {
  checks: DiagnosticCheck[];
  /** The first failing step, if any. */
  failedStep: DiagnosticStep | null;
}

/** An account's id as the renderer names it (account ids are base64url). */
export const AccountId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });

export const ACCOUNT_CHANNELS = {
  'accounts.list': channel<AccountSummary[]>()(None),
  /**
   * Validates the key with GET /auth/me, then stores it in the OS keychain. With no keychain the
   * call fails with kind `keychain_unavailable` unless `sessionOnly` accepts keeping the key in
   * memory until the app quits.
   */
  'accounts.add': channel<AccountSummary>()(
    Type.Object(
      {
        baseUrl: Type.String({ minLength: 1, maxLength: 500 }),
        apiKey: Type.String({ minLength: 8, maxLength: 500 }),
        sessionOnly: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  'accounts.remove': channel<AccountSummary[]>()(
    Type.Object({ accountId: AccountId }, { additionalProperties: false }),
  ),
  'accounts.activate': channel<AccountSummary[]>()(
    Type.Object({ accountId: AccountId }, { additionalProperties: false }),
  ),
  /** Starts the embedded demo clinic (the reference service on loopback) and activates its account. */
  'accounts.openDemo': channel<AccountSummary>()(None),
  /** Runs the seed's three checks for an empty conversation list on the active account. */
  'accounts.diagnose': channel<DiagnosticsReport>()(None),
  /** GET /auth/me of the active account, fresh from the service. */
  'identity.me': channel<Identity>()(None),
} as const;

import { randomBytes } from 'node:crypto';
import type { Identity } from '../../shared/api';
import type { AccountSummary } from '../../shared/ipc';
import { retentionOf, type RetentionSettings } from '../../shared/retention';
import { isApiError } from '../service-client/errors';
import { AppError } from '../base/errors';
import type { AccountStore, StoredAccount } from './account-store';
import { normalizeBaseUrl } from './base-url';
import { KEYCHAIN_SERVICE, KeychainUnavailableError, type SecretStore } from './secret-store';

/** Asks the service who a key belongs to (GET /auth/me); rejects for a bad key. */
export type Identify = (baseUrl: string, apiKey: string) => Promise<Identity>;

export interface AddAccountInput {
  baseUrl: string;
  apiKey: string;
  sessionOnly?: boolean;
  demo?: boolean;
}

/** The active account with its key, for the API client. */
export interface ActiveAccount {
  account: StoredAccount;
  apiKey: string;
}

/**
 * Accounts: a base URL, a key and the organization /auth/me reports. Several can exist (one key
 * per organization), one is active. Keys go to the OS keychain, or, by the user's choice when
 * there is none, to memory for this session; the account file never holds one.
 */
export class AccountService {
  private readonly activeListeners = new Set<(activeId: string | null) => void>();

  constructor(
    private readonly store: AccountStore,
    private readonly keychain: SecretStore,
    private readonly session: SecretStore,
    private readonly identify: Identify,
  ) {
    // Keys a removal could not delete earlier (the keychain was locked or gone): again, at start.
    this.deleteLeftKeys();
  }

  /**
   * Calls `listener` with the active account's id (null: none) whenever another account becomes
   * active: one is added, activated, or the active one removed. Answers the unsubscribe.
   */
  onActiveChange(listener: (activeId: string | null) => void): () => void {
    this.activeListeners.add(listener);
    return () => this.activeListeners.delete(listener);
  }

  /** Saves a change of the accounts file and tells the listeners if the active account changed. */
  private update(change: Parameters<AccountStore['update']>[0]): void {
    const before = this.store.activeId;
    this.store.update(change);
    const after = this.store.activeId;
    if (after !== before) for (const listener of this.activeListeners) listener(after);
  }

  private secrets(account: StoredAccount): SecretStore {
    return account.keyStorage === 'keychain' ? this.keychain : this.session;
  }

  private hasKey(account: StoredAccount): boolean {
    try {
      return this.secrets(account).get(account.id) !== undefined;
    } catch {
      return false;
    }
  }

  list(): AccountSummary[] {
    return this.store.accounts.map((account) => ({
      ...account,
      hasKey: this.hasKey(account),
      active: account.id === this.store.activeId,
    }));
  }

  private summary(id: string): AccountSummary {
    const found = this.list().find((a) => a.id === id);
    if (!found) throw new AppError('not_found', 'That account no longer exists.');
    return found;
  }

  /** Validates the key with the service first; stores nothing if that fails. */
  async add(input: AddAccountInput): Promise<AccountSummary> {
    this.deleteLeftKeys();
    const baseUrl = normalizeBaseUrl(input.baseUrl);
    const apiKey = input.apiKey.trim();
    const identity = await this.identify(baseUrl, apiKey).catch((error: unknown) => {
      // Something answered, but not the service's API there: most often the /api root is missing.
      if (isApiError(error) && error.kind === 'not_found') {
        throw new AppError('not_found', notTheServiceMessage(baseUrl));
      }
      throw error;
    });
    // The demo clinic listens on a new port each launch: it is one account whatever its address.
    const existing = this.store.accounts.find((a) =>
      input.demo
        ? a.demo
        : !a.demo && a.baseUrl === baseUrl && a.organizationId === identity.organizationId,
    );
    const id = existing?.id ?? randomBytes(12).toString('base64url');
    const keyStorage = input.sessionOnly ? 'session' : 'keychain';
    try {
      (keyStorage === 'keychain' ? this.keychain : this.session).set(id, apiKey);
    } catch (error) {
      if (error instanceof KeychainUnavailableError) {
        throw new AppError(
          'keychain_unavailable',
          `${error.message} Earmark keeps API keys only in the system keychain. You can keep this key in memory until Earmark quits instead.`,
        );
      }
      throw error;
    }
    if (existing && existing.keyStorage !== keyStorage) this.forgetKey(existing);
    const account: StoredAccount = {
      id,
      baseUrl,
      organizationId: identity.organizationId,
      organizationName: identity.organizationName,
      email: identity.email,
      entitlements: identity.entitlements,
      allowedFeatures: identity.apiKey?.allowedFeatures ?? [],
      keyId: identity.apiKey?.id ?? null,
      keyName: identity.apiKey?.name ?? null,
      keyPrefix: identity.apiKey?.keyPrefix ?? null,
      expiresAt: identity.apiKey?.expiresAt ?? null,
      keyStorage,
      demo: input.demo ?? false,
      // A new key for the same clinic keeps the clinic's choices.
      ...(existing?.retention ? { retention: existing.retention } : {}),
    };
    this.update((state) => ({
      ...state,
      activeId: id,
      accounts: existing
        ? state.accounts.map((a) => (a.id === id ? account : a))
        : [...state.accounts, account],
    }));
    return this.summary(id);
  }

  /** Deletes an account's key; false when the keychain could not be reached to do it. */
  private forgetKey(account: StoredAccount): boolean {
    try {
      this.secrets(account).delete(account.id);
      return true;
    } catch (error) {
      if (error instanceof KeychainUnavailableError) return false;
      throw error;
    }
  }

  /** Deletes the keys removals left in the keychain; those it still cannot stay listed. */
  private deleteLeftKeys(): void {
    const left = this.store.keysToDelete;
    if (left.length === 0) return;
    const still = left.filter((id) => {
      // An account added again since (the same id) owns its key now.
      if (this.store.accounts.some((account) => account.id === id)) return false;
      try {
        this.keychain.delete(id);
        return false;
      } catch {
        return true;
      }
    });
    if (still.length === left.length) return;
    this.store.update(({ keysToDelete: _done, ...state }) =>
      still.length ? { ...state, keysToDelete: still } : state,
    );
  }

  /**
   * Removes an account and deletes its key. A keychain that cannot be reached keeps the key:
   * the removal goes on, the account's id is remembered, and the key is deleted at the next
   * start or account change that finds the keychain (assertKeyDeleted says so).
   */
  remove(id: string): AccountSummary[] {
    const account = this.store.accounts.find((a) => a.id === id);
    if (!account) throw new AppError('not_found', 'That account no longer exists.');
    this.deleteLeftKeys();
    const keyDeleted = this.forgetKey(account);
    this.update((state) => {
      const accounts = state.accounts.filter((a) => a.id !== id);
      return {
        ...state,
        accounts,
        activeId: state.activeId === id ? (accounts[0]?.id ?? null) : state.activeId,
        ...(keyDeleted ? {} : { keysToDelete: [...(state.keysToDelete ?? []), id] }),
      };
    });
    return this.list();
  }

  /** Throws keychain_unavailable, saying what happened, when a removal left this account's key. */
  assertKeyDeleted(id: string): void {
    if (!this.store.keysToDelete.includes(id)) return;
    throw new AppError(
      'keychain_unavailable',
      `The account was removed, with everything this computer kept of it, but the system keychain could not be reached to delete its API key. Earmark deletes it the next time it starts with the keychain available (or delete the entry "${KEYCHAIN_SERVICE}" for ${id} in your keychain app).`,
    );
  }

  /** The demo account's key, where this computer still has one. */
  demoKey(): string | undefined {
    const demo = this.store.accounts.find((account) => account.demo);
    if (!demo) return undefined;
    try {
      return this.secrets(demo).get(demo.id);
    } catch {
      return undefined;
    }
  }

  activate(id: string): AccountSummary[] {
    if (!this.store.accounts.some((a) => a.id === id))
      throw new AppError('not_found', 'That account no longer exists.');
    this.update((state) => ({ ...state, activeId: id }));
    return this.list();
  }

  /** How long an account's data stays on this computer (the defaults until changed). */
  retentionOf(id: string): RetentionSettings {
    return retentionOf(this.store.accounts.find((a) => a.id === id)?.retention);
  }

  setRetention(id: string, settings: RetentionSettings): void {
    if (!this.store.accounts.some((a) => a.id === id))
      throw new AppError('not_found', 'That account no longer exists.');
    this.update((state) => ({
      ...state,
      accounts: state.accounts.map((a) => (a.id === id ? { ...a, retention: settings } : a)),
    }));
  }

  /** Refreshes the remembered identity of an account (organization name, entitlements, expiry). */
  remember(id: string, identity: Identity): void {
    this.update((state) => ({
      ...state,
      accounts: state.accounts.map((a) =>
        a.id === id
          ? {
              ...a,
              organizationName: identity.organizationName,
              entitlements: identity.entitlements,
              expiresAt: identity.apiKey?.expiresAt ?? a.expiresAt,
            }
          : a,
      ),
    }));
  }

  active(): ActiveAccount {
    const account = this.store.accounts.find((a) => a.id === this.store.activeId);
    if (!account)
      throw new AppError(
        'no_account',
        'No clinic is connected yet. Connect to your clinic or open the demo clinic.',
      );
    let apiKey: string | undefined;
    try {
      apiKey = this.secrets(account).get(account.id);
    } catch (error) {
      if (!(error instanceof KeychainUnavailableError)) throw error;
      throw new AppError(
        'keychain_unavailable',
        `${error.message} The key for ${account.organizationName} is kept there: try again once it is available.`,
      );
    }
    if (apiKey === undefined) {
      throw new AppError(
        'key_missing',
        account.keyStorage === 'session'
          ? `The key for ${account.organizationName} was kept only until Earmark quit. Add it again.`
          : `The keychain has no key for ${account.organizationName}. Add it again.`,
      );
    }
    return { account, apiKey };
  }
}

/** What to say when an address answers but has no clinic service API, with the likely fix. */
function notTheServiceMessage(baseUrl: string): string {
  const withApi = /\/api$/.test(baseUrl) ? null : `${baseUrl}/api`;
  return withApi
    ? `There is no clinic service at ${baseUrl}. Service addresses usually end in /api: try ${withApi}.`
    : `There is no clinic service at ${baseUrl}. Check the address in your clinic's portal.`;
}

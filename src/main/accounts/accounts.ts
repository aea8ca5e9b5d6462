import { randomBytes } from 'node:crypto';
import type { Identity } from '../../shared/api';
import type { AccountSummary } from '../../shared/ipc';
import { retentionOf, type RetentionSettings } from '../../shared/retention';
import { isApiError } from '../service-client/errors';
import { AppError } from '../base/errors';
import { sessionAccountKey } from '../at-rest/account-key';
import type { AccountStore, StoredAccount } from './account-store';
import { normalizeBaseUrl } from './base-url';
import {
  KEYCHAIN_SERVICE,
  KeychainUnavailableError,
  cacheKeyEntry,
  type SecretStore,
} from './secret-store';

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
 * there is none, to memory for this session; the account file never holds one. Beside each API
 * key lies the account's cache key, under which everything this computer keeps of the account
 * is sealed (docs/security.md): removing the account destroys it first.
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
    if (existing && existing.keyStorage !== keyStorage) {
      // The account's data stays readable: its cache key moves with the API key.
      this.moveCacheKey(existing, keyStorage === 'keychain' ? this.keychain : this.session);
      this.forgetKey(existing);
    }
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

  /**
   * Deletes an account's keys, its cache key first (what the account's data is sealed with:
   * destroyed before anything else of it); false when the keychain could not be reached.
   */
  private forgetKey(account: StoredAccount): boolean {
    try {
      this.secrets(account).delete(cacheKeyEntry(account.id));
      this.secrets(account).delete(account.id);
      return true;
    } catch (error) {
      if (error instanceof KeychainUnavailableError) return false;
      throw error;
    }
  }

  /** Copies an account's cache key into the store its API key moves to. */
  private moveCacheKey(account: StoredAccount, to: SecretStore): void {
    try {
      const key = this.secrets(account).get(cacheKeyEntry(account.id));
      if (key !== undefined) to.set(cacheKeyEntry(account.id), key);
    } catch {
      // Not readable now (no keychain): the data it sealed is asked about when next opened.
    }
  }

  /** An account's secrets, for one that may have been removed already: both stores. */
  private storesOf(accountId: string): SecretStore[] {
    const account = this.store.accounts.find((a) => a.id === accountId);
    return account ? [this.secrets(account)] : [this.keychain, this.session];
  }

  /**
   * The account's cache key (32 bytes): the random one kept beside its API key in the keychain,
   * or undefined when the keychain holds none. An account kept for this session only (no
   * keychain, by the user's choice) keeps no key anywhere: its key is derived from its API key
   * (which the user gives again at each start) and the account's id, so its data stays readable
   * across restarts once the API key is given again, and nothing of the key is ever on disk.
   * Throws keychain_unavailable when the keychain cannot be reached, and key_missing for a
   * session account whose API key was not given again yet: neither is "no key".
   */
  cacheKey(accountId: string): Buffer | undefined {
    const account = this.store.accounts.find((a) => a.id === accountId);
    if (account?.keyStorage === 'session') {
      // Moved here from the keychain in this run (the account's storage changed).
      const moved = this.session.get(cacheKeyEntry(accountId));
      if (moved !== undefined) return Buffer.from(moved, 'base64');
      const apiKey = this.session.get(accountId);
      if (apiKey === undefined)
        throw new AppError(
          'key_missing',
          `The key for ${account.organizationName} was kept only until Earmark quit. Add it again.`,
        );
      return sessionAccountKey(apiKey, accountId);
    }
    const [secrets] = this.storesOf(accountId);
    const stored = keychainCall(() => secrets!.get(cacheKeyEntry(accountId)));
    return stored === undefined ? undefined : Buffer.from(stored, 'base64');
  }

  /** Keeps `key` as the account's cache key, beside its API key (replacing any). */
  keepCacheKey(accountId: string, key: Buffer): void {
    const [secrets] = this.storesOf(accountId);
    keychainCall(() => secrets!.set(cacheKeyEntry(accountId), key.toString('base64')));
  }

  /**
   * Destroys the account's cache key (crypto-shredding): whatever it sealed — the cache, the
   * audio, on this disk or in what an SSD still holds of deleted files — can never be read
   * again. Call it before deleting the data it sealed. Throws keychain_unavailable when the
   * keychain cannot be reached (then nothing is destroyed).
   */
  shredCacheKey(accountId: string): void {
    for (const secrets of this.storesOf(accountId))
      keychainCall(() => secrets.delete(cacheKeyEntry(accountId)));
  }

  /** Deletes the keys removals left in the keychain; those it still cannot stay listed. */
  private deleteLeftKeys(): void {
    const left = this.store.keysToDelete;
    if (left.length === 0) return;
    const still = left.filter((id) => {
      // An account added again since (the same id) owns its key now.
      if (this.store.accounts.some((account) => account.id === id)) return false;
      try {
        this.keychain.delete(cacheKeyEntry(id));
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
   * Removes an account and deletes its keys, the cache key first (its data, deleted next by
   * AccountScopes.removeEverything, is unreadable from then on). A keychain that cannot be reached keeps
   * the keys: the removal goes on, the account's id is remembered, and the keys are deleted at
   * the next start or account change that finds the keychain (assertKeyDeleted says so).
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
      `The account was removed, with everything this computer kept of it, but the system keychain could not be reached to delete its API key and the key to its data. Earmark deletes them the next time it starts with the keychain available (or delete the entries "${KEYCHAIN_SERVICE}" for ${id} and ${cacheKeyEntry(id)} in your keychain app).`,
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

/** A keychain call whose failure the renderer is told in plain words. */
function keychainCall<T>(call: () => T): T {
  try {
    return call();
  } catch (error) {
    if (!(error instanceof KeychainUnavailableError)) throw error;
    throw new AppError(
      'keychain_unavailable',
      `${error.message} Earmark keeps the key to this clinic's data on this computer there: try again once it is available.`,
    );
  }
}

/** What to say when an address answers but has no clinic service API, with the likely fix. */
function notTheServiceMessage(baseUrl: string): string {
  const withApi = /\/api$/.test(baseUrl) ? null : `${baseUrl}/api`;
  return withApi
    ? `There is no clinic service at ${baseUrl}. Service addresses usually end in /api: try ${withApi}.`
    : `There is no clinic service at ${baseUrl}. Check the address in your clinic's portal.`;
}

import { Entry } from '@napi-rs/keyring';

/** Where API keys live. Only implementations of this ever hold a key. */
export interface SecretStore {
  readonly kind: 'keychain' | 'session';
  get(accountId: string): string | undefined;
  set(accountId: string, secret: string): void;
  delete(accountId: string): void;
}

export class KeychainUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      `The system keychain is not available (${cause instanceof Error ? cause.message : String(cause)}).`,
    );
  }
}

/** The keychain's service name: entries show as "Earmark" in Keychain Access, Credential Manager or Seahorse. */
export const KEYCHAIN_SERVICE = 'Earmark';

/**
 * The entry of an account's cache key (at-rest/account-key.ts), beside its API key's (the
 * account's id): account ids have no dot, so no account's API key can take this name.
 */
export const cacheKeyEntry = (accountId: string): string => `cache-key.${accountId}`;

/**
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, or the
 * Secret Service (GNOME Keyring, KWallet) on Linux.
 */
export class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain';
  /**
   * Keys read or written in this run, kept in this process's memory (where the API client holds
   * them anyway): every request needs its account's key, and each keychain read is a blocking
   * round trip to the keychain's daemon (about a millisecond on D-Bus), which an export or a
   * sync would otherwise make hundreds of times a second. Nothing is written anywhere else.
   */
  private readonly known = new Map<string, string>();

  constructor(private readonly service = KEYCHAIN_SERVICE) {}

  private entry(accountId: string): Entry {
    // On Linux, the Secret Service only: the default store falls back to the kernel's keyutils
    // when D-Bus cannot be reached, which reads as "no key" and deletes nothing, without an error.
    return new Entry(this.service, accountId, { linux: { store: 'secret-service' } });
  }

  get(accountId: string): string | undefined {
    const known = this.known.get(accountId);
    if (known !== undefined) return known;
    let secret: string | undefined;
    try {
      secret = this.entry(accountId).getPassword() ?? undefined;
    } catch (error) {
      throw new KeychainUnavailableError(error);
    }
    if (secret !== undefined) this.known.set(accountId, secret);
    return secret;
  }

  set(accountId: string, secret: string): void {
    try {
      this.entry(accountId).setPassword(secret);
    } catch (error) {
      throw new KeychainUnavailableError(error);
    }
    this.known.set(accountId, secret);
  }

  /** Deletes the key (none there is fine); throws KeychainUnavailableError when it could not. */
  delete(accountId: string): void {
    this.known.delete(accountId);
    try {
      this.entry(accountId).deletePassword();
    } catch (error) {
      throw new KeychainUnavailableError(error);
    }
  }
}

/** Keys kept in memory until the app quits: the user's choice when there is no keychain. */
export class SessionSecretStore implements SecretStore {
  readonly kind = 'session';
  private readonly secrets = new Map<string, string>();

  get(accountId: string): string | undefined {
    return this.secrets.get(accountId);
  }

  set(accountId: string, secret: string): void {
    this.secrets.set(accountId, secret);
  }

  delete(accountId: string): void {
    this.secrets.delete(accountId);
  }
}

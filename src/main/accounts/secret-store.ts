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
 * The OS keychain through @napi-rs/keyring: macOS Keychain, Windows Credential Manager, or the
 * Secret Service (GNOME Keyring, KWallet) on Linux.
 */
export class KeychainSecretStore implements SecretStore {
  readonly kind = 'keychain';

  constructor(private readonly service = KEYCHAIN_SERVICE) {}

  private entry(accountId: string): Entry {
    return new Entry(this.service, accountId);
  }

  get(accountId: string): string | undefined {
    try {
      return this.entry(accountId).getPassword() ?? undefined;
    } catch (error) {
      throw new KeychainUnavailableError(error);
    }
  }

  set(accountId: string, secret: string): void {
    try {
      this.entry(accountId).setPassword(secret);
    } catch (error) {
      throw new KeychainUnavailableError(error);
    }
  }

  delete(accountId: string): void {
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

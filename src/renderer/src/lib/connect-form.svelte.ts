import type { IpcError } from '../../../shared/ipc';
import type { AccountsStore } from './accounts.svelte';

/**
 * The connect form (Welcome, Settings' "Add account", a new key for a refused one): the service
 * address and the key, checked by main with the service; when the keychain cannot take the key,
 * the choice to keep it in memory until Earmark quits.
 */
export class ConnectFormStore {
  baseUrl = $state('');
  apiKey = $state('');
  busy = $state(false);
  error = $state.raw<IpcError | null>(null);

  constructor(
    private readonly accounts: AccountsStore,
    /** The address to start from (a new key for an account whose own was refused). */
    baseUrl = '',
  ) {
    this.baseUrl = baseUrl;
  }

  /** The keychain refused the key: it may be kept in memory instead. */
  get keychainUnavailable(): boolean {
    return this.error?.kind === 'keychain_unavailable';
  }

  /** Connects (the key to the keychain unless `sessionOnly`); true when connected. */
  async connect(sessionOnly = false): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.error = null;
    const result = await this.accounts.add({
      baseUrl: this.baseUrl,
      apiKey: this.apiKey,
      sessionOnly,
    });
    this.busy = false;
    if (!result.ok) {
      this.error = result.error;
      return false;
    }
    this.apiKey = '';
    return true;
  }
}

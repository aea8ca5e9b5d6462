import type { ApiKey } from '../../../shared/api';
import type { EarmarkApi, IpcError } from '../../../shared/ipc';

/** The API keys screen's state and calls: the organization's keys and revoking one. */
export class ApiKeysStore {
  keys = $state.raw<ApiKey[]>([]);
  loaded = $state(false);
  loading = $state(false);
  error = $state.raw<IpcError | null>(null);
  busy = $state(false);
  revokeError = $state.raw<IpcError | null>(null);
  /** What the last revoke did, in words. */
  revoked = $state<string | null>(null);
  /** The key whose revoke waits for the user's confirmation. */
  confirming = $state.raw<ApiKey | null>(null);

  constructor(private readonly api: EarmarkApi) {}

  async load(): Promise<void> {
    this.loading = true;
    this.error = null;
    const result = await this.api.invoke('admin.apiKeys', {});
    this.loading = false;
    this.loaded = true;
    if (result.ok) this.keys = result.value;
    else this.error = result.error;
  }

  /** Asks before revoking the key (the confirmation dialog). */
  askRevoke(key: ApiKey): void {
    this.revokeError = null;
    this.confirming = key;
  }

  cancelRevoke(): void {
    this.confirming = null;
  }

  /** Revokes the key; true when it is revoked (the confirmation goes with it). */
  async revoke(key: ApiKey): Promise<boolean> {
    this.busy = true;
    this.revokeError = null;
    const result = await this.api.invoke('admin.revokeApiKey', { keyId: key.id });
    this.busy = false;
    if (!result.ok) {
      this.revokeError = result.error;
      return false;
    }
    this.keys = result.value;
    this.confirming = null;
    this.revoked = `“${key.name}” (${key.keyPrefix}) is revoked.`;
    return true;
  }
}

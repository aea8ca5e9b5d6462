import type { ConnectionStatus } from '../../../shared/ipc';
import { earmark } from '../bridge';

/** Why an action that needs the service is disabled. */
export const OFFLINE_TIP =
  'Offline: this needs the service. It comes back when the connection does.';

/** The active account's connection, as main last saw it. */
class ConnectionState {
  status = $state<ConnectionStatus>({ state: 'unknown', lastError: null, checkedAt: null });

  constructor() {
    earmark.on('connection.changed', (status) => {
      this.status = status;
    });
    void earmark.invoke('app.connection', {}).then((result) => {
      if (result.ok && this.status.checkedAt === null) this.status = result.value;
    });
  }

  get offline(): boolean {
    return this.status.state === 'offline';
  }

  /** The service answers but refuses the account's key: one state, said the same everywhere. */
  get refused(): boolean {
    return this.status.state === 'refused';
  }

  /** The refusal in two words, for the sidebar ("Key revoked"). */
  get refusedWords(): string {
    return REFUSED_WORDS[this.status.lastError?.kind ?? ''] ?? 'Key refused';
  }
}

const REFUSED_WORDS: Record<string, string> = {
  key_revoked: 'Key revoked',
  key_expired: 'Key expired',
  key_invalid: 'Key not valid',
};

export const connection = new ConnectionState();

import type { ConnectionStatus, EarmarkApi } from '../../../shared/ipc';

/** Why an action that needs the service is disabled. */
export const OFFLINE_TIP =
  'Offline: this needs the service. It comes back when the connection does.';

const REFUSED_WORDS: Record<string, string> = {
  key_revoked: 'Key revoked',
  key_expired: 'Key expired',
  key_invalid: 'Key not valid',
};

/** The active account's connection, as main last saw it (connection.changed). */
export class ConnectionStore {
  status = $state<ConnectionStatus>({ state: 'unknown', lastError: null, checkedAt: null });

  constructor(api: EarmarkApi) {
    api.on('connection.changed', (status) => {
      this.status = status;
    });
    // Asked once; an event that came first is newer than this answer.
    void api.invoke('app.connection', {}).then((result) => {
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

import type { EarmarkApi, SyncStatus } from '../../../shared/ipc';

/** The active account's background sync, as main last reported it (sync.changed). */
export class SyncStore {
  status = $state<SyncStatus>({
    state: 'idle',
    done: 0,
    total: 0,
    lastSyncAt: null,
    message: null,
  });
  private heard = false;

  constructor(api: EarmarkApi) {
    api.on('sync.changed', (status) => {
      this.heard = true;
      this.status = status;
    });
    // Asked once; an event that came first is newer than this answer.
    void api.invoke('sync.status', {}).then((result) => {
      if (result.ok && !this.heard) this.status = result.value;
    });
  }

  get running(): boolean {
    return this.status.state === 'running';
  }
}

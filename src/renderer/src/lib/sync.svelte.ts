import type { SyncStatus } from '../../../shared/ipc';
import { earmark } from '../bridge';

const syncFormat = new Intl.DateTimeFormat(undefined, {
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

/** When a sync completed, as the sidebar and the offline marks say it: "21 Nov, 17:13". */
export const syncTime = (iso: string): string => syncFormat.format(Date.parse(iso));

/** The active account's background sync, as main last reported it (sync.changed). */
class SyncState {
  status = $state<SyncStatus>({
    state: 'idle',
    done: 0,
    total: 0,
    lastSyncAt: null,
    message: null,
  });
  private heard = false;

  constructor() {
    earmark.on('sync.changed', (status) => {
      this.heard = true;
      this.status = status;
    });
    void earmark.invoke('sync.status', {}).then((result) => {
      if (result.ok && !this.heard) this.status = result.value;
    });
  }

  get running(): boolean {
    return this.status.state === 'running';
  }
}

export const sync = new SyncState();

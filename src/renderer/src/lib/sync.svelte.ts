import type { EarmarkApi, SyncStatus } from '../../../shared/ipc';
import { SYNC_IDLE } from '../../../shared/ipc/constants';

/** The active account's background sync, as main last reported it (sync.changed). */
export class SyncStore {
  status = $state<SyncStatus>(SYNC_IDLE);
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

  /** An update's migration of the offline copy is under way: lists and search wait for it. */
  get upgrading(): boolean {
    return this.status.upgrading;
  }

  /** The offline copy was found damaged and started anew: it fills again until a sync completes. */
  get rebuilding(): boolean {
    return this.status.rebuilding;
  }

  /**
   * How far back search reaches, in plain words ("Searchable back to Mar 12, 2026"), while not
   * every record's transcript is on this computer yet; null once it is (or before any sync).
   * `day` writes the day (the screens' format).
   */
  searchReach(day: (iso: string) => string): string | null {
    const { searchComplete, searchableFrom, state } = this.status;
    if (searchComplete) return null;
    if (searchableFrom === null) return state === 'running' ? 'Not searchable yet' : null;
    return `Searchable back to ${day(searchableFrom)}`;
  }
}

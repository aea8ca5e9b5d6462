import type { EarmarkApi, LockedCache } from '../../../shared/ipc';

/**
 * The active account's offline copy when main finds it locked — sealed with a key this
 * computer's keychain no longer gives (cache.locked) — and the user's answer: start a new copy
 * (cache.startFresh), or not now. Nothing is deleted before they agree; "Not now" keeps the app
 * working from the clinic service and leaves a banner that asks again.
 */
export class CacheLockStore {
  locked = $state<LockedCache | null>(null);
  /** The user put the question off (for this lock): the dialog closes, the banner stays. */
  deferred = $state(false);
  busy = $state(false);
  error = $state<string | null>(null);
  private heard = false;

  constructor(private readonly api: EarmarkApi) {
    api.on('cache.locked', (lock) => {
      this.heard = true;
      this.show(lock);
    });
    // Another account active: its copy is asked about.
    api.on('accounts.changed', () => void this.load());
    void this.load();
  }

  /** Whether the dialog asks now. */
  get asking(): boolean {
    return this.locked !== null && !this.deferred;
  }

  async load(): Promise<void> {
    this.heard = false;
    const result = await this.api.invoke('cache.locked', {});
    // An event that came meanwhile is newer than this answer.
    if (result.ok && !this.heard) this.show(result.value);
  }

  /** Not now: the app goes on from the service; the banner can ask again. */
  later(): void {
    this.deferred = true;
  }

  ask(): void {
    this.deferred = false;
  }

  /** The user agreed: the locked copy goes, a new one is made and filled from the service. */
  async startFresh(): Promise<void> {
    const lock = this.locked;
    if (!lock || this.busy) return;
    this.busy = true;
    this.error = null;
    try {
      const result = await this.api.invoke('cache.startFresh', { accountId: lock.accountId });
      if (result.ok) this.show(null);
      else this.error = result.error.message;
    } finally {
      this.busy = false;
    }
  }

  private show(lock: LockedCache | null): void {
    const same =
      lock !== null &&
      this.locked?.accountId === lock.accountId &&
      this.locked.reason === lock.reason;
    if (!same) this.deferred = false;
    this.locked = lock;
    if (!lock) this.error = null;
  }
}

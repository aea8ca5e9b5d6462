import { CLEANUP_IDLE } from '../../../shared/ipc/constants';
import type {
  CleanupStatus,
  CleanupSummary,
  EarmarkApi,
  IpcError,
  RemovedEverything,
  RetentionOverview,
} from '../../../shared/ipc';
import type { RetentionSettings } from '../../../shared/retention';

/** A cleanup with this much to do shows its progress in the sidebar too (a small one is quick). */
const LARGE_CLEANUP = 200;

/**
 * Settings' "Data on this computer" and the cleanup's progress: the active clinic's retention
 * settings, what is kept and what the next cleanup will remove (main's overview, asked again
 * when a setting changes or a cleanup ends), "Remove now", the records kept whatever their age,
 * and "Remove everything of this clinic from this computer". Made once: the sidebar shows a
 * large cleanup's progress from any screen.
 */
export class RetentionStore {
  status = $state<CleanupStatus>(CLEANUP_IDLE);
  overview = $state.raw<RetentionOverview | null>(null);
  loadError = $state.raw<IpcError | null>(null);
  saving = $state(false);
  saveError = $state.raw<IpcError | null>(null);
  /** "Remove now" asked from this window: under way, then how it ended. */
  removing = $state(false);
  removed = $state.raw<CleanupSummary | null>(null);
  removeError = $state.raw<IpcError | null>(null);
  releaseError = $state.raw<IpcError | null>(null);
  removingEverything = $state(false);
  everythingRemoved = $state.raw<RemovedEverything | null>(null);
  everythingError = $state.raw<IpcError | null>(null);
  /** Only the answer to the last overview asked is kept (a setting changed, another account). */
  private asked = 0;

  constructor(private readonly api: EarmarkApi) {
    api.on('retention.changed', (status) => {
      const ended = this.status.state === 'running' && status.state !== 'running';
      this.status = status;
      // What is kept and what the next cleanup removes changed with it.
      if (ended && this.overview) void this.load();
    });
  }

  get running(): boolean {
    return this.status.state === 'running';
  }

  /** A cleanup under way with enough to do to show it beside the sync. */
  get large(): boolean {
    return this.running && this.status.total >= LARGE_CLEANUP;
  }

  /** Another clinic is shown: what was said of the one before goes. */
  reset(): void {
    this.asked++;
    this.overview = null;
    this.removed = null;
    this.everythingRemoved = null;
    for (const error of ['loadError', 'saveError', 'removeError', 'releaseError'] as const)
      this[error] = null;
    this.everythingError = null;
  }

  async load(): Promise<void> {
    const mine = ++this.asked;
    const result = await this.api.invoke('retention.overview', {});
    if (mine !== this.asked) return;
    this.loadError = result.ok ? null : result.error;
    if (result.ok) this.show(result.value);
  }

  /** Changes a setting; the answer previews the next cleanup under the new settings. */
  async change(change: Partial<RetentionSettings>): Promise<void> {
    if (!this.overview) return;
    const mine = ++this.asked;
    this.saving = true;
    this.saveError = null;
    const result = await this.api.invoke('retention.setSettings', {
      ...this.overview.settings,
      ...change,
    });
    this.saving = false;
    if (!result.ok) this.saveError = result.error;
    else if (mine === this.asked) this.show(result.value);
  }

  async removeNow(): Promise<void> {
    this.removing = true;
    this.removed = null;
    this.removeError = null;
    const result = await this.api.invoke('retention.removeNow', {});
    this.removing = false;
    if (result.ok) this.removed = result.value;
    else this.removeError = result.error;
    await this.load();
  }

  /** "Keep on this computer" taken off a record from the list of kept records. */
  async release(labelId: string): Promise<void> {
    this.releaseError = null;
    const result = await this.api.invoke('retention.keep', { labelId, keep: false });
    if (!result.ok) this.releaseError = result.error;
    await this.load();
  }

  async removeEverything(): Promise<boolean> {
    this.removingEverything = true;
    this.everythingError = null;
    this.everythingRemoved = null;
    const result = await this.api.invoke('retention.removeEverything', {});
    this.removingEverything = false;
    if (result.ok) this.everythingRemoved = result.value;
    else this.everythingError = result.error;
    await this.load();
    return result.ok;
  }

  private show(overview: RetentionOverview): void {
    this.overview = overview;
    // An event that came first is newer than a cleanup's state in an answer.
    if (!this.running) this.status = overview.cleanup;
  }
}

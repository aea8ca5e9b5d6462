import type { ChannelInput, EarmarkApi, IpcError, ReviewSettingsView } from '../../../shared/ipc';

/** Settings → Review: when a record counts as reviewed, notifications, clinic sign-off. */
export class ReviewSettingsStore {
  view = $state.raw<ReviewSettingsView | null>(null);
  saving = $state(false);
  error = $state.raw<IpcError | null>(null);

  constructor(private readonly earmark: EarmarkApi) {}

  async load(): Promise<void> {
    const result = await this.earmark.invoke('review.settings', {});
    if (result.ok) this.view = result.value;
    else this.error = result.error;
  }

  /** Saves one change; a refusal (sign-off by a member) says why and leaves the setting as it was. */
  async save(change: ChannelInput<'review.saveSettings'>): Promise<void> {
    this.saving = true;
    const result = await this.earmark.invoke('review.saveSettings', change);
    this.saving = false;
    if (result.ok) {
      this.view = result.value;
      this.error = null;
    } else {
      this.error = result.error;
    }
  }
}

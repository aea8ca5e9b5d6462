import type { EarmarkApi, IpcError } from '../../../shared/ipc';

/**
 * A record's "Keep on this computer": kept whatever the clinic's retention settings say, until
 * unticked. Local to this computer, so it works offline too.
 */
export class KeepRecordStore {
  /** Null until known. */
  kept = $state<boolean | null>(null);
  busy = $state(false);
  error = $state.raw<IpcError | null>(null);
  private labelId: string | null = null;

  constructor(private readonly api: EarmarkApi) {}

  async load(labelId: string): Promise<void> {
    this.labelId = labelId;
    this.kept = null;
    this.error = null;
    const result = await this.api.invoke('retention.isKept', { labelId });
    if (labelId !== this.labelId) return;
    if (result.ok) this.kept = result.value;
    else this.error = result.error;
  }

  async set(keep: boolean): Promise<void> {
    const labelId = this.labelId;
    if (labelId === null) return;
    this.busy = true;
    this.error = null;
    const result = await this.api.invoke('retention.keep', { labelId, keep });
    this.busy = false;
    if (labelId !== this.labelId) return;
    if (result.ok) this.kept = result.value;
    else this.error = result.error;
  }
}

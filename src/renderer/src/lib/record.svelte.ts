import type { Label } from '../../../shared/api';
import type { EarmarkApi, IpcError, ReadSource } from '../../../shared/ipc';
import type { TimedLine } from '../../../shared/record/timed-transcript';

/**
 * The record view's state: the record (label) with its notes, read through main's offline
 * policy (`source` says whether it came from the cache); opening another record while one loads
 * keeps only the last.
 */
export class RecordStore {
  label = $state.raw<Label | null>(null);
  source = $state<ReadSource>('service');
  error = $state.raw<IpcError | null>(null);
  loading = $state(true);
  /**
   * A hub record's transcript line by line at the clock time of its minute (the device's
   * per-minute timeline, diarized text preferred; cached with the timeline for offline); null
   * for other records, or while unknown: those show their transcript without times.
   */
  lines = $state.raw<TimedLine[] | null>(null);
  private labelId: string | null = null;
  private request = 0;

  constructor(private readonly api: EarmarkApi) {}

  async load(labelId: string): Promise<void> {
    if (labelId !== this.labelId) {
      this.label = null;
      this.lines = null;
    }
    this.labelId = labelId;
    const mine = ++this.request;
    this.loading = true;
    this.error = null;
    const result = await this.api.invoke('labels.get', { labelId });
    if (mine !== this.request) return; // another record was opened meanwhile
    this.loading = false;
    if (result.ok) {
      this.label = result.value.value;
      this.source = result.value.source;
      if (this.lines === null) void this.loadLines(labelId, mine);
    } else {
      this.error = result.error;
    }
  }

  /** The hub record's transcript lines with their times (main reads its device's minutes). */
  private async loadLines(labelId: string, request: number): Promise<void> {
    const result = await this.api.invoke('labels.transcriptLines', { labelId });
    if (request !== this.request || !result.ok) return;
    this.lines = result.value;
  }

  /** The service's answer to assign, shown at once (keeping the notes it may omit), then read again. */
  async assigned(updated: Label): Promise<void> {
    this.label = {
      ...updated,
      ownedPatientNotes: updated.ownedPatientNotes ?? this.label?.ownedPatientNotes ?? null,
    };
    if (this.labelId) await this.load(this.labelId);
  }
}

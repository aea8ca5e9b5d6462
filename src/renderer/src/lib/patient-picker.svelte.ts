import type { Label } from '../../../shared/api';
import type { EarmarkApi, IpcError, KnownPatient } from '../../../shared/ipc';

/** Suggestions the patient picker shows at most. */
const PATIENT_SUGGESTIONS = 20;
/** The longest search text sent (the channel's limit). */
const MAX_SEARCH = 200;

/**
 * Assigning a patient to a record: the seed has no patient list, so the picker offers the
 * patients seen on cached recordings (`labels.patients`, never the record's own patient) and
 * takes a patient ID typed in full.
 */
export class PatientPickerStore {
  patients = $state.raw<KnownPatient[]>([]);
  searchError = $state.raw<IpcError | null>(null);
  busy = $state(false);
  error = $state.raw<IpcError | null>(null);
  /** What the last assign did, in words. */
  assigned = $state<string | null>(null);
  private searchRequest = 0;

  constructor(
    private readonly api: EarmarkApi,
    private readonly label: () => Label,
  ) {}

  async search(text: string): Promise<void> {
    const mine = ++this.searchRequest;
    const result = await this.api.invoke('labels.patients', {
      search: text.trim().slice(0, MAX_SEARCH),
      limit: PATIENT_SUGGESTIONS,
    });
    if (mine !== this.searchRequest) return; // a newer search is under way
    this.searchError = result.ok ? null : result.error;
    const current = this.label().patient?.id;
    this.patients = result.ok ? result.value.filter((p) => p.id !== current) : [];
  }

  /** Forgets the outcome of the last assign (the user typed again). */
  reset(): void {
    this.assigned = null;
    this.error = null;
  }

  /** Assigns; the updated record on success, null when the service refused (see `error`). */
  async assign(patientId: string): Promise<Label | null> {
    if (this.busy) return null;
    this.busy = true;
    this.reset();
    const result = await this.api.invoke('labels.assign', { labelId: this.label().id, patientId });
    this.busy = false;
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    this.assigned = `Assigned to ${result.value.patient?.name ?? patientId}.`;
    return result.value;
  }
}

import type { Label, TaskBoard } from '../../../shared/api';
import type {
  GroupFollowUps,
  IpcError,
  IpcResult,
  KnownPatient,
  ReadSource,
} from '../../../shared/ipc';
import type { TimedLine } from '../../../shared/record/timed-transcript';
import { earmark } from '../bridge';
import { followUps } from './follow-ups.svelte';
import { plural, recordLink } from './task-words';

/** Suggestions the patient picker shows at most. */
const PATIENT_SUGGESTIONS = 20;
/** The longest search text sent (the channel's limit). */
const MAX_SEARCH = 200;
/** The longest follow-up title the service takes. */
const MAX_TITLE = 300;
/** The board a record's first follow-ups go to when the organization has none. */
export const DEFAULT_BOARD_NAME = 'Follow-ups';

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

  async load(labelId: string): Promise<void> {
    if (labelId !== this.labelId) {
      this.label = null;
      this.lines = null;
    }
    this.labelId = labelId;
    const mine = ++this.request;
    this.loading = true;
    this.error = null;
    const result = await earmark.invoke('labels.get', { labelId });
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
    const result = await earmark.invoke('labels.transcriptLines', { labelId });
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

/**
 * Assigning a patient to a record: the seed has no patient list, so the picker offers the
 * patients seen on cached recordings (`labels.patients`, never the record's own patient) and
 * takes a patient ID typed in full.
 */
export class PatientPicker {
  patients = $state.raw<KnownPatient[]>([]);
  searchError = $state.raw<IpcError | null>(null);
  busy = $state(false);
  error = $state.raw<IpcError | null>(null);
  /** What the last assign did, in words. */
  assigned = $state<string | null>(null);
  private searchRequest = 0;

  constructor(private readonly label: () => Label) {}

  async search(text: string): Promise<void> {
    const mine = ++this.searchRequest;
    const result = await earmark.invoke('labels.patients', {
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
    const result = await earmark.invoke('labels.assign', { labelId: this.label().id, patientId });
    this.busy = false;
    if (!result.ok) {
      this.error = result.error;
      return null;
    }
    this.assigned = `Assigned to ${result.value.patient?.name ?? patientId}.`;
    return result.value;
  }
}

export interface NewFollowUps {
  /** The board to add them to; null makes the default board first. */
  boardId: string | null;
  titles: string[];
  /** Field values (patient, doctor) for the board's fields of those keys. */
  fields: Record<string, string>;
}

/**
 * A record's follow-ups: the tasks whose groupKey is the record's id, on every board, and adding
 * several at once (bulk) with that groupKey and a link back to the record.
 */
export class RecordFollowUpsStore {
  group = $state.raw<(GroupFollowUps & { source: ReadSource }) | null>(null);
  loadError = $state.raw<IpcError | null>(null);
  saving = $state(false);
  saveError = $state.raw<IpcError | null>(null);
  /** What the last add did, in words. */
  added = $state<string | null>(null);
  private labelId = '';

  async open(labelId: string): Promise<void> {
    this.labelId = labelId;
    this.group = null;
    this.added = null;
    await this.load();
  }

  async load(): Promise<void> {
    const labelId = this.labelId;
    this.loadError = null;
    const result = await earmark.invoke('followUps.group', { groupKey: labelId });
    if (labelId !== this.labelId) return;
    if (result.ok) this.group = { ...result.value.value, source: result.value.source };
    else this.loadError = result.error;
  }

  /** Adds the follow-ups; true when they were added (the group is read again). */
  async add({ boardId, titles, fields }: NewFollowUps): Promise<boolean> {
    const items = titles.map((title) => title.trim()).filter((title) => title !== '');
    if (items.length === 0 || this.saving) return false;
    this.saving = true;
    this.saveError = null;
    const board = await this.boardFor(boardId);
    if (!board.ok) {
      this.saving = false;
      this.saveError = board.error;
      return false;
    }
    const wanted = (key: string) => board.value.fields.some((field) => field.key === key);
    const result = await earmark.invoke('followUps.addTasks', {
      boardId: board.value.id,
      items: items.map((title) => ({
        title: title.slice(0, MAX_TITLE),
        groupKey: this.labelId,
        linkUrl: recordLink(this.labelId),
        fields: Object.fromEntries(
          Object.entries(fields)
            .map(([key, value]) => [key, value.trim()])
            .filter(([key, value]) => value !== '' && wanted(key!)),
        ),
      })),
    });
    this.saving = false;
    if (!result.ok) {
      this.saveError = result.error;
      return false;
    }
    this.added = `Added ${plural(result.value.length, 'follow-up')} to “${board.value.name}”.`;
    await this.load();
    return true;
  }

  private async boardFor(boardId: string | null): Promise<IpcResult<TaskBoard>> {
    const known = this.group?.boards.find((board) => board.id === boardId);
    if (known) return { ok: true, value: known };
    // No board yet: the default template's, named Follow-ups.
    return followUps.createBoard({ name: DEFAULT_BOARD_NAME });
  }
}

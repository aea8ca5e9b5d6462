import type { TaskBoard } from '../../../shared/api';
import type {
  EarmarkApi,
  GroupFollowUps,
  IpcError,
  IpcResult,
  ReadSource,
} from '../../../shared/ipc';
import { format } from './format';
import type { FollowUpsStore } from './follow-ups.svelte';
import { recordLink } from './task-words';

/** The longest follow-up title the service takes. */
const MAX_TITLE = 300;
/** The board a record's first follow-ups go to when the organization has none. */
export const DEFAULT_BOARD_NAME = 'Follow-ups';

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

  constructor(
    private readonly api: EarmarkApi,
    /** The boards' store: a record's first follow-ups make the default board there. */
    private readonly followUps: FollowUpsStore,
  ) {}

  async open(labelId: string): Promise<void> {
    this.labelId = labelId;
    this.group = null;
    this.added = null;
    await this.load();
  }

  async load(): Promise<void> {
    const labelId = this.labelId;
    this.loadError = null;
    const result = await this.api.invoke('followUps.group', { groupKey: labelId });
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
    const result = await this.api.invoke('followUps.addTasks', {
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
    this.added = `Added ${format.plural(result.value.length, 'follow-up')} to “${board.value.name}”.`;
    await this.load();
    return true;
  }

  private async boardFor(boardId: string | null): Promise<IpcResult<TaskBoard>> {
    const known = this.group?.boards.find((board) => board.id === boardId);
    if (known) return { ok: true, value: known };
    // No board yet: the default template's, named Follow-ups.
    return this.followUps.createBoard({ name: DEFAULT_BOARD_NAME });
  }
}

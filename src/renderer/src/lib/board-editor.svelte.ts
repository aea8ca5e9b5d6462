import type { FieldDefinition, TaskBoard, TaskStatus } from '../../../shared/api';
import { DEFAULT_FIELDS, DEFAULT_STATUSES, type FieldType } from '../../../shared/api/values';
import type { BoardConflict, IpcError } from '../../../shared/ipc';
import { format } from './format';
import type { FollowUpsStore } from './follow-ups.svelte';
import { slugFor } from './task-words';

/** A board has at most this many statuses and fields (each). */
export const MAX_ROWS = 50;
/** The longest name of a status, field or option the service takes. */
const MAX_NAME = 80;

export interface StatusRow {
  uid: number;
  /** The id on the board; null for a status added here (made from its name on save). */
  id: string | null;
  name: string;
  category: 'open' | 'done';
}

export interface FieldRow {
  uid: number;
  /** The key on the board; null for a field added here (made from its name on save). */
  key: string | null;
  name: string;
  type: FieldType;
  /** A choice list's options as typed: separated by commas or lines. */
  options: string;
}

/** The 409's lists, or (a service that sends none) what the edit removes, uncounted. */
export type Conflict = BoardConflict & { counted: boolean };

interface Built {
  statuses: TaskStatus[];
  fields: FieldDefinition[];
  /** What is wrong with the rows, in the user's words. */
  problems: string[];
}

const optionsOf = (row: FieldRow) => [
  ...new Set(
    row.options
      .split(/[,\n]/)
      .map((o) => o.trim())
      .filter(Boolean),
  ),
];

/** A removed status that tasks use, in words: "“Waiting” is removed but 3 tasks use it." */
export function removedStatusText(status: { name: string; taskCount: number }, counted: boolean) {
  const n = status.taskCount;
  const users = `${format.plural(n, 'task')} ${n === 1 ? 'uses' : 'use'} it`;
  return `“${status.name}” is removed${counted ? ` but ${users}` : ''}.`;
}

/** Values a change makes invalid, in words. */
export function invalidFieldText(
  field: { name: string; taskCount: number; reason: string },
  counted: boolean,
) {
  const n = field.taskCount;
  const what = counted
    ? `${format.plural(n, 'task')} ${n === 1 ? 'holds a value' : 'hold values'} of “${field.name}” that become invalid`
    : `Values of “${field.name}” may become invalid`;
  return `${what}${field.reason ? ` (${field.reason})` : ''}.`;
}

function moved<T>(list: T[], index: number, by: number): T[] {
  const next = [...list];
  const [item] = next.splice(index, 1);
  next.splice(index + by, 0, item!);
  return next;
}

/**
 * The board editor's draft: its name, statuses and fields edited in place (a new board starts
 * from the default template), checked, then saved whole (seed §4.4 rule 2). A 409 becomes two
 * choices: where the tasks of a removed status go (migrateTo), and whether to drop the values new
 * field definitions make invalid (dropInvalidFieldValues); any edit after it asks again.
 */
export class BoardEditorStore {
  name = $state('');
  statuses = $state<StatusRow[]>([]);
  fields = $state<FieldRow[]>([]);
  saving = $state(false);
  error = $state.raw<IpcError | null>(null);
  problems = $state.raw<string[]>([]);
  conflict = $state.raw<Conflict | null>(null);
  /** Where the tasks of removed statuses go (a status id of the edit). */
  migrateTo = $state('');
  /** The user agrees to drop the values that become invalid. */
  dropValues = $state(false);
  /** The board as it was opened (later changes elsewhere are not merged in); null: a new one. */
  readonly board: TaskBoard | null;
  private nextUid = 1;

  constructor(
    private readonly followUps: FollowUpsStore,
    board: TaskBoard | null,
    /** The name a new board starts with. */
    initialName = 'Follow-ups',
  ) {
    this.board = board;
    const keep = board !== null;
    this.name = board?.name ?? initialName;
    this.statuses = (board?.statuses ?? DEFAULT_STATUSES).map((s) => ({
      uid: this.nextUid++,
      id: keep ? s.id : null,
      name: s.name,
      category: s.category,
    }));
    this.fields = (board?.fields ?? DEFAULT_FIELDS).map((f) => ({
      uid: this.nextUid++,
      key: keep ? f.key : null,
      name: f.name,
      type: f.type,
      options: (f.options ?? []).join(', '),
    }));
  }

  get creating(): boolean {
    return this.board === null;
  }

  /** The arrays to send, ids and keys made for new rows; and what is wrong with them. */
  get built(): Built {
    const problems: string[] = [];
    if (this.name.trim() === '') problems.push('The board needs a name.');
    if (this.statuses.length === 0) problems.push('A board needs at least one status.');
    const ids = this.statuses.flatMap((s) => (s.id ? [s.id] : []));
    const statuses = this.statuses.map((row, i) => {
      if (row.name.trim() === '') problems.push(`Status ${i + 1} needs a name.`);
      const id = row.id ?? slugFor(row.name, ids, 'status');
      ids.push(id);
      return { id, name: row.name.trim().slice(0, MAX_NAME), category: row.category };
    });
    const keys = this.fields.flatMap((f) => (f.key ? [f.key] : []));
    const fields = this.fields.map((row, i) => {
      if (row.name.trim() === '') problems.push(`Field ${i + 1} needs a name.`);
      const key = row.key ?? slugFor(row.name, keys, 'field');
      keys.push(key);
      const options = optionsOf(row);
      if (row.type === 'select' && options.length === 0)
        problems.push(
          `The choice list “${row.name || `field ${i + 1}`}” needs at least one option.`,
        );
      return {
        key,
        name: row.name.trim().slice(0, MAX_NAME),
        type: row.type,
        ...(row.type === 'select' ? { options: options.map((o) => o.slice(0, MAX_NAME)) } : {}),
      };
    });
    return { statuses, fields, problems };
  }

  /** The choices the conflict asks for are made. */
  get conflictReady(): boolean {
    const conflict = this.conflict;
    return (
      conflict !== null &&
      (conflict.statusesInUse.length === 0 || this.migrateTo !== '') &&
      (conflict.invalidFieldValues.length === 0 || this.dropValues)
    );
  }

  /** The tasks of the statuses the edit removes (counted conflicts only). */
  get movedTasks(): number {
    return this.conflict?.statusesInUse.reduce((sum, s) => sum + s.taskCount, 0) ?? 0;
  }

  /** The tasks whose invalid values would be dropped (counted conflicts only). */
  get droppedTasks(): number {
    return this.conflict?.invalidFieldValues.reduce((sum, f) => sum + f.taskCount, 0) ?? 0;
  }

  /** Any edit after a 409 asks again: the choices were about the arrays as they were. */
  edited(): void {
    this.conflict = null;
    this.error = null;
  }

  addStatus(): void {
    if (this.statuses.length >= MAX_ROWS) return;
    this.statuses = [
      ...this.statuses,
      { uid: this.nextUid++, id: null, name: '', category: 'open' },
    ];
    this.edited();
  }

  moveStatus(index: number, by: -1 | 1): void {
    const to = index + by;
    if (to < 0 || to >= this.statuses.length) return;
    this.statuses = moved(this.statuses, index, by);
    this.edited();
  }

  removeStatus(uid: number): void {
    if (this.statuses.length <= 1) return;
    this.statuses = this.statuses.filter((s) => s.uid !== uid);
    this.edited();
  }

  addField(): void {
    if (this.fields.length >= MAX_ROWS) return;
    this.fields = [
      ...this.fields,
      { uid: this.nextUid++, key: null, name: '', type: 'text', options: '' },
    ];
    this.edited();
  }

  removeField(uid: number): void {
    this.fields = this.fields.filter((f) => f.uid !== uid);
    this.edited();
  }

  /**
   * Creates or saves the board (with the conflict's choices, after a 409); true when it is done
   * and the editor can close.
   */
  async save(): Promise<boolean> {
    const built = this.built;
    this.problems = built.problems;
    if (built.problems.length > 0 || this.saving) return false;
    this.saving = true;
    this.error = null;
    if (this.board === null) {
      const result = await this.followUps.createBoard({
        name: this.name.trim(),
        statuses: built.statuses,
        fields: built.fields,
      });
      this.saving = false;
      if (!result.ok) this.error = result.error;
      return result.ok;
    }
    const conflict = this.conflict;
    const result = await this.followUps.saveBoard({
      boardId: this.board.id,
      name: this.name.trim(),
      statuses: built.statuses,
      fields: built.fields,
      ...(conflict && conflict.statusesInUse.length > 0 && this.migrateTo
        ? { migrateTo: this.migrateTo }
        : {}),
      ...(conflict && conflict.invalidFieldValues.length > 0 && this.dropValues
        ? { dropInvalidFieldValues: true }
        : {}),
    });
    this.saving = false;
    if (result.ok) return true;
    this.error = result.error;
    if (result.error.kind === 'conflict') this.conflicted(result.error, built);
    return false;
  }

  /** A 409: its lists (or what the edit removes), and a first choice of where the tasks go. */
  private conflicted(error: IpcError, built: Built): void {
    const conflict = error.boardConflict
      ? { ...error.boardConflict, counted: true }
      : this.removedBy(built);
    this.conflict = conflict;
    if (!built.statuses.some((s) => s.id === this.migrateTo)) {
      // The first status of the same category as the first removed one, else the first.
      const removed = this.board?.statuses.find((s) => s.id === conflict.statusesInUse[0]?.id);
      this.migrateTo =
        (built.statuses.find((s) => s.category === removed?.category) ?? built.statuses[0])?.id ??
        '';
    }
    this.dropValues = false;
  }

  /** What this edit removes or changes, for a 409 that does not say. */
  private removedBy(next: Built): Conflict {
    const before = this.board!;
    const kept = next.statuses.map((s) => s.id);
    const statusesInUse = before.statuses
      .filter((s) => !kept.includes(s.id))
      .map((s) => ({ id: s.id, name: s.name, taskCount: 0 }));
    const invalidFieldValues = before.fields.flatMap((old) => {
      const now = next.fields.find((f) => f.key === old.key);
      const reason = !now
        ? 'the field is removed'
        : now.type !== old.type
          ? 'its type changes'
          : old.type === 'select' && (old.options ?? []).some((o) => !now.options?.includes(o))
            ? 'options are removed'
            : null;
      return reason ? [{ key: old.key, name: old.name, taskCount: 0, reason }] : [];
    });
    return { statusesInUse, invalidFieldValues, counted: false };
  }
}

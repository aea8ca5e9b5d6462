import type { FieldValue, PatchTaskRequest, Task, TaskBoard } from '../../../shared/api';
import type { IpcError } from '../../../shared/ipc';
import type { FollowUpsStore } from './follow-ups.svelte';

/** What the details form edits of a task, as the inputs hold it (text). */
export interface TaskDraft {
  fields: Record<string, string>;
  description: string;
  assignee: string;
  dueDate: string;
}

const valueText = (value: FieldValue | undefined): string =>
  value === undefined ? '' : String(value);

/**
 * A task's details panel: the status (saved as soon as it is chosen), the draft of its fields,
 * description, assignee and due date (saved as a merge patch of what changed), and a new comment.
 * Each of the three says its own outcome; another task shown starts afresh.
 */
export class TaskDetailStore {
  draft = $state<TaskDraft>({ fields: {}, description: '', assignee: '', dueDate: '' });
  savingStatus = $state(false);
  statusError = $state.raw<IpcError | null>(null);
  saving = $state(false);
  saveError = $state.raw<IpcError | null>(null);
  /** The last save went through (said until the draft changes again). */
  saved = $state(false);
  commentBody = $state('');
  commenting = $state(false);
  commentError = $state.raw<IpcError | null>(null);
  private shownId: string | null = null;

  constructor(
    private readonly followUps: FollowUpsStore,
    private readonly board: () => TaskBoard,
    private readonly task: () => Task,
  ) {}

  /** The panel shows `task()`: another task than before gets its own draft, and nothing said. */
  show(): void {
    const task = this.task();
    if (task.id === this.shownId) return;
    this.shownId = task.id;
    this.draft = this.draftOf(task);
    this.saveError = null;
    this.statusError = null;
    this.commentError = null;
    this.saved = false;
    this.commentBody = '';
  }

  private draftOf(task: Task): TaskDraft {
    return {
      fields: Object.fromEntries(
        this.board().fields.map((f) => [f.key, valueText(task.fields[f.key])]),
      ),
      description: task.description,
      assignee: task.assignee,
      dueDate: task.dueDate,
    };
  }

  /** The merge patch of what the user changed; a number field must hold a number. */
  changes(): { patch: PatchTaskRequest; problem?: string } {
    const base = this.draftOf(this.task());
    const draft = this.draft;
    const fields: Record<string, string | number | null> = {};
    for (const field of this.board().fields) {
      const now = (draft.fields[field.key] ?? '').trim();
      if (now === (base.fields[field.key] ?? '')) continue;
      if (now === '') fields[field.key] = null;
      else if (field.type === 'number') {
        const number = Number(now);
        if (!Number.isFinite(number))
          return { patch: {}, problem: `${field.name} must be a number.` };
        fields[field.key] = number;
      } else fields[field.key] = now;
    }
    return {
      patch: {
        ...(Object.keys(fields).length > 0 ? { fields } : {}),
        ...(draft.description !== base.description ? { description: draft.description } : {}),
        ...(draft.assignee.trim() !== base.assignee ? { assignee: draft.assignee.trim() } : {}),
        ...(draft.dueDate.trim() !== base.dueDate ? { dueDate: draft.dueDate.trim() } : {}),
      },
    };
  }

  /** The draft differs from the task. */
  get dirty(): boolean {
    return Object.keys(this.changes().patch).length > 0;
  }

  /** Back to the task as it is. */
  undo(): void {
    this.draft = this.draftOf(this.task());
  }

  /** Values the task holds for fields the board no longer defines. */
  get orphanValues(): [string, FieldValue][] {
    const board = this.board();
    return Object.entries(this.task().fields).filter(
      ([key]) => !board.fields.some((f) => f.key === key),
    );
  }

  /** Moves the task to a status; false when the service refused (the menu goes back). */
  async changeStatus(statusId: string): Promise<boolean> {
    const task = this.task();
    if (statusId === task.statusId) return true;
    this.savingStatus = true;
    this.statusError = null;
    const result = await this.followUps.patchTask(task.id, { statusId });
    this.savingStatus = false;
    if (!result.ok) this.statusError = result.error;
    return result.ok;
  }

  /** Saves what changed in the draft; the draft then follows the service's answer. */
  async save(): Promise<void> {
    const { patch, problem } = this.changes();
    if (problem) {
      this.saveError = { kind: 'invalid_input', message: problem };
      return;
    }
    this.saving = true;
    this.saveError = null;
    this.saved = false;
    const result = await this.followUps.patchTask(this.task().id, patch);
    this.saving = false;
    if (!result.ok) {
      this.saveError = result.error;
      return;
    }
    this.draft = this.draftOf(result.value);
    this.saved = true;
  }

  /** Posts the comment typed; it is emptied once posted. */
  async comment(): Promise<void> {
    const body = this.commentBody.trim();
    if (!body || this.commenting) return;
    this.commenting = true;
    this.commentError = null;
    const result = await this.followUps.comment(this.task().id, body);
    this.commenting = false;
    if (result.ok) this.commentBody = '';
    else this.commentError = result.error;
  }
}

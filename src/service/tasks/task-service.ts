import { randomUUID } from 'node:crypto';
import {
  DEFAULT_FIELDS,
  DEFAULT_STATUSES,
  TASK_LIST_DEFAULT_LIMIT,
  type Comment,
  type CreateBoardRequest,
  type PatchBoardQuery,
  type PatchBoardRequest,
  type PatchTaskRequest,
  type ProblemFieldError,
  type Task,
  type TaskInput,
  type TaskList,
  type TaskListQuery,
} from '../../shared/api';
import type { ServiceDatabase } from '../db/database';
import type { StoredBoard, TaskStore } from '../db/task-store';
import type { EventLog } from '../events/event-log';
import { conflict, invalidFields } from '../http/problems';
import {
  boardShapeErrors,
  completedAtIsoAfter,
  fieldValuesErrors,
  invalidFieldValues,
  invalidKeys,
  isDone,
  statusesInUse,
} from './task-rules';

export interface TaskDeps {
  db: ServiceDatabase;
  store: TaskStore;
  events: EventLog;
  now: () => number;
}

/** Top-level text properties of PATCH task: null or absent leaves them, "" clears (rule 5). */
const TEXT_PROPERTIES = [
  'description',
  'groupKey',
  'assignee',
  'dueDate',
  'linkUrl',
  'completedAt',
] as const;

/** "1 task uses", "2 tasks use". */
const tasksThat = (count: number, verb: string) =>
  count === 1 ? `1 task ${verb}s` : `${count} tasks ${verb}`;

/**
 * Task boards and tasks (seed §4.4, §3.2): every change is one transaction that also logs its
 * events, so a refused request changes nothing and logs nothing.
 */
export class TaskService {
  constructor(private readonly deps: TaskDeps) {}

  createBoard(organizationId: string, request: CreateBoardRequest): StoredBoard {
    // The default template applies to whichever of the two arrays is omitted.
    const statuses = request.statuses ?? [...DEFAULT_STATUSES];
    const fields = request.fields ?? [...DEFAULT_FIELDS];
    const errors = boardShapeErrors(statuses, fields);
    if (errors.length) throw invalidFields(errors);
    return this.deps.store.createBoard(
      { organizationId, name: request.name, statuses, fields },
      this.deps.now(),
    );
  }

  /**
   * Replaces the name, statuses and fields (rule 2). Tasks in a removed status move to migrateTo;
   * values the new fields do not accept are dropped with dropInvalidFieldValues; without the
   * escape hatch either is a 409 naming the statuses or fields and how many tasks (rule 3).
   */
  patchBoard(board: StoredBoard, request: PatchBoardRequest, query: PatchBoardQuery): StoredBoard {
    const next: StoredBoard = {
      ...board,
      name: request.name ?? board.name,
      statuses: request.statuses ?? board.statuses,
      fields: request.fields ?? board.fields,
    };
    const errors = boardShapeErrors(next.statuses, next.fields);
    const { migrateTo, dropInvalidFieldValues = false } = query;
    if (migrateTo !== undefined && !next.statuses.some((s) => s.id === migrateTo)) {
      errors.push({
        location: 'query',
        pointer: '/migrateTo',
        message: `must be the id of a status the board keeps (${next.statuses.map((s) => s.id).join(', ')})`,
      });
    }
    if (errors.length) throw invalidFields(errors);

    const { db, store, events } = this.deps;
    db.transaction(() => {
      const tasks = store.tasksOfBoard(board.id);
      const orphaned = statusesInUse(board.statuses, next.statuses, tasks);
      const invalid = invalidFieldValues(board.fields, next.fields, tasks);
      const blockingStatuses = migrateTo === undefined ? orphaned : [];
      const blockingFields = dropInvalidFieldValues ? [] : invalid;
      if (blockingStatuses.length || blockingFields.length) {
        throw conflict(conflictDetail(blockingStatuses, blockingFields), {
          statusesInUse: blockingStatuses,
          invalidFieldValues: blockingFields,
        });
      }
      store.updateBoard(next);
      const nowMs = this.deps.now();
      const kept = new Set(next.statuses.map((s) => s.id));
      for (const task of tasks) {
        const changed: string[] = [];
        const updated = { ...task, fields: { ...task.fields } };
        if (!kept.has(task.statusId) && migrateTo !== undefined) {
          updated.statusId = migrateTo;
          updated.completedAtIso = completedAtIsoAfter(
            task,
            isDone(board.statuses, task.statusId),
            isDone(next.statuses, migrateTo),
            nowMs,
          );
          changed.push('statusId');
          if (updated.completedAtIso !== task.completedAtIso) changed.push('completedAtIso');
        }
        for (const key of invalidKeys(next.fields, task)) {
          delete updated.fields[key];
          changed.push(`fields.${key}`);
        }
        if (changed.length === 0) continue;
        store.saveTask({ ...updated, updatedAt: new Date(nowMs).toISOString() });
        events.append(board.organizationId, 'task_updated', {
          taskId: task.id,
          boardId: board.id,
          changed,
        });
      }
    })();
    return next;
  }

  /** Creates every item or none (rule 1); errors name the item's index and field. */
  createTasks(board: StoredBoard, items: readonly TaskInput[], pointerOf: (i: number) => string) {
    const errors = items.flatMap((item, i) => this.inputErrors(board, item, pointerOf(i)));
    if (errors.length) {
      throw invalidFields(errors, 'No task was created.');
    }
    const { db, store, events } = this.deps;
    const nowMs = this.deps.now();
    const now = new Date(nowMs).toISOString();
    const tasks = items.map((item): Task => {
      const statusId = item.statusId ?? board.statuses[0]!.id;
      return {
        id: randomUUID(),
        boardId: board.id,
        title: item.title,
        groupKey: item.groupKey ?? '',
        fields: item.fields ?? {},
        linkUrl: item.linkUrl ?? '',
        description: item.description ?? '',
        assignee: item.assignee ?? '',
        dueDate: item.dueDate ?? '',
        completedAt: '',
        completedAtIso: completedAtIsoAfter(
          { completedAtIso: null },
          false,
          isDone(board.statuses, statusId),
          nowMs,
        ),
        statusId,
        createdAt: now,
        updatedAt: now,
      };
    });
    db.transaction(() => {
      for (const task of tasks) {
        store.insertTask(task);
        events.append(board.organizationId, 'task_created', {
          taskId: task.id,
          boardId: board.id,
        });
      }
    })();
    return tasks;
  }

  listTasks(board: StoredBoard, query: TaskListQuery): TaskList {
    // category and statusId combine: a status of that category, and that one.
    let statusIds: string[] | undefined;
    if (query.category !== undefined) {
      statusIds = board.statuses.filter((s) => s.category === query.category).map((s) => s.id);
    }
    if (query.statusId !== undefined) {
      statusIds = (statusIds ?? [query.statusId]).filter((id) => id === query.statusId);
    }
    return this.deps.store.taskPage(board.id, {
      statusIds,
      groupKey: query.groupKey,
      limit: query.limit ?? TASK_LIST_DEFAULT_LIMIT,
      offset: query.offset ?? 0,
    });
  }

  /**
   * fields is a merge patch (rule 4); text properties change only when sent as a string (rule 5);
   * a status change stamps or clears completedAtIso (§3.2). Logs task_updated naming what changed.
   */
  patchTask(board: StoredBoard, task: Task, patch: PatchTaskRequest): Task {
    const errors: ProblemFieldError[] = [];
    if (patch.statusId !== undefined && !board.statuses.some((s) => s.id === patch.statusId)) {
      errors.push(unknownStatus(board, '/statusId'));
    }
    errors.push(...fieldValuesErrors(board.fields, patch.fields ?? {}, '/fields'));
    if (errors.length) throw invalidFields(errors);

    const nowMs = this.deps.now();
    const changed: string[] = [];
    const next: Task = { ...task, fields: { ...task.fields } };
    if (patch.statusId !== undefined && patch.statusId !== task.statusId) {
      next.statusId = patch.statusId;
      next.completedAtIso = completedAtIsoAfter(
        task,
        isDone(board.statuses, task.statusId),
        isDone(board.statuses, patch.statusId),
        nowMs,
      );
      changed.push('statusId');
      if (next.completedAtIso !== task.completedAtIso) changed.push('completedAtIso');
    }
    for (const [key, value] of Object.entries(patch.fields ?? {})) {
      if (value === null) {
        if (!(key in next.fields)) continue;
        delete next.fields[key];
      } else if (next.fields[key] !== value) {
        next.fields[key] = value;
      } else continue;
      changed.push(`fields.${key}`);
    }
    if (patch.title !== undefined && patch.title !== task.title) {
      next.title = patch.title;
      changed.push('title');
    }
    for (const property of TEXT_PROPERTIES) {
      const value = patch[property];
      if (value === undefined || value === null || value === task[property]) continue;
      next[property] = value;
      changed.push(property);
    }
    if (changed.length === 0) return task;

    next.updatedAt = new Date(nowMs).toISOString();
    this.deps.db.transaction(() => {
      this.deps.store.saveTask(next);
      this.deps.events.append(board.organizationId, 'task_updated', {
        taskId: task.id,
        boardId: board.id,
        changed,
      });
    })();
    return next;
  }

  addComment(board: StoredBoard, task: Task, body: string, authorEmail: string): Comment {
    const comment: Comment = {
      id: randomUUID(),
      taskId: task.id,
      body,
      authorEmail,
      createdAt: new Date(this.deps.now()).toISOString(),
    };
    this.deps.db.transaction(() => {
      this.deps.store.insertComment(comment);
      this.deps.events.append(board.organizationId, 'task_comment_added', {
        taskId: task.id,
        boardId: board.id,
        commentId: comment.id,
      });
    })();
    return comment;
  }

  private inputErrors(board: StoredBoard, item: TaskInput, pointer: string): ProblemFieldError[] {
    const errors: ProblemFieldError[] = [];
    if (item.statusId !== undefined && !board.statuses.some((s) => s.id === item.statusId)) {
      errors.push(unknownStatus(board, `${pointer}/statusId`));
    }
    errors.push(...fieldValuesErrors(board.fields, item.fields ?? {}, `${pointer}/fields`));
    return errors;
  }
}

const unknownStatus = (board: StoredBoard, pointer: string): ProblemFieldError => ({
  location: 'body',
  pointer,
  message: `is not a status of the board (${board.statuses.map((s) => s.id).join(', ')})`,
});

function conflictDetail(
  statuses: { id: string; name: string; taskCount: number }[],
  fields: { key: string; name: string; taskCount: number; reason: string }[],
): string {
  const parts = [
    ...statuses.map(
      (s) =>
        `status "${s.name}" (${s.id}) is removed but ${tasksThat(s.taskCount, 'use')} it; send migrateTo=<status id> to move them`,
    ),
    ...fields.map(
      (f) =>
        `${tasksThat(f.taskCount, 'hold')} values of field "${f.name}" (${f.key}) that become invalid (${f.reason}); send dropInvalidFieldValues=true to remove them`,
    ),
  ];
  return `The board was not changed: ${parts.join('; ')}.`;
}

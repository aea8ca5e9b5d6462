import type {
  BulkCreateRequest,
  Comment,
  CreateBoardRequest,
  FieldDefinition,
  FieldType,
  FieldValue,
  PatchBoardQuery,
  PatchBoardRequest,
  PatchTaskRequest,
  StatusCategory,
  Task,
  TaskBoard,
  TaskList,
  TaskListQuery,
  TaskStatus,
} from '../../shared/api';
import { pathOf, type CallOptions, type HttpClient } from './http';
import { offsetPages } from './pagination';
import {
  enumText,
  listOf,
  nullableTimestamp,
  numberOf,
  objectOf,
  optionalObject,
  requiredText,
  text,
  textList,
  timestamp,
  type JsonObject,
} from './read';

const readStatus = (source: JsonObject): TaskStatus => ({
  id: requiredText(source, 'id', 'status'),
  name: text(source, 'name'),
  category: enumText<StatusCategory>(source, 'category', 'status'),
});

const readField = (source: JsonObject): FieldDefinition => ({
  key: requiredText(source, 'key', 'field'),
  name: text(source, 'name'),
  type: enumText<FieldType>(source, 'type', 'field'),
  ...(Array.isArray(source.options) ? { options: textList(source, 'options') } : {}),
});

function readBoard(body: unknown): TaskBoard {
  const source = objectOf(body, 'task board');
  return {
    id: requiredText(source, 'id', 'task board'),
    name: text(source, 'name'),
    statuses: listOf(source.statuses ?? [], 'statuses', readStatus),
    fields: listOf(source.fields ?? [], 'fields', readField),
    createdAt: timestamp(source, 'createdAt'),
  };
}

/** Field values are text or numbers; anything else is not a value a board can hold. */
function readFieldValues(source: JsonObject): Record<string, FieldValue> {
  const fields = optionalObject(source, 'fields') ?? {};
  return Object.fromEntries(
    Object.entries(fields).filter(
      (entry): entry is [string, FieldValue] =>
        typeof entry[1] === 'string' || typeof entry[1] === 'number',
    ),
  );
}

const readTask = (source: JsonObject): Task => ({
  id: requiredText(source, 'id', 'task'),
  boardId: text(source, 'boardId'),
  title: text(source, 'title'),
  groupKey: text(source, 'groupKey'),
  fields: readFieldValues(source),
  linkUrl: text(source, 'linkUrl'),
  description: text(source, 'description'),
  assignee: text(source, 'assignee'),
  dueDate: text(source, 'dueDate'),
  completedAt: text(source, 'completedAt'),
  completedAtIso: nullableTimestamp(source, 'completedAtIso'),
  statusId: text(source, 'statusId'),
  createdAt: timestamp(source, 'createdAt'),
  updatedAt: timestamp(source, 'updatedAt'),
});

const readTaskItems = (body: unknown, what: string): Task[] =>
  listOf(objectOf(body, what).items ?? [], `${what} items`, readTask);

function readTaskList(body: unknown): TaskList {
  const items = readTaskItems(body, 'task list');
  return { items, total: numberOf(objectOf(body, 'task list'), 'total', items.length) };
}

const readComment = (body: unknown): Comment => {
  const source = objectOf(body, 'comment');
  return {
    id: requiredText(source, 'id', 'comment'),
    taskId: text(source, 'taskId'),
    body: text(source, 'body'),
    authorEmail: text(source, 'authorEmail'),
    createdAt: timestamp(source, 'createdAt'),
  };
};

/** Seed §4.4 task boards. */
export const taskBoardEndpoints = (http: HttpClient) => ({
  /** Without statuses and fields the service applies its default template. */
  create: (request: CreateBoardRequest, options: CallOptions = {}): Promise<TaskBoard> =>
    http.data({ method: 'POST', path: '/task-boards', body: request, ...options }, readBoard),
  /**
   * Every board of the organization, oldest first: the reference service's `GET /task-boards`
   * (the seed has no listing; a service without it answers 404, 'not_found').
   */
  list: (options: CallOptions = {}): Promise<TaskBoard[]> =>
    http.data({ method: 'GET', path: '/task-boards', ...options }, (body) =>
      listOf(objectOf(body, 'task boards').items ?? [], 'task boards', readBoard),
    ),
  get: (boardId: string, options: CallOptions = {}): Promise<TaskBoard> =>
    http.data({ method: 'GET', path: pathOf`/task-boards/${boardId}`, ...options }, readBoard),
  /**
   * Sends complete replacement arrays (fetch the board, change them, send them whole). A removed
   * status still in use, or fields that invalidate stored values, are a 409 ('conflict') unless
   * `migrateTo` or `dropInvalidFieldValues` says what to do with them.
   */
  patch: (
    boardId: string,
    patch: PatchBoardRequest,
    query: PatchBoardQuery = {},
    options: CallOptions = {},
  ): Promise<TaskBoard> =>
    http.data(
      { method: 'PATCH', path: pathOf`/task-boards/${boardId}`, query, body: patch, ...options },
      readBoard,
    ),
});
export type TaskBoardsApi = ReturnType<typeof taskBoardEndpoints>;

/** Seed §4.4 tasks and comments. */
export const taskEndpoints = (http: HttpClient) => {
  const list = (boardId: string, query: TaskListQuery = {}, options: CallOptions = {}) =>
    http.data(
      { method: 'GET', path: pathOf`/task-boards/${boardId}/tasks`, query, ...options },
      readTaskList,
    );

  return {
    /** All or nothing: one invalid item and none is created. */
    bulkCreate: (
      boardId: string,
      items: BulkCreateRequest['items'],
      options: CallOptions = {},
    ): Promise<Task[]> =>
      http.data(
        {
          method: 'POST',
          path: pathOf`/task-boards/${boardId}/tasks/bulk`,
          body: { items } satisfies BulkCreateRequest,
          ...options,
        },
        (body) => readTaskItems(body, 'created tasks'),
      ),
    list,
    /** Every page of a board's tasks, from `query.offset`, `query.limit` at a time. */
    pages: (boardId: string, query: TaskListQuery & { limit: number }, options: CallOptions = {}) =>
      offsetPages((offset, limit) => list(boardId, { ...query, offset, limit }, options), query),
    /** `fields` is a merge patch (null deletes a key); null text is unchanged, "" clears it. */
    patch: (taskId: string, patch: PatchTaskRequest, options: CallOptions = {}): Promise<Task> =>
      http.data(
        { method: 'PATCH', path: pathOf`/tasks/${taskId}`, body: patch, ...options },
        (body) => readTask(objectOf(body, 'task')),
      ),
    comment: (taskId: string, body: string, options: CallOptions = {}): Promise<Comment> =>
      http.data(
        { method: 'POST', path: pathOf`/tasks/${taskId}/comments`, body: { body }, ...options },
        readComment,
      ),
  };
};
export type TasksApi = ReturnType<typeof taskEndpoints>;

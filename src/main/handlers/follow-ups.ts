import { join } from 'node:path';
import type { InvalidFieldValues, StatusInUse, Task, TaskBoard } from '../../shared/api';
import type { BoardConflict, BoardsView, IpcError } from '../../shared/ipc';
import { isApiError, type ApiError } from '../api/errors';
import type { CoreContext } from '../context';
import { AppError } from '../errors';
import type { Cache } from '../cache';
import { CommentStore } from '../follow-ups/comment-store';
import type { RpcHandlers } from '../rpc';
import type { ServiceClient } from '../service-client';

type FollowUpChannels =
  | 'followUps.boards'
  | 'followUps.createBoard'
  | 'followUps.board'
  | 'followUps.saveBoard'
  | 'followUps.addTasks'
  | 'followUps.group'
  | 'followUps.patchTask'
  | 'followUps.comment';

/** A board's tasks are read whole, a page of this many at a time, up to MAX_TASKS. */
const PAGE_SIZE = 1000;
export const MAX_TASKS = 5000;

/** No answer from the service: a read may fall back to what main kept of the last one. */
const unreachable = (error: unknown) =>
  isApiError(error) && (error.kind === 'offline' || error.kind === 'timeout');

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const count = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.round(value)) : 0;

/** The 409's lists (the reference service's extension members), read tolerantly. */
export function boardConflictOf(error: ApiError): BoardConflict | undefined {
  const extensions = error.extensions ?? {};
  const list = (value: unknown) => (Array.isArray(value) ? value.filter(isObject) : []);
  const statusesInUse: StatusInUse[] = list(extensions.statusesInUse)
    .filter((item) => typeof item.id === 'string')
    .map((item) => ({
      id: String(item.id),
      name: typeof item.name === 'string' ? item.name : String(item.id),
      taskCount: count(item.taskCount),
    }));
  const invalidFieldValues: InvalidFieldValues[] = list(extensions.invalidFieldValues)
    .filter((item) => typeof item.key === 'string')
    .map((item) => ({
      key: String(item.key),
      name: typeof item.name === 'string' ? item.name : String(item.key),
      taskCount: count(item.taskCount),
      reason: typeof item.reason === 'string' ? item.reason : '',
    }));
  if (statusesInUse.length === 0 && invalidFieldValues.length === 0) return undefined;
  return { statusesInUse, invalidFieldValues };
}

/** PATCH board's 409 with what blocks it, so the renderer can offer the two choices. */
class BoardConflictError extends AppError {
  constructor(
    private readonly cause409: ApiError,
    readonly conflict: BoardConflict,
  ) {
    super(
      'conflict',
      'Tasks still use what this change removes. Choose what happens to them, then save again.',
    );
  }

  override toIpcError(): IpcError {
    return {
      kind: this.kind,
      message: this.message,
      status: 409,
      ...(this.cause409.detail === undefined ? {} : { detail: this.cause409.detail }),
      boardConflict: this.conflict,
    };
  }
}

export function followUpHandlers({
  options,
  accounts,
  withService,
  cache,
}: CoreContext): Pick<RpcHandlers, FollowUpChannels> {
  const comments = new CommentStore(join(options.dataDir, 'follow-ups.json'));
  const accountId = () => accounts.active().account.id;
  const reader = async () => (await cache()).read;
  /** Keeps what the service answered in the account's cache, for reading offline. */
  const remember = async (write: (writer: Cache['write'], fetchedAt: number) => Promise<void>) =>
    write((await cache()).write, Date.now());

  /** Every board: the service's list, or (a service without one) those this app knows, read again. */
  async function listBoards(service: ServiceClient): Promise<TaskBoard[]> {
    try {
      return await service.api.taskBoards.list();
    } catch (error) {
      if (!(isApiError(error) && error.kind === 'not_found')) throw error;
    }
    const known = await (await reader()).taskBoards();
    const boards = await Promise.all(
      known.map((board) =>
        service.api.taskBoards.get(board.id).catch((error: unknown) => {
          if (isApiError(error) && error.kind === 'not_found') return null;
          throw error;
        }),
      ),
    );
    return boards.filter((board): board is TaskBoard => board !== null);
  }

  async function allTasks(
    service: ServiceClient,
    boardId: string,
    query: { groupKey?: string } = {},
  ): Promise<{ tasks: Task[]; total: number }> {
    const byId = new Map<string, Task>();
    let total = 0;
    for await (const page of service.api.tasks.pages(boardId, { ...query, limit: PAGE_SIZE })) {
      total = Math.max(total, page.total ?? 0);
      for (const task of page.items) byId.set(task.id, task); // a task may move between pages
      if (byId.size >= MAX_TASKS) break;
    }
    const tasks = [...byId.values()].slice(0, MAX_TASKS);
    return { tasks, total: Math.max(total, tasks.length) };
  }

  /** The tasks of one visit on a board: filtered by the service when it can, and here anyway. */
  async function groupTasks(service: ServiceClient, boardId: string, groupKey: string) {
    let tasks: Task[];
    try {
      ({ tasks } = await allTasks(service, boardId, { groupKey }));
    } catch (error) {
      // The seed's list filters by category only: a service that refuses the filter is read whole.
      if (!(isApiError(error) && error.kind === 'bad_request')) throw error;
      ({ tasks } = await allTasks(service, boardId));
    }
    return tasks.filter((task) => task.groupKey === groupKey);
  }

  return {
    'followUps.boards': async (): Promise<BoardsView> => {
      try {
        const boards = await withService((service) => listBoards(service));
        const fetchedAt = Date.now();
        await remember((write) => write.storeBoardList(boards, fetchedAt));
        return { boards, source: 'service', fetchedAt: new Date(fetchedAt).toISOString() };
      } catch (error) {
        const read = await reader();
        const listed = await read.boardListRead();
        if (!unreachable(error) || !listed) throw error;
        return { boards: await read.taskBoards(), source: 'cache', fetchedAt: listed.fetchedAt };
      }
    },

    'followUps.createBoard': async (request) => {
      const board = await withService((service) => service.api.taskBoards.create(request));
      await remember((write, at) => write.storeBoards([board], at));
      return board;
    },

    'followUps.board': async ({ boardId }) => {
      const account = accountId();
      const commentsOf = (tasks: Task[]) =>
        comments.comments(
          account,
          tasks.map((task) => task.id),
        );
      try {
        const [board, { tasks, total }] = await withService((service) =>
          Promise.all([service.api.taskBoards.get(boardId), allTasks(service, boardId)]),
        );
        const fetchedAt = Date.now();
        await remember(async (write) => {
          await write.storeBoards([board], fetchedAt);
          await write.storeTasks(tasks, fetchedAt, { boardId, total });
        });
        const at = new Date(fetchedAt).toISOString();
        return {
          board,
          tasks,
          total,
          comments: commentsOf(tasks),
          source: 'service',
          fetchedAt: at,
        };
      } catch (error) {
        const read = await reader();
        const board = (await read.taskBoards()).find((b) => b.id === boardId);
        const kept = await read.boardTasksRead(boardId);
        if (!unreachable(error) || !board || !kept) throw error;
        const { items: tasks } = await read.tasks(boardId, { limit: MAX_TASKS });
        const total = Math.max(kept.total, tasks.length);
        const cached = { tasks, total, comments: commentsOf(tasks), fetchedAt: kept.fetchedAt };
        return { board, ...cached, source: 'cache' };
      }
    },

    'followUps.saveBoard': async ({ boardId, migrateTo, dropInvalidFieldValues, ...patch }) => {
      try {
        const board = await withService((service) =>
          service.api.taskBoards.patch(boardId, patch, {
            ...(migrateTo === undefined ? {} : { migrateTo }),
            ...(dropInvalidFieldValues === undefined ? {} : { dropInvalidFieldValues }),
          }),
        );
        await remember((write, at) => write.storeBoards([board], at));
        return board;
      } catch (error) {
        if (isApiError(error) && error.kind === 'conflict') {
          const conflict = boardConflictOf(error);
          if (conflict) throw new BoardConflictError(error, conflict);
        }
        throw error;
      }
    },

    'followUps.addTasks': async ({ boardId, items }) => {
      const tasks = await withService((service) => service.api.tasks.bulkCreate(boardId, items));
      await remember((write, at) => write.storeTasks(tasks, at));
      return tasks;
    },

    'followUps.group': async ({ groupKey }) => {
      try {
        const { boards, tasks } = await withService(async (service) => {
          const boards = await listBoards(service);
          const perBoard = await Promise.all(
            boards.map((board) => groupTasks(service, board.id, groupKey)),
          );
          return { boards, tasks: perBoard.flat() };
        });
        await remember(async (write, at) => {
          await write.storeBoardList(boards, at);
          await write.storeTasks(tasks, at);
        });
        return { groupKey, boards, tasks, source: 'service' };
      } catch (error) {
        const read = await reader();
        if (!unreachable(error) || !(await read.boardListRead())) throw error;
        const [boards, tasks] = await Promise.all([read.taskBoards(), read.groupTasks(groupKey)]);
        return { groupKey, boards, tasks, source: 'cache' };
      }
    },

    'followUps.patchTask': async ({ taskId, patch }) => {
      const task = await withService((service) => service.api.tasks.patch(taskId, patch));
      await remember((write, at) => write.storeTasks([task], at));
      return task;
    },

    'followUps.comment': async ({ taskId, body }) => {
      const posted = await withService((service) => service.api.tasks.comment(taskId, body));
      const comment = { ...posted, taskId: posted.taskId || taskId };
      comments.add(accountId(), comment);
      return comment;
    },
  };
}

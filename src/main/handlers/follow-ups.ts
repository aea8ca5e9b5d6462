import { join } from 'node:path';
import type { InvalidFieldValues, StatusInUse, Task, TaskBoard } from '../../shared/api';
import type { BoardConflict, BoardsView, IpcError } from '../../shared/ipc';
import { isApiError, type ApiError } from '../api/errors';
import type { CoreContext } from '../context';
import { AppError } from '../errors';
import { FollowUpStore } from '../follow-ups/follow-up-store';
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
}: CoreContext): Pick<RpcHandlers, FollowUpChannels> {
  const store = new FollowUpStore(join(options.dataDir, 'follow-ups.json'));
  const accountId = () => accounts.active().account.id;
  const now = () => new Date().toISOString();

  /** Every board: the service's list, or (a service without one) those this app knows, read again. */
  async function listBoards(service: ServiceClient, account: string): Promise<TaskBoard[]> {
    try {
      return await service.api.taskBoards.list();
    } catch (error) {
      if (!(isApiError(error) && error.kind === 'not_found')) throw error;
    }
    const known = store.boards(account).boards;
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
      const account = accountId();
      try {
        const boards = await withService((service) => listBoards(service, account));
        const fetchedAt = now();
        store.setBoards(account, boards, fetchedAt);
        return { boards, source: 'service', fetchedAt };
      } catch (error) {
        const kept = store.boards(account);
        if (unreachable(error) && kept.fetchedAt !== null) return { ...kept, source: 'cache' };
        throw error;
      }
    },

    'followUps.createBoard': async (request) => {
      const board = await withService((service) => service.api.taskBoards.create(request));
      store.putBoard(accountId(), board);
      return board;
    },

    'followUps.board': async ({ boardId }) => {
      const account = accountId();
      try {
        const [board, { tasks, total }] = await withService((service) =>
          Promise.all([service.api.taskBoards.get(boardId), allTasks(service, boardId)]),
        );
        const fetchedAt = now();
        store.putBoard(account, board);
        store.setTasks(account, boardId, tasks, total, fetchedAt);
        const comments = store.comments(
          account,
          tasks.map((task) => task.id),
        );
        return { board, tasks, total, comments, source: 'service', fetchedAt };
      } catch (error) {
        const board = store.boards(account).boards.find((b) => b.id === boardId);
        const kept = store.tasks(account, boardId);
        if (unreachable(error) && board && kept) {
          const comments = store.comments(
            account,
            kept.tasks.map((task) => task.id),
          );
          return { board, ...kept, comments, source: 'cache' };
        }
        throw error;
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
        store.putBoard(accountId(), board);
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
      store.putTasks(accountId(), tasks);
      return tasks;
    },

    'followUps.group': async ({ groupKey }) => {
      const account = accountId();
      try {
        const { boards, tasks } = await withService(async (service) => {
          const boards = await listBoards(service, account);
          const perBoard = await Promise.all(
            boards.map((board) => groupTasks(service, board.id, groupKey)),
          );
          return { boards, tasks: perBoard.flat() };
        });
        store.putTasks(account, tasks);
        return { groupKey, boards, tasks, source: 'service' };
      } catch (error) {
        const kept = store.boards(account);
        if (unreachable(error) && kept.fetchedAt !== null) {
          return {
            groupKey,
            boards: kept.boards,
            tasks: store.group(account, groupKey),
            source: 'cache',
          };
        }
        throw error;
      }
    },

    'followUps.patchTask': async ({ taskId, patch }) => {
      const task = await withService((service) => service.api.tasks.patch(taskId, patch));
      store.putTasks(accountId(), [task]);
      return task;
    },

    'followUps.comment': async ({ taskId, body }) => {
      const posted = await withService((service) => service.api.tasks.comment(taskId, body));
      const comment = { ...posted, taskId: posted.taskId || taskId };
      store.addComment(accountId(), comment);
      return comment;
    },
  };
}

import type { Comment, Task, TaskBoard } from '../../shared/api';
import type { BoardView, ChannelInput, GroupFollowUps, Sourced } from '../../shared/ipc';
import type { ActiveService } from '../connection/active-service';
import { isApiError } from '../service-client/errors';
import type { Cache } from '../cache';
import type { ServiceClient } from '../service-client/connect';
import { boardConflictOf, BoardConflictError } from './board-conflict';
import type { CommentStore } from './comment-store';

/** A board's tasks are read whole, a page of this many at a time, up to MAX_TASKS. */
const PAGE_SIZE = 1000;
const MAX_TASKS = 5000;

const isNotFound = (error: unknown) => isApiError(error) && error.kind === 'not_found';

/** Every board: the service's list, or (a service without one) those this app knows, read again. */
export async function listBoards(
  service: ServiceClient,
  cache: () => Promise<Cache>,
): Promise<TaskBoard[]> {
  try {
    return await service.api.taskBoards.list();
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  const known = await (await cache()).read.taskBoards();
  const boards = await Promise.all(
    known.map((board) =>
      service.api.taskBoards.get(board.id).catch((error: unknown) => {
        if (isNotFound(error)) return null;
        throw error;
      }),
    ),
  );
  return boards.filter((board): board is TaskBoard => board !== null);
}

/** A board's tasks, read whole a page at a time (up to MAX_TASKS), with the service's total. */
export async function allTasks(
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

export interface FollowUpsDeps {
  service: Pick<ActiveService, 'call' | 'read'>;
  cache(): Promise<Cache>;
  comments: CommentStore;
  accountId(): string;
}

type SaveBoard = ChannelInput<'followUps.saveBoard'>;
type TaskInput = ChannelInput<'followUps.addTasks'>['items'][number];
type TaskPatch = ChannelInput<'followUps.patchTask'>['patch'];

/**
 * Follow-ups: task boards and their tasks, read whole (offline too: what the cache kept of the
 * last whole read), and the comments posted from this app (the service cannot list them).
 */
export class FollowUps {
  constructor(private readonly deps: FollowUpsDeps) {}

  /** Keeps what the service answered in the account's cache (awaited: a read may follow at once). */
  private async keep(write: (writer: Cache['write'], fetchedAt: number) => Promise<void>) {
    await write((await this.deps.cache()).write, Date.now());
  }

  boards(): Promise<Sourced<TaskBoard[]>> {
    return this.deps.service.read({
      fetch: (service) => listBoards(service, this.deps.cache),
      keep: (write, boards, at) => write.storeBoardList(boards, at),
      keepBeforeAnswer: true,
      cached: async (read) => {
        const listed = await read.boardListRead();
        return (
          listed && { value: await read.taskBoards(), fetchedAt: Date.parse(listed.fetchedAt) }
        );
      },
    });
  }

  async createBoard(request: ChannelInput<'followUps.createBoard'>): Promise<TaskBoard> {
    const board = await this.deps.service.call((service) => service.api.taskBoards.create(request));
    await this.keep((write, at) => write.storeBoards([board], at));
    return board;
  }

  /** A board with all its tasks (offline: only if they were once read whole) and this app's comments. */
  async board(boardId: string): Promise<Sourced<BoardView>> {
    const sourced = await this.deps.service.read({
      fetch: async (service) => {
        const [board, { tasks, total }] = await Promise.all([
          service.api.taskBoards.get(boardId),
          allTasks(service, boardId),
        ]);
        return { board, tasks, total };
      },
      keep: async (write, { board, tasks, total }, at) => {
        await write.storeBoards([board], at);
        await write.storeTasks(tasks, at, { boardId, total });
      },
      keepBeforeAnswer: true,
      cached: async (read) => {
        const board = (await read.taskBoards()).find((b) => b.id === boardId);
        const kept = await read.boardTasksRead(boardId);
        if (!board || !kept) return null;
        const { items: tasks } = await read.tasks(boardId, { limit: MAX_TASKS });
        const total = Math.max(kept.total, tasks.length);
        return { value: { board, tasks, total }, fetchedAt: Date.parse(kept.fetchedAt) };
      },
    });
    const { tasks } = sourced.value;
    return { ...sourced, value: { ...sourced.value, comments: await this.commentsOf(tasks) } };
  }

  /** PATCH board with the complete arrays; a 409 with what blocks it becomes a BoardConflictError. */
  async saveBoard({ boardId, migrateTo, dropInvalidFieldValues, ...patch }: SaveBoard) {
    try {
      const board = await this.deps.service.call((service) =>
        service.api.taskBoards.patch(boardId, patch, {
          ...(migrateTo === undefined ? {} : { migrateTo }),
          ...(dropInvalidFieldValues === undefined ? {} : { dropInvalidFieldValues }),
        }),
      );
      await this.keep((write, at) => write.storeBoards([board], at));
      return board;
    } catch (error) {
      if (isApiError(error) && error.kind === 'conflict') {
        const conflict = boardConflictOf(error);
        if (conflict) throw new BoardConflictError(error, conflict);
      }
      throw error;
    }
  }

  async addTasks(boardId: string, items: TaskInput[]): Promise<Task[]> {
    const tasks = await this.deps.service.call((service) =>
      service.api.tasks.bulkCreate(boardId, items),
    );
    await this.keep((write, at) => write.storeTasks(tasks, at));
    return tasks;
  }

  /** The follow-ups of one visit (the tasks of a groupKey) on every board. */
  group(groupKey: string): Promise<Sourced<GroupFollowUps>> {
    return this.deps.service.read({
      fetch: async (service) => {
        const boards = await listBoards(service, this.deps.cache);
        const perBoard = await Promise.all(
          boards.map((board) => this.groupTasks(service, board.id, groupKey)),
        );
        return { groupKey, boards, tasks: perBoard.flat() };
      },
      keep: async (write, { boards, tasks }, at) => {
        await write.storeBoardList(boards, at);
        await write.storeTasks(tasks, at);
      },
      keepBeforeAnswer: true,
      cached: async (read) => {
        const listed = await read.boardListRead();
        if (!listed) return null;
        const [boards, tasks] = await Promise.all([read.taskBoards(), read.groupTasks(groupKey)]);
        return { value: { groupKey, boards, tasks }, fetchedAt: Date.parse(listed.fetchedAt) };
      },
    });
  }

  async patchTask(taskId: string, patch: TaskPatch): Promise<Task> {
    const task = await this.deps.service.call((service) => service.api.tasks.patch(taskId, patch));
    await this.keep((write, at) => write.storeTasks([task], at));
    return task;
  }

  /** Forgets the comments this app kept for a removed account. */
  forgetAccount(accountId: string): Promise<void> {
    return this.deps.comments.forgetAccount(accountId);
  }

  /**
   * Reads the active account's comments once (after its first sync), so that what an earlier
   * version kept of them in the clear is sealed without waiting for a board to be opened.
   */
  async openComments(): Promise<void> {
    await this.deps.comments.comments(this.deps.accountId(), []);
  }

  /** POSTs a comment and keeps it: the service cannot list comments. */
  async comment(taskId: string, body: string): Promise<Comment> {
    // The account it is posted under, even if another becomes active while it is sent.
    const accountId = this.deps.accountId();
    const posted = await this.deps.service.call((service) =>
      service.api.tasks.comment(taskId, body),
    );
    const comment = { ...posted, taskId: posted.taskId || taskId };
    await this.deps.comments.add(accountId, comment);
    return comment;
  }

  private commentsOf(tasks: readonly Task[]): Promise<Record<string, Comment[]>> {
    return this.deps.comments.comments(
      this.deps.accountId(),
      tasks.map((task) => task.id),
    );
  }

  /** The tasks of one visit on a board: filtered by the service when it can, and here anyway. */
  private async groupTasks(service: ServiceClient, boardId: string, groupKey: string) {
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
}

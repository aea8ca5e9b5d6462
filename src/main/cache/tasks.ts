import type { Task, TaskBoard, TaskList, TaskListQuery } from '../../shared/api';
import { all, get, run, upsert, type Db } from './sql';

interface BoardRow {
  id: string;
  name: string;
  statuses: string;
  fields: string;
  created_at: string;
}

interface TaskRow {
  id: string;
  board_id: string;
  title: string;
  group_key: string;
  status_id: string;
  fields: string;
  link_url: string;
  description: string;
  assignee: string;
  due_date: string;
  completed_at: string;
  completed_at_iso: string | null;
  created_at: string;
  updated_at: string;
}

/** Whether a list is the service's whole answer (what it lacks is gone) or a part of it. */
export interface StoreOptions {
  complete: boolean;
}

const toBoard = (row: BoardRow): TaskBoard => ({
  id: row.id,
  name: row.name,
  statuses: JSON.parse(row.statuses) as TaskBoard['statuses'],
  fields: JSON.parse(row.fields) as TaskBoard['fields'],
  createdAt: row.created_at,
});

const toTask = (row: TaskRow): Task => ({
  id: row.id,
  boardId: row.board_id,
  title: row.title,
  groupKey: row.group_key,
  fields: JSON.parse(row.fields) as Task['fields'],
  linkUrl: row.link_url,
  description: row.description,
  assignee: row.assignee,
  dueDate: row.due_date,
  completedAt: row.completed_at,
  completedAtIso: row.completed_at_iso,
  statusId: row.status_id,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const UPSERT_BOARD = upsert('task_boards', 'id', {
  id: '@id',
  name: '@name',
  statuses: '@statuses',
  fields: '@fields',
  created_at: '@createdAt',
  fetched_at: '@fetchedAt',
});

const UPSERT_TASK = upsert('tasks', 'id', {
  id: '@id',
  board_id: '@boardId',
  title: '@title',
  group_key: '@groupKey',
  status_id: '@statusId',
  fields: '@fields',
  link_url: '@linkUrl',
  description: '@description',
  assignee: '@assignee',
  due_date: '@dueDate',
  completed_at: '@completedAt',
  completed_at_iso: '@completedAtIso',
  created_at: '@createdAt',
  updated_at: '@updatedAt',
  fetched_at: '@fetchedAt',
});

export const taskWrites = {
  storeTaskBoards(
    db: Db,
    boards: readonly TaskBoard[],
    fetchedAt: number,
    options: StoreOptions = { complete: true },
  ): void {
    db.transaction(() => {
      for (const board of boards) {
        run(db, UPSERT_BOARD, {
          id: board.id,
          name: board.name,
          statuses: JSON.stringify(board.statuses),
          fields: JSON.stringify(board.fields),
          createdAt: board.createdAt,
          fetchedAt,
        });
      }
      if (options.complete) {
        run(db, 'DELETE FROM task_boards WHERE id NOT IN (SELECT value FROM json_each(?))', [
          JSON.stringify(boards.map((b) => b.id)),
        ]);
      }
    })();
  },

  storeTasks(
    db: Db,
    boardId: string,
    tasks: readonly Task[],
    fetchedAt: number,
    options: StoreOptions = { complete: false },
  ): void {
    db.transaction(() => {
      for (const task of tasks) {
        run(db, UPSERT_TASK, {
          id: task.id,
          boardId: task.boardId,
          title: task.title,
          groupKey: task.groupKey,
          statusId: task.statusId,
          fields: JSON.stringify(task.fields),
          linkUrl: task.linkUrl,
          description: task.description,
          assignee: task.assignee,
          dueDate: task.dueDate,
          completedAt: task.completedAt,
          completedAtIso: task.completedAtIso,
          createdAt: task.createdAt,
          updatedAt: task.updatedAt,
          fetchedAt,
        });
      }
      if (options.complete) {
        run(
          db,
          `DELETE FROM tasks WHERE board_id = @boardId
             AND id NOT IN (SELECT value FROM json_each(@ids))`,
          { boardId, ids: JSON.stringify(tasks.map((t) => t.id)) },
        );
      }
    })();
  },
};

export const taskReads = {
  taskBoards(db: Db): TaskBoard[] {
    return all<BoardRow>(db, 'SELECT * FROM task_boards ORDER BY created_at, id').map(toBoard);
  },

  /** A board's cached tasks, oldest first, filtered as the service filters them. */
  tasks(db: Db, boardId: string, query: TaskListQuery = {}): TaskList {
    const board = get<BoardRow>(db, 'SELECT * FROM task_boards WHERE id = ?', boardId);
    const statuses = board ? toBoard(board).statuses : [];
    const inCategory = query.category
      ? statuses.filter((s) => s.category === query.category).map((s) => s.id)
      : null;
    const filter = `WHERE board_id = @boardId
      AND (@statusId IS NULL OR status_id = @statusId)
      AND (@groupKey IS NULL OR group_key = @groupKey)
      AND (@category IS NULL OR status_id IN (SELECT value FROM json_each(@category)))`;
    const params = {
      boardId,
      statusId: query.statusId ?? null,
      groupKey: query.groupKey ?? null,
      category: inCategory ? JSON.stringify(inCategory) : null,
    };
    const total = get<{ n: number }>(db, `SELECT count(*) AS n FROM tasks ${filter}`, params)!.n;
    const rows = all<TaskRow>(
      db,
      `SELECT * FROM tasks ${filter} ORDER BY created_at, id LIMIT @limit OFFSET @offset`,
      { ...params, limit: query.limit ?? 100, offset: query.offset ?? 0 },
    );
    return { items: rows.map(toTask), total };
  },
};

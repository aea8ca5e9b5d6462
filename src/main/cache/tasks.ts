import type { Task, TaskBoard, TaskList, TaskListQuery } from '../../shared/api';
import { all, get, run, upsert, type Db } from '../../node-common/sql';
import { saveSyncState, syncStateReads } from './sync-state';

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

/** When a list was last read whole from the service: its copy here is complete as of then. */
export interface ReadWhole {
  fetchedAt: string;
  /** The number of items the service reported (a board's tasks may exceed what was read). */
  total: number;
}

/** sync_state streams: the board list's, and each board's tasks'. */
const BOARDS_STREAM = 'task-boards';
const BOARD_TASKS_PREFIX = 'board-tasks:';
const boardTasksStream = (boardId: string) => `${BOARD_TASKS_PREFIX}${boardId}`;

/** Tasks read whole for one board: what the cache lacks of that board is gone from it. */
export interface WholeBoard {
  boardId: string;
  total: number;
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

const readWholeOf = (db: Db, stream: string): ReadWhole | null => {
  const state = syncStateReads.syncState(db, stream);
  return state === null ? null : (state as ReadWhole);
};

const storeBoardRows = (db: Db, boards: readonly TaskBoard[], fetchedAt: number) => {
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
};

export const taskWrites = {
  /** The organization's whole board list: boards it lacks are gone (with their tasks). */
  storeBoardList(db: Db, boards: readonly TaskBoard[], fetchedAt: number): void {
    db.transaction(() => {
      storeBoardRows(db, boards, fetchedAt);
      const ids = JSON.stringify(boards.map((b) => b.id));
      run(db, 'DELETE FROM task_boards WHERE id NOT IN (SELECT value FROM json_each(?))', ids);
      run(
        db,
        `DELETE FROM sync_state WHERE stream LIKE '${BOARD_TASKS_PREFIX}%'
           AND substr(stream, ${BOARD_TASKS_PREFIX.length + 1}) NOT IN (SELECT value FROM json_each(?))`,
        ids,
      );
      const read: ReadWhole = {
        fetchedAt: new Date(fetchedAt).toISOString(),
        total: boards.length,
      };
      saveSyncState(db, { stream: BOARDS_STREAM, value: read, at: fetchedAt });
    })();
  },

  /** Boards created, opened or saved: each replaces its copy or joins the list. */
  storeBoards(db: Db, boards: readonly TaskBoard[], fetchedAt: number): void {
    db.transaction(() => storeBoardRows(db, boards, fetchedAt))();
  },

  /**
   * Tasks as the service answered them. Tasks of boards the cache does not hold are left out
   * (the cache keeps tasks only with their board). With `whole`, they are all of that board's
   * tasks: the ones the cache lacks are gone.
   */
  storeTasks(db: Db, tasks: readonly Task[], fetchedAt: number, whole?: WholeBoard): void {
    db.transaction(() => {
      const known = new Set(
        all<{ id: string }>(db, 'SELECT id FROM task_boards').map((row) => row.id),
      );
      for (const task of tasks) {
        if (!known.has(task.boardId)) continue;
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
      if (whole && known.has(whole.boardId)) {
        run(
          db,
          `DELETE FROM tasks WHERE board_id = @boardId
             AND id NOT IN (SELECT value FROM json_each(@ids))`,
          {
            boardId: whole.boardId,
            ids: JSON.stringify(tasks.filter((t) => t.boardId === whole.boardId).map((t) => t.id)),
          },
        );
        const read: ReadWhole = {
          fetchedAt: new Date(fetchedAt).toISOString(),
          total: whole.total,
        };
        saveSyncState(db, { stream: boardTasksStream(whole.boardId), value: read, at: fetchedAt });
      }
    })();
  },
};

export const taskReads = {
  taskBoards(db: Db): TaskBoard[] {
    return all<BoardRow>(db, 'SELECT * FROM task_boards ORDER BY created_at, id').map(toBoard);
  },

  /** When the board list was last read whole; null if never. */
  boardListRead(db: Db): ReadWhole | null {
    return readWholeOf(db, BOARDS_STREAM);
  },

  /** When a board's tasks were last read whole; null if never. */
  boardTasksRead(db: Db, boardId: string): ReadWhole | null {
    return readWholeOf(db, boardTasksStream(boardId));
  },

  /** The cached tasks of one visit (a groupKey) on every board, oldest first. */
  groupTasks(db: Db, groupKey: string): Task[] {
    return all<TaskRow>(
      db,
      'SELECT * FROM tasks WHERE group_key = ? ORDER BY created_at, id',
      groupKey,
    ).map(toTask);
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

import { randomUUID } from 'node:crypto';
import type {
  Comment,
  FieldDefinition,
  FieldValue,
  Task,
  TaskBoard,
  TaskStatus,
} from '../../shared/api';
import { all, get, run } from '../../node-common/sql';
import type { ServiceDatabase } from './database';

/** A board and the organization it belongs to (not part of the contract's board). */
export type StoredBoard = TaskBoard & { organizationId: string };

interface BoardRow {
  id: string;
  organization_id: string;
  name: string;
  statuses: string;
  fields: string;
  created_ms: number;
}

interface TaskRow {
  id: string;
  board_id: string;
  title: string;
  group_key: string;
  fields: string;
  link_url: string;
  description: string;
  assignee: string;
  due_date: string;
  completed_at: string;
  completed_ms: number | null;
  status_id: string;
  created_ms: number;
  updated_ms: number;
}

export interface TaskPageQuery {
  /** Only tasks in these statuses (the category filter resolves to the board's status ids). */
  statusIds?: readonly string[];
  groupKey?: string;
  limit: number;
  offset: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

const toBoard = (row: BoardRow): StoredBoard => ({
  id: row.id,
  organizationId: row.organization_id,
  name: row.name,
  statuses: JSON.parse(row.statuses) as TaskStatus[],
  fields: JSON.parse(row.fields) as FieldDefinition[],
  createdAt: iso(row.created_ms),
});

const toTask = (row: TaskRow): Task => ({
  id: row.id,
  boardId: row.board_id,
  title: row.title,
  groupKey: row.group_key,
  fields: JSON.parse(row.fields) as Record<string, FieldValue>,
  linkUrl: row.link_url,
  description: row.description,
  assignee: row.assignee,
  dueDate: row.due_date,
  completedAt: row.completed_at,
  completedAtIso: row.completed_ms === null ? null : iso(row.completed_ms),
  statusId: row.status_id,
  createdAt: iso(row.created_ms),
  updatedAt: iso(row.updated_ms),
});

const toRow = (task: Task): TaskRow => ({
  id: task.id,
  board_id: task.boardId,
  title: task.title,
  group_key: task.groupKey,
  fields: JSON.stringify(task.fields),
  link_url: task.linkUrl,
  description: task.description,
  assignee: task.assignee,
  due_date: task.dueDate,
  completed_at: task.completedAt,
  completed_ms: task.completedAtIso === null ? null : Date.parse(task.completedAtIso),
  status_id: task.statusId,
  created_ms: Date.parse(task.createdAt),
  updated_ms: Date.parse(task.updatedAt),
});

const TASK_COLUMNS = [
  'id',
  'board_id',
  'title',
  'group_key',
  'fields',
  'link_url',
  'description',
  'assignee',
  'due_date',
  'completed_at',
  'completed_ms',
  'status_id',
  'created_ms',
  'updated_ms',
] as const;

/** Task boards, their tasks and comments (seed §2.6, §2.7). Times are stored as epoch ms. */
export class TaskStore {
  constructor(private readonly db: ServiceDatabase) {}

  createBoard(input: Omit<StoredBoard, 'id' | 'createdAt'>, createdMs: number): StoredBoard {
    const id = randomUUID();
    run(
      this.db,
      'INSERT INTO task_boards (id, organization_id, name, statuses, fields, created_ms) VALUES (?, ?, ?, ?, ?, ?)',
      [
        id,
        input.organizationId,
        input.name,
        JSON.stringify(input.statuses),
        JSON.stringify(input.fields),
        createdMs,
      ],
    );
    return { ...input, id, createdAt: iso(createdMs) };
  }

  board(id: string): StoredBoard | undefined {
    const row = get<BoardRow>(this.db, 'SELECT * FROM task_boards WHERE id = ?', id);
    return row && toBoard(row);
  }

  boards(organizationId: string): StoredBoard[] {
    const rows = all<BoardRow>(
      this.db,
      'SELECT * FROM task_boards WHERE organization_id = ? ORDER BY created_ms, rowid',
      organizationId,
    );
    return rows.map(toBoard);
  }

  updateBoard(board: StoredBoard): void {
    run(this.db, 'UPDATE task_boards SET name = ?, statuses = ?, fields = ? WHERE id = ?', [
      board.name,
      JSON.stringify(board.statuses),
      JSON.stringify(board.fields),
      board.id,
    ]);
  }

  insertTask(task: Task): void {
    run(
      this.db,
      `INSERT INTO tasks (${TASK_COLUMNS.join(', ')}) VALUES (${TASK_COLUMNS.map((c) => `@${c}`).join(', ')})`,
      toRow(task),
    );
  }

  saveTask(task: Task): void {
    const columns = TASK_COLUMNS.filter(
      (c) => c !== 'id' && c !== 'board_id' && c !== 'created_ms',
    );
    run(
      this.db,
      `UPDATE tasks SET ${columns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id`,
      toRow(task),
    );
  }

  task(id: string): Task | undefined {
    const row = get<TaskRow>(this.db, 'SELECT * FROM tasks WHERE id = ?', id);
    return row && toTask(row);
  }

  /** Every task of the board, oldest first. */
  tasksOfBoard(boardId: string): Task[] {
    const rows = all<TaskRow>(
      this.db,
      'SELECT * FROM tasks WHERE board_id = ? ORDER BY created_ms, rowid',
      boardId,
    );
    return rows.map(toTask);
  }

  /** One page of the board's tasks, oldest first, and the total matching count. */
  taskPage(boardId: string, query: TaskPageQuery): { items: Task[]; total: number } {
    const where = ['board_id = @boardId'];
    const params: Record<string, unknown> = { boardId };
    if (query.statusIds) {
      const names = query.statusIds.map((statusId, i) => {
        params[`status${i}`] = statusId;
        return `@status${i}`;
      });
      where.push(names.length ? `status_id IN (${names.join(', ')})` : '0');
    }
    if (query.groupKey !== undefined) {
      where.push('group_key = @groupKey');
      params.groupKey = query.groupKey;
    }
    const from = `FROM tasks WHERE ${where.join(' AND ')}`;
    const total = get<{ n: number }>(this.db, `SELECT count(*) AS n ${from}`, params)!.n;
    const rows = all<TaskRow>(
      this.db,
      `SELECT * ${from} ORDER BY created_ms, rowid LIMIT @limit OFFSET @offset`,
      { ...params, limit: query.limit, offset: query.offset },
    );
    return { items: rows.map(toTask), total };
  }

  insertComment(comment: Comment): void {
    run(
      this.db,
      'INSERT INTO task_comments (id, task_id, author_email, body, created_ms) VALUES (?, ?, ?, ?, ?)',
      [
        comment.id,
        comment.taskId,
        comment.authorEmail,
        comment.body,
        Date.parse(comment.createdAt),
      ],
    );
  }
}

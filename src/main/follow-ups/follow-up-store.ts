import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Comment, Task, TaskBoard } from '../../shared/api';
import { writeFileAtomic } from '../fs/atomic-write';

/** What main keeps of one account's follow-ups. */
interface AccountFollowUps {
  /** The boards as last listed (or created, or opened), oldest first. */
  boards: TaskBoard[];
  boardsFetchedAt: string | null;
  /** Each board's tasks as last read whole, and when. */
  tasks: Record<string, { tasks: Task[]; total: number; fetchedAt: string }>;
  /** Comments posted from this app, by task id, as the service returned them, oldest first. */
  comments: Record<string, Comment[]>;
}

type FollowUpsFile = { version: 1; accounts: Record<string, AccountFollowUps> };

const empty = (): AccountFollowUps => ({
  boards: [],
  boardsFetchedAt: null,
  tasks: {},
  comments: {},
});

/**
 * The follow-ups of each account as last read from the service, so boards stay readable offline,
 * and the comments posted from this app: the service has no endpoint that lists comments, so
 * what it returned when each was posted is all the app can show. One JSON file (mode 0600),
 * written atomically; nothing is written until there is something to keep.
 */
export class FollowUpStore {
  private state: FollowUpsFile;

  constructor(private readonly path: string) {
    this.state = existsSync(path)
      ? (JSON.parse(readFileSync(path, 'utf8')) as FollowUpsFile)
      : { version: 1, accounts: {} };
  }

  private account(accountId: string): AccountFollowUps {
    return this.state.accounts[accountId] ?? empty();
  }

  private update(accountId: string, change: (account: AccountFollowUps) => void): void {
    const next: FollowUpsFile = structuredClone(this.state);
    const account = next.accounts[accountId] ?? empty();
    change(account);
    next.accounts[accountId] = account;
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, JSON.stringify(next));
    this.state = next;
  }

  boards(accountId: string): { boards: TaskBoard[]; fetchedAt: string | null } {
    const account = this.account(accountId);
    return { boards: account.boards, fetchedAt: account.boardsFetchedAt };
  }

  /** The whole list, as the service just gave it. */
  setBoards(accountId: string, boards: TaskBoard[], fetchedAt: string): void {
    this.update(accountId, (account) => {
      account.boards = boards;
      account.boardsFetchedAt = fetchedAt;
      const ids = new Set(boards.map((board) => board.id));
      for (const id of Object.keys(account.tasks)) if (!ids.has(id)) delete account.tasks[id];
    });
  }

  /** One board, created or read: replaces its copy, or joins the list. */
  putBoard(accountId: string, board: TaskBoard): void {
    this.update(accountId, (account) => {
      const index = account.boards.findIndex((b) => b.id === board.id);
      if (index < 0) account.boards.push(board);
      else account.boards[index] = board;
    });
  }

  tasks(
    accountId: string,
    boardId: string,
  ): { tasks: Task[]; total: number; fetchedAt: string } | undefined {
    return this.account(accountId).tasks[boardId];
  }

  setTasks(accountId: string, boardId: string, tasks: Task[], total: number, at: string): void {
    this.update(accountId, (account) => {
      account.tasks[boardId] = { tasks, total, fetchedAt: at };
    });
  }

  /** Tasks created or changed since the board was read: kept in its copy, if there is one. */
  putTasks(accountId: string, changed: Task[]): void {
    const account = this.account(accountId);
    if (!changed.some((task) => account.tasks[task.boardId])) return;
    this.update(accountId, (next) => {
      for (const task of changed) {
        const entry = next.tasks[task.boardId];
        if (!entry) continue;
        const index = entry.tasks.findIndex((t) => t.id === task.id);
        if (index >= 0) entry.tasks[index] = task;
        else {
          entry.tasks.push(task);
          entry.total += 1;
        }
      }
    });
  }

  /** Every task of `groupKey` in the boards' copies. */
  group(accountId: string, groupKey: string): Task[] {
    return Object.values(this.account(accountId).tasks).flatMap((entry) =>
      entry.tasks.filter((task) => task.groupKey === groupKey),
    );
  }

  comments(accountId: string, taskIds: readonly string[]): Record<string, Comment[]> {
    const all = this.account(accountId).comments;
    return Object.fromEntries(
      taskIds.flatMap((id) => (all[id]?.length ? [[id, all[id]] as const] : [])),
    );
  }

  addComment(accountId: string, comment: Comment): void {
    this.update(accountId, (account) => {
      account.comments[comment.taskId] = [...(account.comments[comment.taskId] ?? []), comment];
    });
  }
}

import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Comment } from '../../shared/api';
import { writeFileAtomicSync } from '../base/atomic-write';

/**
 * Comments as the file keeps them, per account and task. Files written by earlier versions also
 * held the boards and tasks last read (now in the account's cache); those keys are ignored and
 * dropped at the next write.
 */
interface CommentsFile {
  version: 1;
  accounts: Record<string, { comments: Record<string, Comment[]> }>;
}

/**
 * The comments posted from this app, per account, as the service returned them. The service has
 * no endpoint that lists comments, so this is user data the service cannot give back: it lives
 * beside the accounts (one JSON file, mode 0600, written atomically), not in the cache, which is
 * rebuilt from the service when damaged.
 */
export class CommentStore {
  private state: CommentsFile;

  constructor(private readonly path: string) {
    this.state = existsSync(path)
      ? (JSON.parse(readFileSync(path, 'utf8')) as CommentsFile)
      : { version: 1, accounts: {} };
  }

  /** The comments of these tasks that have any, oldest first. */
  comments(accountId: string, taskIds: readonly string[]): Record<string, Comment[]> {
    const all = this.state.accounts[accountId]?.comments ?? {};
    return Object.fromEntries(
      taskIds.flatMap((id) => (all[id]?.length ? [[id, all[id]] as const] : [])),
    );
  }

  add(accountId: string, comment: Comment): void {
    const accounts = this.accountsOnly();
    const comments = { ...(accounts[accountId]?.comments ?? {}) };
    comments[comment.taskId] = [...(comments[comment.taskId] ?? []), comment];
    this.write({ ...accounts, [accountId]: { comments } });
  }

  /** A removed account's comments go: clinical notes do not outlive the account on this computer. */
  forgetAccount(accountId: string): void {
    if (!(accountId in this.state.accounts)) return;
    const { [accountId]: _removed, ...others } = this.accountsOnly();
    this.write(others);
  }

  /** Each account's comments alone (what earlier versions kept beside them is dropped). */
  private accountsOnly(): CommentsFile['accounts'] {
    return Object.fromEntries(
      Object.entries(this.state.accounts).map(([id, { comments }]) => [id, { comments }]),
    );
  }

  private write(accounts: CommentsFile['accounts']): void {
    const next: CommentsFile = { version: 1, accounts };
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomicSync(this.path, JSON.stringify(next));
    this.state = next;
  }
}

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
    const accounts = Object.fromEntries(
      Object.entries(this.state.accounts).map(([id, { comments }]) => [id, { comments }]),
    );
    const comments = { ...(accounts[accountId]?.comments ?? {}) };
    comments[comment.taskId] = [...(comments[comment.taskId] ?? []), comment];
    const next: CommentsFile = { version: 1, accounts: { ...accounts, [accountId]: { comments } } };
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomicSync(this.path, JSON.stringify(next));
    this.state = next;
  }
}

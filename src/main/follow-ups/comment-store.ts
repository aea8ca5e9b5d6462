import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Comment } from '../../shared/api';
import type { AccountKey } from '../at-rest/account-key';
import { removeQuietly, writeFileAtomic } from '../base/atomic-write';

/** One account's comments, by task, oldest first. */
type Comments = Record<string, Comment[]>;

/** What a sealed comments file is sealed for (the AAD: it opens as nothing else). */
export const SEALED_COMMENTS = 'follow-up comments';

/** follow-ups.json, as versions before the comments were sealed kept every account's. */
interface LegacyFile {
  version: 1;
  accounts: Record<string, { comments: Comments }>;
}

export interface CommentStoreOptions {
  /** Where each account's file lives (`<dataDir>/comments`). */
  folder: string;
  /** The file earlier versions kept every account's comments in, in the clear. */
  legacyFile: string;
  /**
   * The account's key, its comments are sealed under (the key its cache is sealed under);
   * undefined where the account's data is kept in the clear (tests, benchmarks). Rejects when the
   * account is locked (its key gone) or no longer the active one.
   */
  keyOf(accountId: string): Promise<AccountKey | undefined>;
  log(message: string): void;
}

/**
 * The comments posted from this app, per account, as the service returned them. The service has
 * no endpoint that lists comments, so this is user data the service cannot give back: it lives
 * beside the cache (which is rebuilt from the service when damaged), one file per account,
 * sealed under the account's key (mode 0600, written whole or not at all) — a comment may name a
 * patient. A file that no longer opens (the account's data was started again with a new key) is
 * deleted: nothing can read it again.
 */
export class CommentStore {
  private readonly loaded = new Map<string, Promise<Comments>>();
  /** Each account's writes, one after another. */
  private readonly writes = new Map<string, Promise<unknown>>();

  constructor(private readonly options: CommentStoreOptions) {}

  /** The comments of these tasks that have any, oldest first. */
  async comments(accountId: string, taskIds: readonly string[]): Promise<Comments> {
    const all = await this.load(accountId);
    return Object.fromEntries(
      taskIds.flatMap((id) => (all[id]?.length ? [[id, all[id]] as const] : [])),
    );
  }

  add(accountId: string, comment: Comment): Promise<void> {
    return this.serially(accountId, async () => {
      const comments = { ...(await this.load(accountId)) };
      comments[comment.taskId] = [...(comments[comment.taskId] ?? []), comment];
      await this.save(accountId, comments);
    });
  }

  /** A removed account's comments go: clinical notes do not outlive the account on this computer. */
  forgetAccount(accountId: string): Promise<void> {
    return this.serially(accountId, async () => {
      this.loaded.delete(accountId);
      await removeQuietly(this.fileOf(accountId));
      await this.dropLegacy(accountId);
    });
  }

  private fileOf(accountId: string): string {
    return join(this.options.folder, accountId.replace(/[^A-Za-z0-9_-]/g, '_'));
  }

  private serially(accountId: string, work: () => Promise<void>): Promise<void> {
    const done = (this.writes.get(accountId) ?? Promise.resolve()).then(work, work);
    this.writes.set(
      accountId,
      done.catch(() => undefined),
    );
    return done;
  }

  private load(accountId: string): Promise<Comments> {
    let loading = this.loaded.get(accountId);
    if (!loading) {
      loading = this.read(accountId);
      this.loaded.set(accountId, loading);
      // A failed read (locked, another account active) is tried again by the next caller.
      loading.catch(() => this.loaded.delete(accountId));
    }
    return loading;
  }

  /** The account's comments from its file; an earlier version's are sealed here first. */
  private async read(accountId: string): Promise<Comments> {
    const key = await this.options.keyOf(accountId);
    const file = this.fileOf(accountId);
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (bytes === null) {
      const legacy = this.legacy()?.accounts[accountId]?.comments;
      if (!legacy) return {};
      await this.write(accountId, legacy, key);
      await this.dropLegacy(accountId);
      return legacy;
    }
    if (!key) return JSON.parse(bytes.toString('utf8')) as Comments;
    try {
      return JSON.parse(key.unseal(SEALED_COMMENTS, bytes).toString('utf8')) as Comments;
    } catch {
      // Written in the clear (an earlier run kept the account's data so): sealed now.
      const clear = parseClear(bytes);
      if (clear) {
        await this.write(accountId, clear, key);
        return clear;
      }
      this.options.log('comments sealed under another key (the data was started again): deleted');
      await removeQuietly(file);
      return {};
    }
  }

  private async save(accountId: string, comments: Comments): Promise<void> {
    await this.write(accountId, comments, await this.options.keyOf(accountId));
    this.loaded.set(accountId, Promise.resolve(comments));
  }

  private async write(accountId: string, comments: Comments, key: AccountKey | undefined) {
    const text = Buffer.from(JSON.stringify(comments), 'utf8');
    await mkdir(this.options.folder, { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.fileOf(accountId), key ? key.seal(SEALED_COMMENTS, text) : text);
  }

  private legacy(): LegacyFile | null {
    const { legacyFile } = this.options;
    return existsSync(legacyFile)
      ? (JSON.parse(readFileSync(legacyFile, 'utf8')) as LegacyFile)
      : null;
  }

  /** The account leaves the earlier versions' file; the file goes with its last account. */
  private async dropLegacy(accountId: string): Promise<void> {
    const legacy = this.legacy();
    if (!legacy || !(accountId in legacy.accounts)) return;
    const { [accountId]: _dropped, ...others } = legacy.accounts;
    if (Object.keys(others).length === 0) return removeQuietly(this.options.legacyFile);
    await writeFileAtomic(
      this.options.legacyFile,
      JSON.stringify({ version: 1, accounts: others } satisfies LegacyFile),
    );
  }
}

/** An account's comments as an earlier run wrote them in the clear; null if they are not. */
function parseClear(bytes: Buffer): Comments | null {
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Comments) : null;
  } catch {
    return null;
  }
}

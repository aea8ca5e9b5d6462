import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventName, IpcEvents, SyncStatus } from '../shared/ipc';
import type { AccountService } from './accounts/accounts';
import type { ActiveService } from './connection/active-service';
import { AudioCache } from './audio/audio-cache';
import { cacheFileOf, deleteCacheFiles, openCache, type Cache } from './cache';
import { Closables } from './base/closables';
import type { Conversations } from './conversations/conversations';
import { ConversationFollower } from './conversations/follow';
import { AppError } from './base/errors';
import { SYNC_IDLE, SYNC_INTERVAL_MS, SyncRunner, type SyncResult } from './sync';

/**
 * What lives as long as an account is open — the active one: its cache, its audio cache, its
 * background sync and the conversations it follows. A scope opens them (the caches on first use)
 * and closes them together, in order: the follows and the sync first (they use the caches), then
 * the audio cache, then the cache. When another account becomes active its scope closes and the
 * new account's opens; removing an account closes its scope, then deletes its data.
 */

export interface AccountScopeDeps {
  dataDir: string;
  /** The SQLite addon for this runtime, when not the default (Electron). */
  sqliteBinding?: string;
  /** The active account's service: the sync's client, the follows' calls. */
  service: Pick<ActiveService, 'client' | 'call'>;
  /** The reads a follow starts from (through the offline policy). */
  conversations: Pick<Conversations, 'get'>;
  emit<E extends EventName>(event: E, payload: IpcEvents[E]): void;
  /** How a background sync ended: the connection status follows it. */
  syncEnded(result: SyncResult): void;
  /** The account's service first answered: partly cached audio goes on filling. */
  resumeAudio(): Promise<void>;
  log(message: string): void;
}

/** A caller that held on to a closed scope: nothing opens behind its close. */
const closedScope = () => new AppError('cancelled', 'Another clinic account became active.');

/** An account's audio cache folder under the app's data folder. */
const audioFolderOf = (dataDir: string, accountId: string) => join(dataDir, 'audio', accountId);

/** A resource opened on first use; a failed open is tried again by the next caller. */
class OnFirstUse<T> {
  private value: Promise<T> | undefined;

  constructor(private readonly open: () => Promise<T>) {}

  get(): Promise<T> {
    if (!this.value) {
      const opening = this.open();
      opening.catch(() => {
        if (this.value === opening) this.value = undefined;
      });
      this.value = opening;
    }
    return this.value;
  }

  /** What was opened, if anything. */
  async opened(): Promise<T | undefined> {
    return this.value?.catch(() => undefined);
  }
}

/** One open account's cache, audio cache, sync and follows. */
export class AccountScope {
  readonly follower: ConversationFollower;
  private readonly runner: SyncRunner;
  private readonly closables = new Closables();
  private readonly cacheOnUse: OnFirstUse<Cache>;
  private readonly audioOnUse: OnFirstUse<AudioCache>;
  private closed = false;
  private answered = false;

  constructor(
    readonly accountId: string,
    private readonly organizationId: string,
    private readonly deps: AccountScopeDeps,
    /** Settles once an earlier scope of the same account has closed its files. */
    ready: Promise<void>,
  ) {
    // The files open once an earlier scope of the account has closed them.
    this.cacheOnUse = new OnFirstUse(async () => {
      await ready;
      return openCache({
        file: cacheFileOf(deps.dataDir, accountId),
        nativeBinding: deps.sqliteBinding,
      });
    });
    this.audioOnUse = new OnFirstUse(async () => {
      await ready;
      return AudioCache.open({ folder: audioFolderOf(deps.dataDir, accountId) });
    });
    // Closed in the reverse order of these lines: what uses the caches before the caches.
    this.closables.add('the cache', async () => (await this.cacheOnUse.opened())?.close());
    this.closables.add('the audio cache', async () => (await this.audioOnUse.opened())?.close());
    this.runner = new SyncRunner((status) => deps.emit('sync.changed', status), deps.syncEnded);
    this.closables.add('the sync', () => this.runner.stop());
    this.follower = new ConversationFollower({
      service: deps.service,
      conversations: deps.conversations,
      cache: () => this.cache(),
      changed: (change) => deps.emit('conversation.changed', change),
      log: deps.log,
    });
    this.closables.add('the follows', () => this.follower.stopAll());
  }

  /** The account's cache, opened on first use. */
  cache(): Promise<Cache> {
    return this.closed ? Promise.reject(closedScope()) : this.cacheOnUse.get();
  }

  /** The account's audio cache, opened on first use. */
  audioCache(): Promise<AudioCache> {
    return this.closed ? Promise.reject(closedScope()) : this.audioOnUse.get();
  }

  get syncStatus(): SyncStatus {
    return this.runner.current;
  }

  /** Starts a background sync unless one runs; answers the status. */
  startSync(): SyncStatus {
    void (async () => {
      const cache = await this.cache();
      const client = await this.deps.service.client();
      // Closed while these were opened (another account is active): the client may be its.
      if (this.closed) return;
      this.runner.start(cache, client, this.organizationId);
    })().catch((error: unknown) =>
      this.deps.log(
        `sync did not start: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
    return this.runner.current;
  }

  /**
   * The account's service answered a call: the first answer starts the background sync and goes
   * on filling the recordings a crash or a restart left partly cached.
   */
  serviceAnswered(): void {
    if (this.answered || this.closed) return;
    this.answered = true;
    this.startSync();
    void this.deps.resumeAudio().catch(() => undefined);
  }

  /** Stops the follows and the sync, then closes the audio cache and the cache. */
  close(): Promise<void> {
    this.closed = true;
    return this.closables.close();
  }
}

/** Something outside the scope that keeps data of an account, deleted when it is removed. */
interface AccountDataHolder {
  forgetAccount(accountId: string): Promise<void>;
}

export interface AccountScopesDeps extends AccountScopeDeps {
  accounts: Pick<AccountService, 'active' | 'list' | 'onActiveChange'>;
  /**
   * What else removing an account deletes, in this order, after its scope's own files (its
   * cache, its audio): the areas that keep an account's data (its unfinished exports, …).
   */
  holders: readonly AccountDataHolder[];
}

/** The scope of the active account, the switch from one to the next, and removal. */
export class AccountScopes {
  private current: AccountScope | undefined;
  /** Each account's last closing scope: a new scope of the account opens its files after it. */
  private readonly closing = new Map<string, Promise<void>>();
  private readonly timer: NodeJS.Timeout;
  private readonly unsubscribe: () => void;
  private closed = false;

  constructor(private readonly deps: AccountScopesDeps) {
    this.unsubscribe = deps.accounts.onActiveChange((activeId) => {
      if (this.current && this.current.accountId !== activeId) this.retire();
    });
    // While the user only reads, the background sync is the app's one contact with the service:
    // what it finds is the connection's state too (an offline app comes back when one completes).
    this.timer = setInterval(() => {
      if (deps.accounts.list().some((account) => account.active && account.hasKey)) {
        this.active().startSync();
      }
    }, SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** The active account's scope, opened on first use (no account: no_account, as accounts.active). */
  active(): AccountScope {
    // A call still on its way while the app quits: nothing opens behind the close.
    if (this.closed) throw new AppError('cancelled', 'Earmark is closing.');
    const { account } = this.deps.accounts.active();
    if (this.current?.accountId !== account.id) {
      this.retire();
      this.current = new AccountScope(
        account.id,
        account.organizationId,
        this.deps,
        this.closing.get(account.id) ?? Promise.resolve(),
      );
    }
    return this.current;
  }

  /** The sync status of the active account's scope; idle before it opens or with no account. */
  syncStatus(): SyncStatus {
    return this.current?.syncStatus ?? SYNC_IDLE;
  }

  /**
   * Deletes what this computer holds of a removed account: its scope is closed first, then its
   * cache (with the WAL) and its audio are deleted, then what each holder keeps of it. Clinical
   * data does not outlive the account on this computer.
   */
  async forget(accountId: string): Promise<void> {
    if (this.current?.accountId === accountId) this.retire();
    await this.closing.get(accountId);
    await deleteCacheFiles(cacheFileOf(this.deps.dataDir, accountId));
    await rm(audioFolderOf(this.deps.dataDir, accountId), { recursive: true, force: true });
    for (const holder of this.deps.holders) await holder.forgetAccount(accountId);
  }

  /** Closes the open scope (the app is quitting) and waits for every scope still closing. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.unsubscribe();
    this.retire();
    await Promise.all(this.closing.values());
  }

  /** The open scope closes; its account's next scope waits for that. */
  private retire(): void {
    const scope = this.current;
    if (!scope) return;
    this.current = undefined;
    // At once (its sync must not start now). The account's next scope opens its files only
    // after this close and any earlier one.
    const closing = scope
      .close()
      .catch((error: unknown) =>
        this.deps.log(
          `the account's data did not close: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    const closed = Promise.all([this.closing.get(scope.accountId), closing]).then(() => undefined);
    this.closing.set(scope.accountId, closed);
    void closed.then(() => {
      if (this.closing.get(scope.accountId) === closed) this.closing.delete(scope.accountId);
    });
  }
}

import { existsSync } from 'node:fs';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  EventName,
  IpcEvents,
  LockedCache,
  LockReason,
  RemovedEverything,
  SyncStatus,
} from '../shared/ipc';
import { SYNC_IDLE } from '../shared/ipc/constants';
import type { RetentionSettings } from '../shared/retention';
import type { AccountService } from './accounts/accounts';
import type { StoredAccount } from './accounts/account-store';
import type { AccountKey } from './at-rest/account-key';
import { CacheLockedError, unlockAccount } from './at-rest/unlock';
import type { ActiveService } from './connection/active-service';
import { AudioCache } from './audio/audio-cache';
import { startDigestThread } from './audio/digest';
import {
  cacheFileOf,
  cacheFilesOf,
  deleteCacheFiles,
  isPlainSqlite,
  keyCheckFileOf,
  openCache,
  type Cache,
} from './cache';
import { Closables } from './base/closables';
import type { Conversations } from './conversations/conversations';
import { ConversationFollower } from './conversations/follow';
import { AppError, messageOf } from './base/errors';
import { CacheChecker } from './retention/cache-checker';
import { CleanupRunner, type CleanupSchedule } from './retention/runner';
import { SYNC_INTERVAL_MS, SyncRunner, type SyncResult } from './sync';

/**
 * What lives as long as an account is open — the active one: its key, its cache, its audio
 * cache, its background sync, its cleanup and the conversations it follows. A scope opens them
 * (the key and the audio cache in the background as it opens, the cache on first use)
 * and closes them together, in order: the follows, the cleanup and the sync first (they use the
 * caches), then the audio cache, then the cache. When another account becomes active its scope
 * closes and the new account's opens; removing an account, or everything of it, destroys its
 * key, closes its scope, then deletes its data.
 */

export interface AccountScopeDeps {
  dataDir: string;
  /**
   * 'sealed' (the app, always): the account's cache and audio encrypted under its key. 'plain':
   * in the clear, as before issue 30 — only the benchmarks' baseline and the test that shows
   * what the clear layout gives away; no shell sets it.
   */
  atRest: 'sealed' | 'plain';
  /** The account's cache key, beside its API key. */
  accounts: Pick<AccountService, 'cacheKey' | 'keepCacheKey'>;
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
  /** How long the account keeps its data (its sync and its cleanups follow it). */
  retention(accountId: string): RetentionSettings;
  /** The records the account's running exports read (a cleanup leaves them). */
  recordsInUse(accountId: string): string[];
  /**
   * When cleanups run by themselves (the shells give the app's); without one, when asked. With
   * one, the cache's weekly check looks every minute too (retention/cache-checker.ts).
   */
  cleanupSchedule?: CleanupSchedule;
  /** How long since the user last asked anything of the app: the cache's check waits for it. */
  idleMs(): number;
  log(message: string): void;
}

/** A caller that held on to a closed scope: nothing opens behind its close. */
const closedScope = () => new AppError('cancelled', 'Another clinic account became active.');

/** How long opening the service's connections at launch may take before it gives up. */
const WARM_UP_TIMEOUT_MS = 10_000;

/** An account's audio cache folder under the app's data folder. */
const audioFolderOf = (dataDir: string, accountId: string) => join(dataDir, 'audio', accountId);

/**
 * Deletes what this computer keeps of an account: its cache (with its key's check), its audio;
 * answers what it deleted.
 */
async function deleteAccountData(dataDir: string, accountId: string): Promise<RemovedEverything> {
  const cacheFile = cacheFileOf(dataDir, accountId);
  const audioFolder = audioFolderOf(dataDir, accountId);
  const cacheFiles = await sizesOf(cacheFilesOf(cacheFile));
  const audioFiles = await sizesOf(await filesUnder(audioFolder));
  await deleteCacheFiles(cacheFile);
  await rm(audioFolder, { recursive: true, force: true });
  return {
    files: cacheFiles.length + audioFiles.length,
    textBytes: sum(cacheFiles),
    audioBytes: sum(audioFiles),
  };
}

/** Whether data sealed with the account's key lies on disk: an encrypted cache, sealed audio. */
function holdsSealedData(dataDir: string, accountId: string): boolean {
  const cache = cacheFileOf(dataDir, accountId);
  return (
    (existsSync(cache) && !isPlainSqlite(cache)) ||
    AudioCache.holdsSealedData(audioFolderOf(dataDir, accountId))
  );
}

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

  /**
   * Closes what was opened, then opens it anew; a use meanwhile waits for the new one (never
   * two open at once).
   */
  reopen(close: (value: T) => Promise<void>): Promise<T> {
    const previous = this.opened();
    this.value = undefined;
    const reopening = previous.then(async (value) => {
      if (value !== undefined) await close(value);
      return this.open();
    });
    reopening.catch(() => {
      if (this.value === reopening) this.value = undefined;
    });
    this.value = reopening;
    return reopening;
  }
}

/** One open account's key, cache, audio cache, sync and follows. */
export class AccountScope {
  readonly accountId: string;
  readonly follower: ConversationFollower;
  readonly cleanup: CleanupRunner;
  readonly checker: CacheChecker;
  private readonly runner: SyncRunner;
  private readonly closables = new Closables();
  private readonly keyOnUse: OnFirstUse<AccountKey>;
  private readonly cacheOnUse: OnFirstUse<Cache>;
  private readonly audioOnUse: OnFirstUse<AudioCache>;
  private closed = false;
  private answered = false;
  /**
   * What the first play of a recording needs, opened as the scope opens (settles when done, or
   * when it could not be: the first use tries again and says why).
   */
  readonly warmedUp: Promise<void>;
  /** Why the account's data was last found locked (emitted as cache.locked when it changes). */
  private lockedFor: LockReason | null = null;

  constructor(
    private readonly account: Pick<StoredAccount, 'id' | 'organizationId' | 'organizationName'>,
    private readonly deps: AccountScopeDeps,
    /** Settles once an earlier scope of the same account has closed its files. */
    ready: Promise<void>,
  ) {
    const accountId = account.id;
    this.accountId = accountId;
    // The files open once an earlier scope of the account has closed them, and only with the
    // account's key: a locked account's open nothing (CacheLockedError).
    this.keyOnUse = new OnFirstUse(async () => {
      await ready;
      return this.unlock();
    });
    // The key the caches open with (after the earlier scope closed: unlock waits for it).
    const keyOf = (): Promise<AccountKey | undefined> =>
      deps.atRest === 'sealed' ? this.keyOnUse.get() : ready.then(() => undefined);
    this.cacheOnUse = new OnFirstUse(async () => {
      const key = await keyOf();
      try {
        const cache = await openCache({
          file: cacheFileOf(deps.dataDir, accountId),
          key: key?.databaseKey(),
          nativeBinding: deps.sqliteBinding,
          // The sidebar says why nothing shows while an update's migration runs.
          onUpgrade: () => this.runner.upgrading(true),
        });
        if (cache.recovery) {
          deps.log(`the cache was damaged (${cache.recovery.reason}): it starts anew`);
          this.runner.rebuilding();
        }
        return cache;
      } finally {
        this.runner.upgrading(false);
      }
    });
    this.audioOnUse = new OnFirstUse(async () => {
      const key = await keyOf();
      return AudioCache.open({ folder: audioFolderOf(deps.dataDir, accountId), key });
    });
    // Closed in the reverse order of these lines: what uses the caches before the caches.
    this.closables.add('the cache', async () => (await this.cacheOnUse.opened())?.close());
    this.closables.add('the audio cache', async () => (await this.audioOnUse.opened())?.close());
    this.runner = new SyncRunner((status) => deps.emit('sync.changed', status), deps.syncEnded);
    this.closables.add('the sync', () => this.runner.stop());
    this.cleanup = new CleanupRunner({
      cache: () => this.cache(),
      audioCache: () => this.audioCache(),
      settings: () => deps.retention(accountId),
      spare: () => deps.recordsInUse(accountId),
      report: (status) => deps.emit('retention.changed', status),
      log: deps.log,
    });
    if (deps.cleanupSchedule) this.cleanup.schedule(deps.cleanupSchedule);
    this.closables.add('the cleanup', () => this.cleanup.stop());
    this.checker = new CacheChecker({
      openedCache: () => this.cacheOnUse.opened(),
      idleMs: deps.idleMs,
      damaged: () => this.reopenDamagedCache(),
      log: deps.log,
    });
    if (deps.cleanupSchedule) this.checker.schedule();
    this.closables.add('the cache check', () => this.checker.stop());
    this.follower = new ConversationFollower({
      service: deps.service,
      conversations: deps.conversations,
      cache: () => this.cache(),
      changed: (change) => deps.emit('conversation.changed', change),
      log: deps.log,
    });
    this.closables.add('the follows', () => this.follower.stopAll());
    this.warmedUp = this.warmUp();
  }

  /**
   * Opens, in the background, what the first recording played needs, so that the first play of
   * the day costs no more than the next (issue 31): the thread that reads a download's waveform
   * (its code loads while the key is read), the key and the audio cache, then the connections to
   * the service. Through the scope's own accessor: nothing opens behind its close, and its
   * close closes what this opened. The cache is left to the first screen, which asks for it at
   * once: opened here too, its worker threads took the CPU the window's first paint needed
   * (launch → Recordings listed: a median of 4.0 s against 2.9 s).
   */
  private async warmUp(): Promise<void> {
    startDigestThread();
    // Locked, closed, or a keychain out of reach: the first use opens it again and says why.
    await this.audioCache().catch(() => undefined);
    // The service's connections, all the pool holds: a recording clicked as soon as it was
    // listed sent its audio request beside the record screen's calls, which took the open
    // connections, and waited for a new one (a round trip more: on the clinic's 40 ms link,
    // click → playing 474 → 348 ms, medians of 21 launches).
    const client = await this.deps.service.client().catch(() => undefined);
    if (client && !this.closed) await client.api.openConnections(WARM_UP_TIMEOUT_MS);
  }

  /**
   * The account's key: kept in the keychain beside its API key (made on first use), or
   * CacheLockedError when the data on disk was sealed with a key this computer cannot give.
   */
  private async unlock(): Promise<AccountKey> {
    const { dataDir, accounts } = this.deps;
    const { id, organizationName } = this.account;
    try {
      const key = await unlockAccount({
        stored: () => accounts.cacheKey(id),
        // A scope closed meanwhile (its account removed: its key destroyed) keeps no new key.
        keep: (bytes) => {
          if (this.closed) throw closedScope();
          accounts.keepCacheKey(id, bytes);
        },
        sealedData: holdsSealedData(dataDir, id),
        keyCheckFile: keyCheckFileOf(dataDir, id),
        organizationName,
      });
      this.tellLocked(null);
      return key;
    } catch (error) {
      if (error instanceof CacheLockedError) this.tellLocked(error.reason);
      throw error;
    }
  }

  private tellLocked(reason: LockReason | null): void {
    if (reason === this.lockedFor || this.closed) return;
    this.lockedFor = reason;
    const { id, organizationName } = this.account;
    this.deps.emit('cache.locked', reason && { accountId: id, organizationName, reason });
  }

  /** Whether the account's data is locked (its key gone or another), and why; null if not. */
  async locked(): Promise<LockedCache | null> {
    if (this.deps.atRest === 'plain') return null;
    try {
      await this.keyOnUse.get();
      return null;
    } catch (error) {
      if (!(error instanceof CacheLockedError)) throw error;
      const { id, organizationName } = this.account;
      return { accountId: id, organizationName, reason: error.reason };
    }
  }

  /** The account's cache, opened on first use. */
  cache(): Promise<Cache> {
    return this.closed ? Promise.reject(closedScope()) : this.cacheOnUse.get();
  }

  /**
   * The cache was found damaged (written down beside the file): it is reopened now, which moves
   * the file aside, keeps what only this computer knows (cache/database.ts) and starts empty; a
   * sync fills it again.
   */
  private async reopenDamagedCache(): Promise<void> {
    if (this.closed) return;
    await this.cacheOnUse.reopen((cache) => cache.close());
    this.startSync();
  }

  /** The account's audio cache, opened on first use. */
  audioCache(): Promise<AudioCache> {
    return this.closed ? Promise.reject(closedScope()) : this.audioOnUse.get();
  }

  /**
   * The key the account's other files are sealed under (its comments): the cache's; undefined
   * where the account's data is kept in the clear ('plain').
   */
  sealingKey(): Promise<AccountKey | undefined> {
    if (this.closed) return Promise.reject(closedScope());
    return this.deps.atRest === 'sealed' ? this.keyOnUse.get() : Promise.resolve(undefined);
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
      const { textDays } = this.deps.retention(this.accountId);
      this.runner.start(cache, client, this.account.organizationId, textDays ?? undefined);
    })().catch((error: unknown) => this.deps.log(`sync did not start: ${messageOf(error)}`));
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

  /** Stops the follows, the cleanup and the sync, then closes the audio cache and the cache. */
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
  accounts: Pick<
    AccountService,
    'active' | 'list' | 'onActiveChange' | 'cacheKey' | 'keepCacheKey' | 'shredCacheKey'
  >;
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
      if (this.hasActiveAccount()) this.active().startSync();
    }, SYNC_INTERVAL_MS);
    this.timer.unref();
    // The active account's scope opens with the app: its files and what its first play needs
    // open while the window loads, not when the first screen or recording asks (issue 31).
    if (this.hasActiveAccount()) this.active();
  }

  private hasActiveAccount(): boolean {
    return this.deps.accounts.list().some((account) => account.active && account.hasKey);
  }

  /** The active account's scope, opened on first use (no account: no_account, as accounts.active). */
  active(): AccountScope {
    // A call still on its way while the app quits: nothing opens behind the close.
    if (this.closed) throw new AppError('cancelled', 'Earmark is closing.');
    const { account } = this.deps.accounts.active();
    if (this.current?.accountId !== account.id) {
      this.retire();
      this.current = new AccountScope(
        account,
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
   * Remove everything of this clinic from this computer (Settings' "Remove everything", and
   * the account's removal after it): its cache key is destroyed first — crypto-shredding: what
   * is left of the files, on this disk or in what an SSD keeps of deleted blocks, is unreadable
   * from then on — then its scope is closed, its cache (with the WAL, any damaged copy and the
   * key's check) and its audio are deleted, then what each holder keeps of it (its unfinished
   * exports, the comments posted from here…). The account, when it stays, keeps its settings;
   * its next scope opens once the deletion is done, with a new key. Answers what was deleted.
   *
   * A keychain out of reach refuses a removal of an account that stays (keychain_unavailable,
   * nothing deleted: the key must not outlive the data it sealed); for a removed account the
   * removal has remembered its keys, deleted at the next start that reaches the keychain.
   */
  removeEverything(accountId: string): Promise<RemovedEverything> {
    try {
      this.deps.accounts.shredCacheKey(accountId);
    } catch (error) {
      if (this.deps.accounts.list().some((account) => account.id === accountId))
        return Promise.reject(error as Error);
      this.deps.log(`the key of a removed account's data: ${messageOf(error)}`);
    }
    if (this.current?.accountId === accountId) this.retire();
    const earlier = this.closing.get(accountId);
    const removal = (async () => {
      await earlier;
      const removed = await deleteAccountData(this.deps.dataDir, accountId);
      for (const holder of this.deps.holders) await holder.forgetAccount(accountId);
      return removed;
    })();
    this.holdUntil(
      accountId,
      removal.then(
        () => undefined,
        () => undefined,
      ),
    );
    return removal;
  }

  /** Whether the active account's data is locked (null with no account, or when it is not). */
  async locked(): Promise<LockedCache | null> {
    if (!this.deps.accounts.list().some((account) => account.active)) return null;
    return this.active().locked();
  }

  /**
   * The user agreed to start the active account's offline copy again: its locked data (sealed
   * with a key this computer cannot give) is deleted, the key it has (another one, if any) is
   * destroyed, and a new copy opens with a new key and syncs from the clinic service. What only
   * that copy held — the ranges created here, review marks, speaker names — goes with it.
   */
  async startFresh(accountId: string): Promise<void> {
    const scope = this.active();
    if (scope.accountId !== accountId)
      throw new AppError('not_found', 'That clinic is not the active account any more.');
    if (!(await scope.locked()))
      throw new AppError(
        'conflict',
        'This clinic’s offline copy is readable: nothing to start again.',
      );
    this.retire();
    await this.closing.get(accountId);
    this.deps.accounts.shredCacheKey(accountId);
    await deleteAccountData(this.deps.dataDir, accountId);
    this.deps.emit('cache.locked', null);
    this.active().startSync();
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
        this.deps.log(`the account's data did not close: ${messageOf(error)}`),
      );
    this.holdUntil(
      scope.accountId,
      Promise.all([this.closing.get(scope.accountId), closing]).then(() => undefined),
    );
  }

  /** The account's next scope opens its files once `done` (a close, a deletion) settles. */
  private holdUntil(accountId: string, done: Promise<void>): void {
    this.closing.set(accountId, done);
    void done.then(() => {
      if (this.closing.get(accountId) === done) this.closing.delete(accountId);
    });
  }
}

/** Every file under a folder (none when it does not exist). */
async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The sizes of the files that exist among `paths`. */
async function sizesOf(paths: readonly string[]): Promise<number[]> {
  const sizes = await Promise.all(
    paths.map((path) =>
      stat(path).then(
        (s) => s.size,
        () => null,
      ),
    ),
  );
  return sizes.filter((size): size is number => size !== null);
}

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

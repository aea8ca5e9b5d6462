import { DAY_MS } from '../../shared/retention';
import { messageOf } from '../base/errors';
import { notedDamage, type Cache, type WholeCheck } from '../cache';

/**
 * The account's cache checked whole, weekly, while the user is away (cache/check.ts says why it
 * is not checked at open), and reopened when it is found damaged.
 *
 * At a million records the check reads the whole file (4.4 GB) for 12 s or more of a thread: run
 * while the vet works, it takes a core and pushes what their screens read out of the system's
 * file cache. So it waits until nothing has been asked of the app for a while (after Firefox's
 * maintenance "on idle"), and stops between two tables when the user is back; the next idle
 * time starts it again. Damage a query met and wrote down needs no check and no wait: the cache
 * is reopened at the next look.
 */

export interface CacheCheckerDeps {
  /**
   * The account's cache when it is open, else undefined: the checker never opens it (a locked
   * account's would be tried, and its key read, every minute).
   */
  openedCache(): Promise<Cache | undefined>;
  /** How long since the user last asked anything of the app (a call, a recording's bytes). */
  idleMs(): number;
  /**
   * The cache is damaged (written down beside the file): the account's cache is to be
   * reopened, which moves it aside and starts anew (cache/database.ts).
   */
  damaged(reason: string): Promise<void>;
  log(message: string): void;
  now?: () => number;
}

/** How often the file is checked whole. */
export const WHOLE_CHECK_EVERY_MS = 7 * DAY_MS;

/** How long the user must have been away before a check starts. */
export const IDLE_BEFORE_CHECK_MS = 2 * 60_000;

/** How often the checker looks whether a check is due. */
const LOOK_EVERY_MS = 60_000;

/** When the file was last found sound, as the cache remembers it. */
const CHECKED_STREAM = 'cache.checked';

/** What one look did. */
export type CheckerLook =
  'reopened' | 'checked' | 'not due' | 'user active' | 'not open' | 'stopped';

export class CacheChecker {
  private timer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private looking: Promise<CheckerLook> | undefined;
  private readonly now: () => number;

  constructor(private readonly deps: CacheCheckerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Looks every minute until stopped. */
  schedule(): void {
    const next = () => {
      this.timer = setTimeout(() => {
        void this.look()
          .catch((error: unknown) => this.deps.log(`cache check: ${messageOf(error)}`))
          .finally(() => {
            if (!this.abort.signal.aborted) next();
          });
      }, LOOK_EVERY_MS);
      this.timer.unref();
    };
    next();
  }

  /** One look (joined when one is under way): what it did. */
  look(): Promise<CheckerLook> {
    this.looking ??= this.lookOnce().finally(() => {
      this.looking = undefined;
    });
    return this.looking;
  }

  /** Stops the schedule and a check under way (between two tables), and waits for it. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.abort.abort();
    await this.looking?.catch(() => undefined);
  }

  private async lookOnce(): Promise<CheckerLook> {
    if (this.abort.signal.aborted) return 'stopped';
    const cache = await this.deps.openedCache();
    if (cache === undefined) return 'not open';
    const noted = notedDamage(cache.file);
    if (noted !== undefined) return this.reopen(noted);
    if (this.deps.idleMs() < IDLE_BEFORE_CHECK_MS) return 'user active';
    const last = (await cache.read.syncState(CHECKED_STREAM)) as { at: number } | null;
    if (last !== null && this.now() - last.at < WHOLE_CHECK_EVERY_MS) return 'not due';
    const check = await this.checkWhileAway(cache);
    if (check.state === 'damaged') return this.reopen(check.reason);
    if (check.state === 'stopped') return this.abort.signal.aborted ? 'stopped' : 'user active';
    const at = this.now();
    await cache.write.saveSyncState({ stream: CHECKED_STREAM, value: { at }, at });
    return 'checked';
  }

  /** The whole check, stopped between two tables when the checker stops or the user is back. */
  private checkWhileAway(cache: Cache): Promise<WholeCheck> {
    return cache.checkWhole(
      () => this.abort.signal.aborted || this.deps.idleMs() < IDLE_BEFORE_CHECK_MS,
    );
  }

  private async reopen(reason: string): Promise<CheckerLook> {
    this.deps.log(`the cache was found damaged (${reason}): reopening it`);
    await this.deps.damaged(reason);
    return 'reopened';
  }
}

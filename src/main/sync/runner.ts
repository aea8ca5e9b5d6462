import type { SyncStatus } from '../../shared/ipc';
import { SYNC_IDLE } from '../../shared/ipc/constants';
import { DAY_MS } from '../../shared/retention';
import type { Cache } from '../cache';
import { createSyncEngine } from './engine';
import { searchReach } from './labels';
import type { SyncResult } from './types';
import type { ServiceClient } from '../service-client/connect';

/** How often the active account is synced in the background. */
export const SYNC_INTERVAL_MS = 5 * 60 * 1000;

/** How often, at most, a run under way reads again how far back search reaches. */
const REACH_EVERY_MS = 1000;

/**
 * Runs the sync engine for one account at a time, keeps its status, and reports every change:
 * the sidebar shows it, and a run never starts while another is under way.
 */
export class SyncRunner {
  private status: SyncStatus = SYNC_IDLE;
  private running: Promise<void> | undefined;
  private abort: AbortController | undefined;
  /** The last reading of the search's reach asked for (a later answer wins). */
  private reachAsked = 0;
  private reachAskedAt = 0;
  /** The cache's rebuilds: a run begun before the latest filled the file it replaced. */
  private rebuilds = 0;

  constructor(
    private readonly report: (status: SyncStatus) => void,
    /** How each run ended (whether the service answered it): the connection's status follows it. */
    private readonly ended: (result: SyncResult) => void,
  ) {}

  get current(): SyncStatus {
    return this.status;
  }

  /** The account's cache is being migrated (its open waits), or no longer is. */
  upgrading(upgrading: boolean): void {
    if (this.status.upgrading !== upgrading) this.set({ upgrading });
  }

  /**
   * The account's cache was found damaged and started anew: filled again from the service until
   * a run completes. A run completed before is no longer what it holds.
   */
  rebuilding(): void {
    this.rebuilds++;
    this.set({ rebuilding: true, lastSyncAt: null });
  }

  private set(next: Partial<SyncStatus>): void {
    this.status = { ...this.status, ...next };
    this.report(this.status);
  }

  /** Starts a run unless one is under way; `textDays`: the clinic's text window (retention). */
  start(
    cache: Cache,
    service: ServiceClient,
    organizationId: string,
    textDays?: number,
  ): SyncStatus {
    if (this.running) return this.status;
    const abort = new AbortController();
    this.abort = abort;
    this.set({ state: 'running', done: 0, total: 0, message: null });
    const rebuildsAtStart = this.rebuilds;
    const textFromMs = textDays === undefined ? undefined : Date.now() - textDays * DAY_MS;
    const readReach = () => this.readReach(cache, textFromMs);
    // At most once a second, and never later than a second after a progress: a step of the
    // walk is always shown, even when the next comes within that second.
    let reachDue: NodeJS.Timeout | undefined;
    const askReach = () => {
      if (reachDue) return;
      const wait = Math.max(0, this.reachAskedAt + REACH_EVERY_MS - Date.now());
      reachDue = setTimeout(() => {
        reachDue = undefined;
        void readReach();
      }, wait);
    };
    void readReach();
    const engine = createSyncEngine({
      cache,
      api: service.api,
      organizationId,
      ...(textDays === undefined ? {} : { textWindowMs: textDays * DAY_MS }),
    });
    this.running = engine
      .run({
        signal: abort.signal,
        onProgress: (progress) => {
          this.set({ done: progress.done, total: progress.total });
          askReach();
        },
      })
      .then(async (result) => {
        clearTimeout(reachDue);
        await readReach();
        this.ended(result);
        if (result.outcome === 'complete' && this.rebuilds !== rebuildsAtStart) {
          // It filled the file the rebuild replaced: the new one is still to be filled.
          this.set({ state: 'idle', message: null });
        } else if (result.outcome === 'complete') {
          this.set({
            state: 'idle',
            lastSyncAt: new Date(result.finishedAt).toISOString(),
            message: null,
            rebuilding: false,
          });
        } else if (result.outcome === 'offline') {
          this.set({
            state: 'offline',
            message: 'The clinic service cannot be reached; showing what is cached.',
          });
        } else if (result.outcome === 'cancelled') {
          this.set({ state: 'idle' });
        } else {
          this.set({ state: 'failed', message: result.error?.message ?? 'The sync stopped.' });
        }
      })
      .catch((error: unknown) =>
        this.set({
          state: 'failed',
          message: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => {
        clearTimeout(reachDue);
        this.running = undefined;
      });
    return this.status;
  }

  /** Reads how far back search reaches from the cache into the status (a failed read: left as it was). */
  private async readReach(cache: Cache, textFromMs: number | undefined): Promise<void> {
    const asked = ++this.reachAsked;
    this.reachAskedAt = Date.now();
    const reach = await searchReach(cache.read, textFromMs).catch(() => null);
    if (!reach || asked !== this.reachAsked) return;
    this.set({
      searchableFrom: reach.fromMs === null ? null : new Date(reach.fromMs).toISOString(),
      searchComplete: reach.complete,
    });
  }

  /** Stops a run under way (account switched, app quitting) and waits for it. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.status = SYNC_IDLE;
  }
}

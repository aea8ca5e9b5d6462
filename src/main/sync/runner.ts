import type { SyncStatus } from '../../shared/ipc';
import { DAY_MS } from '../../shared/retention';
import type { Cache } from '../cache';
import { createSyncEngine } from './engine';
import type { SyncResult } from './types';
import type { ServiceClient } from '../service-client/connect';

/** How often the active account is synced in the background. */
export const SYNC_INTERVAL_MS = 5 * 60 * 1000;

/** No run yet (or the account just opened). */
export const SYNC_IDLE: SyncStatus = {
  state: 'idle',
  done: 0,
  total: 0,
  lastSyncAt: null,
  message: null,
};

/**
 * Runs the sync engine for one account at a time, keeps its status, and reports every change:
 * the sidebar shows it, and a run never starts while another is under way.
 */
export class SyncRunner {
  private status: SyncStatus = SYNC_IDLE;
  private running: Promise<void> | undefined;
  private abort: AbortController | undefined;

  constructor(
    private readonly report: (status: SyncStatus) => void,
    /** How each run ended (whether the service answered it): the connection's status follows it. */
    private readonly ended: (result: SyncResult) => void,
  ) {}

  get current(): SyncStatus {
    return this.status;
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
    const engine = createSyncEngine({
      cache,
      api: service.api,
      organizationId,
      ...(textDays === undefined ? {} : { textWindowMs: textDays * DAY_MS }),
    });
    this.running = engine
      .run({
        signal: abort.signal,
        onProgress: (progress) => this.set({ done: progress.done, total: progress.total }),
      })
      .then((result) => {
        this.ended(result);
        if (result.outcome === 'complete') {
          this.set({
            state: 'idle',
            lastSyncAt: new Date(result.finishedAt).toISOString(),
            message: null,
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
        this.running = undefined;
      });
    return this.status;
  }

  /** Stops a run under way (account switched, app quitting) and waits for it. */
  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
    this.status = SYNC_IDLE;
  }
}

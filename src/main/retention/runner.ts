import { CLEANUP_IDLE, type CleanupStatus, type CleanupSummary } from '../../shared/ipc';
import { cutoffOf, DAY_MS, type RetentionSettings } from '../../shared/retention';
import type { AudioCache } from '../audio/audio-cache';
import { AppError } from '../base/errors';
import type { Cache } from '../cache';
import { isCleanupStopped, runCleanup, type CleanupTuning } from './cleanup';

/** When an account's cleanup runs by itself: soon after its data opens, then every day. */
export interface CleanupSchedule {
  firstAfterMs: number;
  everyMs: number;
}

/** The app's: a minute after start (the first screens and the sync go first), then daily. */
export const DAILY_CLEANUP: CleanupSchedule = { firstAfterMs: 60_000, everyMs: DAY_MS };

export interface CleanupRunnerDeps {
  cache(): Promise<Cache>;
  audioCache(): Promise<AudioCache>;
  /** The account's retention settings, read at each run. */
  settings(): RetentionSettings;
  /** The records its running exports read. */
  spare(): string[];
  report(status: CleanupStatus): void;
  log(message: string): void;
  now?: () => number;
  tuning?: Partial<CleanupTuning>;
}

/** The last cleanup as the cache remembers it (Settings says when it ran, after a restart too). */
const LAST_STREAM = 'retention.cleanup';

/** Progress goes out at most this often (a cleanup step takes milliseconds). */
const PROGRESS_INTERVAL_MS = 100;

/**
 * Runs an account's cleanups one at a time — at start and daily when scheduled, and when asked
 * ("Remove now") — keeps their status and reports every change (Settings and the sidebar show
 * it). A cleanup asked for while one runs joins it.
 */
export class CleanupRunner {
  private status: CleanupStatus = CLEANUP_IDLE;
  private running: Promise<CleanupSummary> | undefined;
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private lastLoaded = false;

  constructor(private readonly deps: CleanupRunnerDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The status, with the last cleanup as the cache remembers it before this run's first. */
  async current(): Promise<CleanupStatus> {
    if (!this.lastLoaded && this.status.last === null) {
      const cache = await this.deps.cache();
      const last = (await cache.read.syncState(LAST_STREAM)) as CleanupSummary | null;
      this.lastLoaded = true;
      if (last && this.status.last === null) this.status = { ...this.status, last };
    }
    return this.status;
  }

  /** Runs a cleanup now, or joins the one under way; answers how it ended. */
  run(): Promise<CleanupSummary> {
    if (this.abort.signal.aborted) {
      return Promise.reject(new AppError('cancelled', 'Another clinic account became active.'));
    }
    this.running ??= this.execute().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Runs cleanups by themselves on `schedule` until stopped. */
  schedule(schedule: CleanupSchedule): void {
    const next = (afterMs: number) => {
      this.timer = setTimeout(() => {
        void this.run()
          .catch(() => undefined)
          .finally(() => {
            if (!this.abort.signal.aborted) next(schedule.everyMs);
          });
      }, afterMs);
      this.timer.unref();
    };
    next(schedule.firstAfterMs);
  }

  /** Stops the schedule and a cleanup under way (between two steps) and waits for it. */
  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.abort.abort();
    await this.running?.catch(() => undefined);
  }

  private set(next: Partial<CleanupStatus>): void {
    this.status = { ...this.status, ...next };
    this.deps.report(this.status);
  }

  private async execute(): Promise<CleanupSummary> {
    this.set({ state: 'running', done: 0, total: 0, message: null });
    let reportedAt = 0;
    try {
      const [cache, audio] = await Promise.all([this.deps.cache(), this.deps.audioCache()]);
      const settings = this.deps.settings();
      const now = this.now();
      const summary = await runCleanup({
        cache,
        audio,
        textBefore: cutoffOf(settings.textDays, now),
        audioBefore: cutoffOf(settings.audioDays, now),
        spare: this.deps.spare(),
        now: this.now,
        signal: this.abort.signal,
        tuning: this.deps.tuning,
        onProgress: ({ done, total }) => {
          this.status = { ...this.status, done, total };
          if (this.now() - reportedAt < PROGRESS_INTERVAL_MS && done < total) return;
          reportedAt = this.now();
          this.deps.report(this.status);
        },
      });
      await cache.write.saveSyncState({ stream: LAST_STREAM, value: summary, at: this.now() });
      this.lastLoaded = true;
      this.set({ state: 'idle', done: 0, total: 0, last: summary });
      return summary;
    } catch (error) {
      if (isCleanupStopped(error)) {
        this.set({ state: 'idle', done: 0, total: 0 });
        throw new AppError(
          'cancelled',
          'The cleanup stopped before it finished; the next one does the rest.',
        );
      }
      this.deps.log(`cleanup failed: ${error instanceof Error ? error.message : String(error)}`);
      this.set({
        state: 'failed',
        done: 0,
        total: 0,
        message: 'The last cleanup could not finish. Earmark tries again at its next start.',
      });
      throw error;
    }
  }
}

import { ApiError, isApiError, serializeApiError } from '../service-client/errors';
import { classify } from '../service-client/failures';
import type { CacheReader, CacheWriter } from '../cache';
import { ProgressTracker, type RunContext, type Tuning } from './context';
import { CONVERSATIONS_STREAM, walkConversations } from './conversations';
import { defaultSleep, RateGate } from './gate';
import { fetchLabel, HISTORY_STREAM, scanWindow, walkHistory } from './labels';
import { NotesQueue } from './notes-queue';
import type {
  RunOptions,
  SyncDeps,
  SyncError,
  SyncOutcome,
  SyncResult,
  SyncStatus,
  SyncTuning,
} from './types';

const HOUR_MS = 60 * 60 * 1000;

export const SYNC_DEFAULTS: Omit<Tuning, 'now' | 'sleep'> = {
  concurrency: 8,
  labelPageSize: 1000,
  conversationPageSize: 100,
  rescanWindowMs: 72 * HOUR_MS,
  notesSettleMs: 24 * HOUR_MS,
  notesRefreshMs: 10 * 60 * 1000,
  fullRescanMs: 24 * HOUR_MS,
  writeBatch: 100,
};

const STATUS_STREAM = 'sync.status';

/** Resumed notes queued at the start of a run, at most (the rest wait for the next run). */
const RESUME_LIMIT = 1_000_000;

/** Kinds that say the key may not read a stream at all: skip it rather than fail the run. */
const NOT_ALLOWED = new Set(['scope_missing', 'entitlement_missing']);

export interface SyncEngine {
  /**
   * Runs a sync (or joins the one under way, whose options then apply): account, labels and
   * their notes, conversations. Never throws for a failure of the service or the network: the
   * result says how the run ended, and what it stored stays stored.
   */
  run(options?: RunOptions): Promise<SyncResult>;
  readonly running: boolean;
}

function errorOf(error: unknown): SyncError {
  if (isApiError(error)) return serializeApiError(error);
  return {
    name: 'Error',
    kind: 'internal',
    message: error instanceof Error ? error.message : String(error),
  };
}

function outcomeOf(
  failure: unknown,
  cancelled: boolean,
): { outcome: SyncOutcome; error?: SyncError } {
  if (failure === undefined) return { outcome: 'complete' };
  const failed = classify(failure);
  if (cancelled || failed === 'cancelled') return { outcome: 'cancelled' };
  // The service cannot be reached (after the client's own retries): the run waits for the next.
  if (failed === 'unreachable') return { outcome: 'offline', error: errorOf(failure) };
  return { outcome: 'failed', error: errorOf(failure) };
}

/**
 * Makes the next run walk the whole history and every conversation again, as a first run does:
 * the clinic's text window grew (retention), and what the shorter one left out comes back.
 */
export async function walkAllAgain(write: CacheWriter, at: number): Promise<void> {
  for (const stream of [HISTORY_STREAM, CONVERSATIONS_STREAM]) {
    await write.saveSyncState({ stream, value: null, at });
  }
}

/** The last run as the cache remembers it, or null before the first. */
export async function readSyncStatus(read: CacheReader): Promise<SyncStatus | null> {
  return (await read.syncState(STATUS_STREAM)) as SyncStatus | null;
}

/** A sync of one account's cache with its service. */
export function createSyncEngine(deps: SyncDeps, tuning: SyncTuning = {}): SyncEngine {
  const settings: Tuning = {
    ...SYNC_DEFAULTS,
    now: Date.now,
    sleep: defaultSleep,
    ...Object.fromEntries(Object.entries(tuning).filter(([, value]) => value !== undefined)),
  };
  let current: Promise<SyncResult> | undefined;

  async function execute(options: RunOptions): Promise<SyncResult> {
    const { now } = settings;
    const { read, write } = deps.cache;
    const startedAt = now();
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    let failure: unknown;
    const fail = (error: unknown) => {
      failure ??= error;
      stop.abort();
    };
    const progress = new ProgressTracker(options.onProgress);
    const gate = new RateGate(now, settings.sleep, (until) => {
      progress.waitingUntil = until;
      progress.emit();
    });
    const ctx: RunContext = {
      deps,
      tuning: settings,
      signal,
      startedAt,
      textFromMs: deps.textWindowMs === undefined ? undefined : startedAt - deps.textWindowMs,
      progress,
      gate,
      call: (request) => gate.call(request, signal),
    };
    const skipped: SyncResult['skipped'] = [];
    let history = { resumed: false, complete: false };
    const notes = new NotesQueue({
      concurrency: settings.concurrency,
      batch: settings.writeBatch,
      fetch: fetchLabel(ctx),
      store: (labels) => write.storeLabels(labels, now()),
      remove: (ids) => write.deleteLabels(ids),
      onError: fail,
      onWritten: () => progress.emit(),
    });
    progress.notes = notes;

    try {
      const identity = await ctx.call((o) => deps.api.identity.me(o));
      // The key now answers for another organization: its data must not mix into this cache.
      if (identity.organizationId !== deps.organizationId)
        throw new ApiError('organization_mismatch', {
          detail: `The key acts for organization ${identity.organizationId}, not ${deps.organizationId}.`,
        });
      await write.storeIdentity(identity, now());
      const devices = await ctx.call((o) =>
        deps.api.devices.list({ organizationId: deps.organizationId }, o),
      );
      await write.storeDevices(devices, now());

      progress.phase = 'labels';
      progress.emit();
      try {
        notes.add(await read.labelsNeedingNotes(RESUME_LIMIT));
        await scanWindow(ctx, notes);
        history = await walkHistory(ctx, notes);
      } catch (error) {
        if (isApiError(error) && NOT_ALLOWED.has(error.kind)) skipped.push('labels');
        else fail(error);
      }
      await notes.drain();
      if (failure !== undefined) throw failure;

      progress.phase = 'conversations';
      progress.emit();
      if (identity.entitlements?.hub === false) skipped.push('conversations');
      else {
        try {
          await walkConversations(ctx);
        } catch (error) {
          if (isApiError(error) && NOT_ALLOWED.has(error.kind)) skipped.push('conversations');
          else throw error;
        }
      }
    } catch (error) {
      fail(error);
      notes.stop();
      await notes.drain();
    }

    const { outcome, error } = outcomeOf(failure, options.signal?.aborted ?? false);
    const finishedAt = now();
    const previous = await readSyncStatus(read).catch(() => null);
    const status: SyncStatus = {
      lastRunAt: startedAt,
      lastOutcome: outcome,
      lastCompleteAt: outcome === 'complete' ? finishedAt : (previous?.lastCompleteAt ?? null),
      lastError: error ?? null,
    };
    await write
      .saveSyncState({ stream: STATUS_STREAM, value: status, at: finishedAt })
      .catch(() => undefined);
    progress.phase = 'done';
    progress.emit();
    return {
      outcome,
      ...(error ? { error } : {}),
      startedAt,
      finishedAt,
      labels: {
        listed: progress.labelsListed,
        added: progress.labelsAdded,
        notesFetched: notes.fetched,
        notesFailed: notes.failed,
        deleted: progress.labelsDeleted + notes.deleted,
        resumedHistory: history.resumed,
        historyComplete: history.complete,
      },
      conversations: {
        listed: progress.conversationsListed,
        added: progress.conversationsAdded,
        changed: progress.conversationsChanged,
      },
      skipped,
      rateLimitWaits: gate.waits,
      rateLimitRefusals: gate.refusals,
      ratePacePerSecond: gate.pacePerSecond,
    };
  }

  return {
    run(options = {}) {
      current ??= execute(options).finally(() => {
        current = undefined;
      });
      return current;
    },
    get running() {
      return current !== undefined;
    },
  };
}

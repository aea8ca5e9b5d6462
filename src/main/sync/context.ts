import type { CallOptions } from '../service-client/http';
import type { RateGate } from './gate';
import type { NotesQueue } from './notes-queue';
import type { SyncDeps, SyncPhase, SyncProgress, SyncTuning } from './types';

export type Tuning = Required<SyncTuning>;

/** Counters of one run, and its progress events. */
export class ProgressTracker {
  phase: SyncPhase = 'account';
  labelsListed = 0;
  labelsAdded = 0;
  labelsToList = 0;
  labelsDeleted = 0;
  conversationsListed = 0;
  conversationsAdded = 0;
  conversationsChanged = 0;
  waitingUntil: number | null = null;
  notes: NotesQueue | undefined;

  constructor(private readonly listener: ((progress: SyncProgress) => void) | undefined) {}

  snapshot(): SyncProgress {
    const notesFetched = this.notes?.fetched ?? 0;
    const notesQueued = this.notes?.queued ?? 0;
    const done = this.labelsListed + notesFetched + this.conversationsListed;
    return {
      phase: this.phase,
      done,
      total: done + this.labelsToList + notesQueued,
      labels: {
        listed: this.labelsListed,
        toList: this.labelsToList,
        notesFetched,
        notesQueued,
        deleted: this.labelsDeleted + (this.notes?.deleted ?? 0),
      },
      conversations: { listed: this.conversationsListed },
      waitingUntil: this.waitingUntil,
    };
  }

  emit(): void {
    this.listener?.(this.snapshot());
  }
}

/** What every part of a run shares. */
export interface RunContext {
  deps: SyncDeps;
  tuning: Tuning;
  /** Aborted by the caller, or by the run itself when it must stop (offline, failure). */
  signal: AbortSignal;
  startedAt: number;
  /** Records starting before this are not brought into the cache (retention); undefined: all. */
  textFromMs: number | undefined;
  progress: ProgressTracker;
  gate: RateGate;
  /** Calls the service through the rate-limit gate, with the run's signal. */
  call<T>(request: (options: CallOptions) => Promise<T>): Promise<T>;
}

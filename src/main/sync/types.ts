import type { ApiClient } from '../service-client/client';
import type { ApiErrorShape } from '../service-client/errors';
import type { CacheReader, CacheWriter } from '../cache';

/** What a sync works with: an account's cache and a client of its service. */
export interface SyncDeps {
  cache: { read: CacheReader; write: CacheWriter };
  api: Pick<ApiClient, 'identity' | 'devices' | 'labels' | 'conversations'>;
  organizationId: string;
  /**
   * How far back the clinic keeps text on this computer (retention), in ms: the sync lists no
   * record that started earlier and stores no older conversation's transcript. Absent: all.
   */
  textWindowMs?: number;
}

export interface SyncTuning {
  /** Label details fetched at once (default 8). */
  concurrency?: number;
  /** Rows per label listing page (default 1000, the service's maximum). */
  labelPageSize?: number;
  /** Conversations per page (default 100, the service's maximum). */
  conversationPageSize?: number;
  /**
   * How far back every run lists labels again, whatever it saw before (default 72 h): hub
   * devices upload late, so a label may appear well after its start time.
   */
  rescanWindowMs?: number;
  /**
   * Inside the window, notes fetched less than this long after the recording ended may still be
   * replaced (a regenerated transcript), so they are fetched again (default 24 h).
   */
  notesSettleMs?: number;
  /** …but not more often than this (default 10 min). */
  notesRefreshMs?: number;
  /** A completed history walk (and a full conversation walk) is redone after this (default 24 h). */
  fullRescanMs?: number;
  /** Fetched labels written per transaction (default 100). */
  writeBatch?: number;
  now?: () => number;
  /** Waits (rate limits); injectable for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export type SyncPhase = 'account' | 'labels' | 'conversations' | 'done';

export interface SyncProgress {
  phase: SyncPhase;
  /**
   * Work done and work known so far, in items: label rows listed, label notes fetched,
   * conversations listed. `total` grows as work is found; done ≤ total.
   */
  done: number;
  total: number;
  labels: {
    listed: number;
    /** Rows the listings still to walk hold (X-Total-Count), as far as known. */
    toList: number;
    notesFetched: number;
    notesQueued: number;
    deleted: number;
  };
  conversations: { listed: number };
  /** While waiting out a rate limit: until when (epoch ms). */
  waitingUntil: number | null;
}

export type SyncOutcome = 'complete' | 'offline' | 'cancelled' | 'failed';

/** An error as the sync reports it: the API client's shape, or an internal failure. */
export type SyncError = ApiErrorShape | { name: 'Error'; kind: 'internal'; message: string };

export interface SyncResult {
  outcome: SyncOutcome;
  /** Why a run that is not complete stopped. */
  error?: SyncError;
  startedAt: number;
  finishedAt: number;
  labels: {
    listed: number;
    added: number;
    notesFetched: number;
    /** Labels whose own answer failed (server error, unreadable): tried again next run. */
    notesFailed: number;
    deleted: number;
    /** This run continued a history walk a previous run had begun. */
    resumedHistory: boolean;
    /** The history walk has reached the oldest label (in this run or before). */
    historyComplete: boolean;
  };
  conversations: { listed: number; added: number; changed: number };
  /** Streams the key may not read (scope or entitlement missing): skipped, not failed. */
  skipped: ('labels' | 'conversations')[];
  /** Times the service said to slow down (429) and the sync paused. */
  rateLimitWaits: number;
  /** Requests the service refused with 429 (several may come back for one pause). */
  rateLimitRefusals: number;
  /** The pace (requests a second) the 429s showed the service allows; null when none came. */
  ratePacePerSecond: number | null;
}

/** The last run as the cache remembers it (readable offline). */
export interface SyncStatus {
  lastRunAt: number;
  lastOutcome: SyncOutcome;
  lastCompleteAt: number | null;
  lastError: SyncError | null;
}

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
}

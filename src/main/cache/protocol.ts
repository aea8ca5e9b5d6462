import type { CacheRecovery, CacheUpgrade } from './database';

/** What the cache's thread is started with (workerData): never the key. */
export interface WorkerInit {
  file: string;
  /** The writer opens, checks and migrates the file; a reader opens it read-only afterwards. */
  role: 'writer' | 'reader';
  nativeBinding?: string;
}

/**
 * The thread's first message: the database's key, by message (a worker's data and environment
 * are the process's to show; a message is between the two threads). Then the queries.
 */
export interface WorkerOpen {
  op: 'open';
  key?: string;
}

export type WorkerRequest =
  | { id: number; op: 'call'; side: 'read' | 'write'; name: string; args: unknown[] }
  | { id: number; op: 'close' };

/** An error as it crosses the thread boundary (name, message, SQLite code). */
export interface WorkerError {
  name: string;
  message: string;
  code?: string;
  /** CacheTooNewError's fields. */
  fileVersion?: number;
  appVersion?: number;
}

export type WorkerMessage =
  /** The writer is migrating a cache that holds data (before 'ready'). */
  | ({ type: 'upgrading' } & CacheUpgrade)
  | { type: 'ready'; recovery: CacheRecovery | null }
  | { type: 'failed'; error: WorkerError }
  | { type: 'result'; id: number; ok: true; value: unknown }
  | { type: 'result'; id: number; ok: false; error: WorkerError };

export function toWorkerError(error: unknown): WorkerError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const extra = error as Error & { code?: unknown; fileVersion?: unknown; appVersion?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(typeof extra.code === 'string' ? { code: extra.code } : {}),
    ...(typeof extra.fileVersion === 'number' ? { fileVersion: extra.fileVersion } : {}),
    ...(typeof extra.appVersion === 'number' ? { appVersion: extra.appVersion } : {}),
  };
}

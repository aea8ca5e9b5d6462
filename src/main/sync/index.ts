export { SYNC_IDLE, SYNC_INTERVAL_MS, SyncRunner } from './runner';
export { createSyncEngine, readSyncStatus, SYNC_DEFAULTS, walkAllAgain } from './engine';
export { fetchTimeline } from './timeline';
export { HISTORY_STREAM, type HistoryState } from './labels';
export type { RunOptions, SyncProgress, SyncResult, SyncTuning } from './types';

export { SYNC_INTERVAL_MS, SyncRunner } from './runner';
export { createSyncEngine, readSyncStatus, SYNC_DEFAULTS, walkAllAgain } from './engine';
export { fetchTimeline } from './timeline';
export { HISTORY_STREAM, searchReach, type HistoryState, type SearchReach } from './labels';
export type { RunOptions, SyncProgress, SyncResult, SyncTuning } from './types';

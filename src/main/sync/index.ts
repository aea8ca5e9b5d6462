export { SYNC_IDLE, SYNC_INTERVAL_MS, SyncRunner } from './runner';
export { createSyncEngine, readSyncStatus, SYNC_DEFAULTS, type SyncEngine } from './engine';
export { fetchTimeline } from './timeline';
export { HISTORY_STREAM, type HistoryState } from './labels';
export { CONVERSATIONS_STREAM, type ConversationsState } from './conversations';
export type {
  RunOptions,
  SyncDeps,
  SyncError,
  SyncOutcome,
  SyncPhase,
  SyncProgress,
  SyncResult,
  SyncStatus,
  SyncTuning,
} from './types';

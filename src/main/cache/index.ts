export {
  cacheFileOf,
  deleteCacheFiles,
  openCache,
  CacheError,
  type Cache,
  type CacheOptions,
} from './cache';
export { CACHE_APPLICATION_ID, type CacheRecovery } from './database';
export { CacheTooNewError } from './migrate';
export { LATEST_SCHEMA_VERSION } from './migrations';
export type { CacheReader, CacheStats, CacheWriter } from './queries';
export type {
  CachedConversationQuery,
  CachedConversations,
  CachedTimeline,
  ConversationPageInput,
  ConversationPageResult,
  TimelineInput,
} from './hub';
export type {
  CachedLabelPage,
  HubRecordQuery,
  LabelPageInput,
  LabelPageResult,
  LabelSweep,
  NotesRecheck,
} from './labels';
export type {
  SearchHit,
  SearchKind,
  SearchLabel,
  SearchOptions,
  SearchResults,
  SnippetPart,
} from './search';
export type { SyncStateWrite } from './sync-state';

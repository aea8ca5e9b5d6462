export { cacheFileOf, deleteCacheFiles, openCache, type Cache } from './cache';
export { CacheTooNewError } from './migrate';
export { LATEST_SCHEMA_VERSION } from './migrations';
export type { CacheReader, CacheWriter } from './queries';
export type { SearchHit } from './search';

export { cacheFileOf, deleteCacheFiles, keyCheckFileOf, openCache, type Cache } from './cache';
export { isPlainSqlite } from './plain-cache';
export { CacheTooNewError } from './migrate';
export { LATEST_SCHEMA_VERSION } from './migrations';
export type { CacheReader, CacheWriter } from './queries';
export type { SearchHit } from './search';

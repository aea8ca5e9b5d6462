export {
  cacheFileOf,
  cacheFilesOf,
  deleteCacheFiles,
  keyCheckFileOf,
  openCache,
  type Cache,
} from './cache';
export { notedDamage, type WholeCheck } from './check';
export { damagedCopiesOf } from './database';
export { isPlainSqlite } from './plain-cache';
export { TEXT_INDEXES } from './retention';
export { CacheTooNewError } from './migrate';
export { LATEST_SCHEMA_VERSION } from './migrations';
export type { CacheReader, CacheWriter } from './queries';
export type { SearchHit } from './search';

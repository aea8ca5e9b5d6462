import type { ReadSource, Sourced } from '../../shared/ipc';
import { isUnreachable } from '../service-client/failures';
import type { Cache, CacheReader, CacheWriter } from '../cache';
import { AppError } from '../base/errors';
import type { ServiceClient } from '../service-client/connect';

/**
 * Main's one offline policy. A read that has cached data asks the service, keeps its answer in
 * the account's cache and says so (`source: 'service'`); when the service cannot be reached
 * (`isUnreachable`, api/failures.ts) it answers what the cache holds instead, with when that was
 * fetched (`source: 'cache'`); asked `from: 'cache'` (a screen's first paint), it answers the
 * cache at once. Every channel with cached data reads through here (docs/architecture.md).
 */

/** What the cache holds for a read, and when the service gave it (epoch ms; null if unknown). */
interface Cached<T> {
  value: T;
  fetchedAt: number | null;
}

/** The three steps of a read that has cached data. */
export interface SourcedRead<T> {
  /** Asks the service. */
  fetch(service: ServiceClient): Promise<T>;
  /** Keeps the service's answer in the cache; a failure here never fails the read. */
  keep?(write: CacheWriter, value: T, fetchedAt: number): Promise<unknown>;
  /** The cache's answer; null or undefined when it holds none (then the service's error stands). */
  cached(read: CacheReader): Promise<Cached<T> | null | undefined>;
  /**
   * Answer only once the answer is kept: for reads the screens may read again from the cache at
   * once (a board, then offline). Otherwise keeping runs behind the answer.
   */
  keepBeforeAnswer?: boolean;
}

export interface OfflinePolicyDeps {
  /** Runs a call on the active account's service (keeping the connection status current). */
  ask<T>(call: (service: ServiceClient) => Promise<T>): Promise<T>;
  /** The active account's cache. */
  cache(): Promise<Pick<Cache, 'read' | 'write'>>;
  now(): number;
  log(message: string): void;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const fromCache = <T>({ value, fetchedAt }: Cached<T>): Sourced<T> => ({
  value,
  source: 'cache',
  fetchedAt: iso(fetchedAt),
});

/** Reads through the policy: the service's answer, else (unreachable) the cache's. */
export async function readSourced<T>(
  deps: OfflinePolicyDeps,
  read: SourcedRead<T>,
  from: ReadSource = 'service',
): Promise<Sourced<T>> {
  if (from === 'cache') {
    const cached = await read.cached((await deps.cache()).read);
    if (!cached) throw new AppError('not_found', 'Nothing of this has been kept offline yet.');
    return fromCache(cached);
  }
  let value: T;
  try {
    value = await deps.ask((service) => read.fetch(service));
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    // A cache that cannot be read counts as holding nothing: the service's error stands.
    const cached = await deps
      .cache()
      .then((cache) => read.cached(cache.read))
      .catch(() => null);
    if (!cached) throw error;
    return fromCache(cached);
  }
  const fetchedAt = deps.now();
  if (read.keep) {
    const keep = read.keep;
    const kept = deps
      .cache()
      .then((cache) => keep(cache.write, value, fetchedAt))
      .catch((error: unknown) =>
        deps.log(
          `an answer was not kept in the cache: ${error instanceof Error ? error.message : String(error)}`,
        ),
      );
    if (read.keepBeforeAnswer) await kept;
  }
  return { value, source: 'service', fetchedAt: iso(fetchedAt) };
}

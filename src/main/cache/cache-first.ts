import { isApiError, type ApiError } from '../api/errors';

/** One answer of a cache-first read. */
export interface CacheFirstAnswer<T> {
  value: T;
  /** 'cache': what the cache held; 'service': what the service just answered (now cached too). */
  source: 'cache' | 'service';
  /** No newer answer follows. */
  final: boolean;
  /**
   * Set on a final cached answer: the service could not be asked (offline, time-out, busy…), so
   * the value is the cached one, to be shown marked as such.
   */
  error?: ApiError;
  /** The service's answer could not be cached (it is still the answer). */
  cacheError?: Error;
}

export interface CacheFirstSteps<T> {
  /** The cached answer, or null/undefined when the cache has none. */
  read: () => Promise<T | null | undefined>;
  /** Asks the service. */
  fetch: () => Promise<T>;
  /** Stores the service's answer. */
  write: (value: T) => Promise<unknown>;
}

/**
 * A read that answers from the cache at once and then from the service: yields the cached value
 * (when there is one), then the service's (after caching it). When the service fails with an
 * ApiError after a cached value was yielded, the last answer is the cached value again, marked
 * with the error; without a cached value the error is thrown. A failing cache read counts as a
 * miss.
 */
export async function* cacheFirst<T>(
  steps: CacheFirstSteps<T>,
): AsyncGenerator<CacheFirstAnswer<T>, void, undefined> {
  const cached = await steps.read().catch(() => null);
  const hit = cached !== null && cached !== undefined;
  if (hit) yield { value: cached, source: 'cache', final: false };
  let fresh: T;
  try {
    fresh = await steps.fetch();
  } catch (error) {
    if (hit && isApiError(error)) {
      yield { value: cached, source: 'cache', final: true, error };
      return;
    }
    throw error;
  }
  let cacheError: Error | undefined;
  try {
    await steps.write(fresh);
  } catch (error) {
    cacheError = error instanceof Error ? error : new Error(String(error));
  }
  yield { value: fresh, source: 'service', final: true, ...(cacheError ? { cacheError } : {}) };
}

/**
 * For a request/response handler: resolves with the first answer (cached, or the service's on
 * a miss) and hands any later answer to `onUpdate` (e.g. to emit an event to the renderer).
 */
export async function firstAnswer<T>(
  steps: CacheFirstSteps<T>,
  onUpdate: (answer: CacheFirstAnswer<T>) => void,
  onLateError: (error: unknown) => void = () => undefined,
): Promise<CacheFirstAnswer<T>> {
  const answers = cacheFirst(steps);
  const first = await answers.next();
  if (first.done) throw new Error('cacheFirst ended without an answer.');
  if (!first.value.final) {
    void (async () => {
      try {
        for await (const answer of answers) onUpdate(answer);
      } catch (error) {
        onLateError(error);
      }
    })();
  }
  return first.value;
}

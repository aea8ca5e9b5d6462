// The API client with every endpoint function counting its answers and its 429s: how a benchmark
// counts the requests a sync makes (every request of a sync goes through one of them).
import type { ApiClient } from '../../src/main/service-client/client';
import { isApiError } from '../../src/main/service-client/errors';

export interface RequestCounts {
  answered: number;
  refused: number;
  /** Answers per endpoint function, e.g. "labels.get". */
  byEndpoint: Record<string, number>;
  /** When each answer came (performance.now()), in order. */
  answeredAt: number[];
}

export function countingClient(api: ApiClient): { api: ApiClient; counts: RequestCounts } {
  const counts: RequestCounts = { answered: 0, refused: 0, byEndpoint: {}, answeredAt: [] };
  const wrap = <F>(name: string, fn: F): F =>
    (async (...args: unknown[]) => {
      try {
        const value = await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
        counts.answered++;
        counts.byEndpoint[name] = (counts.byEndpoint[name] ?? 0) + 1;
        counts.answeredAt.push(performance.now());
        return value;
      } catch (error) {
        if (isApiError(error) && error.kind === 'rate_limited') counts.refused++;
        throw error;
      }
    }) as F;
  const groups = Object.fromEntries(
    Object.entries(api).map(([name, group]) =>
      typeof group === 'function'
        ? [name, group]
        : [
            name,
            Object.fromEntries(
              // `pages` walks pages through `list`, which is counted; it stays an iterator.
              Object.entries(group as Record<string, unknown>).map(([method, fn]) => [
                method,
                typeof fn === 'function' && method !== 'pages' ? wrap(`${name}.${method}`, fn) : fn,
              ]),
            ),
          ],
    ),
  ) as unknown as ApiClient;
  return { api: groups, counts };
}

/** The counts without the answers' times (for a report's JSON). */
export const countsSummary = ({ answeredAt: _times, ...summary }: RequestCounts) => summary;

// Full-text search timed as a screen asks it: `cache.read.search(query, { limit: 20 })` from the
// call to its answer in the main thread (the reader thread's query, the message both ways and the
// snippets), and its baseline, LIKE '%word%' per word on the same notes table. Shared by
// bench/fts.bench.ts and bench/scale.bench.ts.
import Database from 'better-sqlite3-multiple-ciphers';
import type { Cache } from '../../src/main/cache';

export interface SearchTimes {
  /** Per query, the time of each round (the warm-up round not counted). */
  ms: Record<string, number[]>;
  /** Per query, the hits (FTS, at most 20) or the matches (LIKE, all) of the last round. */
  found: Record<string, number>;
}

/** Each query asked `rounds` times, after a warm-up round (the pages come into SQLite's cache). */
export async function timeSearches(
  cache: Pick<Cache, 'read'>,
  queries: readonly string[],
  rounds: number,
): Promise<SearchTimes> {
  const times: SearchTimes = { ms: {}, found: {} };
  for (let round = -1; round < rounds; round++) {
    for (const query of queries) {
      const started = performance.now();
      const result = await cache.read.search(query, { limit: 20 });
      const ms = performance.now() - started;
      if (round < 0) continue;
      (times.ms[query] ??= []).push(ms);
      times.found[query] = result.hits.length;
    }
  }
  return times;
}

/** The words of a query, for LIKE: quotes dropped, a phrase kept whole. */
function likeTerms(query: string): string[] {
  const phrase = /^"(.*)"$/.exec(query);
  return phrase ? [phrase[1]!] : query.split(/\s+/).filter(Boolean);
}

/**
 * The baseline: the same words as `content LIKE '%word%'` (one per word, ANDed) on the cache
 * file's notes table, collecting every match as a ranking would need, with better-sqlite3 on the
 * calling thread; a warm-up round, then `rounds`.
 */
export function timeLikes(file: string, queries: readonly string[], rounds: number): SearchTimes {
  const db = new Database(file, { readonly: true });
  const times: SearchTimes = { ms: {}, found: {} };
  try {
    for (let round = -1; round < rounds; round++) {
      for (const query of queries) {
        const terms = likeTerms(query);
        const sql = `SELECT seq, label_id FROM notes WHERE ${terms.map(() => 'content LIKE ?').join(' AND ')}`;
        const started = performance.now();
        const rows = db.prepare(sql).all(...terms.map((t) => `%${t}%`));
        const ms = performance.now() - started;
        if (round < 0) continue;
        (times.ms[query] ??= []).push(ms);
        times.found[query] = rows.length;
      }
    }
  } finally {
    db.close();
  }
  return times;
}

/** Every sample of every query. */
export const allTimes = (times: SearchTimes): number[] => Object.values(times.ms).flat();

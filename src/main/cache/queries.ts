import { checkReads, isDamage, noteDamage } from './check';
import { hubReads, hubWrites } from './hub';
import { labelReads, labelWrites } from './labels';
import { schemaVersion } from './migrate';
import { reviewReads, reviewWrites } from './review';
import { retentionReads, retentionWrites } from './retention';
import { searchReads } from './search';
import { speakerReads, speakerWrites } from './speakers';
import { get, type Db } from '../../node-common/sql';
import { syncStateReads, syncStateWrites } from './sync-state';
import { taskReads, taskWrites } from './tasks';

/** How much the cache holds (diagnostics, tests, benchmarks). */
export interface CacheStats {
  schemaVersion: number;
  labels: number;
  notes: number;
  /** Labels whose notes the sync still has to fetch. */
  labelsNeedingNotes: number;
  conversations: number;
  timelineMinutes: number;
  createdRanges: number;
  taskBoards: number;
  tasks: number;
}

const count = (db: Db, sql: string) => get<{ n: number }>(db, sql)!.n;

const statsReads = {
  stats(db: Db): CacheStats {
    return {
      schemaVersion: schemaVersion(db),
      labels: count(db, 'SELECT count(*) AS n FROM labels'),
      notes: count(db, 'SELECT count(*) AS n FROM notes'),
      labelsNeedingNotes: count(db, 'SELECT count(*) AS n FROM labels WHERE notes_stale = 1'),
      conversations: count(db, 'SELECT count(*) AS n FROM conversations'),
      timelineMinutes: count(db, 'SELECT count(*) AS n FROM timeline_minutes'),
      createdRanges: count(db, 'SELECT count(*) AS n FROM created_ranges'),
      taskBoards: count(db, 'SELECT count(*) AS n FROM task_boards'),
      tasks: count(db, 'SELECT count(*) AS n FROM tasks'),
    };
  },
};

/**
 * The typed SQL layer (after Signal Desktop's): every query is a function of the connection and
 * its arguments, listed here by name. The cache's thread runs them; callers get the same names
 * as async functions (CacheReader, CacheWriter), so the compiler checks names and arguments.
 * Reads never change anything and may run on a read-only connection; each write is one
 * transaction.
 */
export const READS = {
  ...labelReads,
  ...hubReads,
  ...taskReads,
  ...searchReads,
  ...reviewReads,
  ...speakerReads,
  ...syncStateReads,
  ...statsReads,
  ...retentionReads,
  ...checkReads,
};

export const WRITES = {
  ...labelWrites,
  ...hubWrites,
  ...taskWrites,
  ...syncStateWrites,
  ...reviewWrites,
  ...speakerWrites,
  ...retentionWrites,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any argument list is allowed here
export type Query = (db: Db, ...args: any[]) => unknown;

/** The async face of a table of queries: the same names and arguments, without the connection. */
export type Remote<Table extends Record<string, Query>> = {
  [Name in keyof Table]: Table[Name] extends (db: Db, ...args: infer Args) => infer Result
    ? (...args: Args) => Promise<Result>
    : never;
};

export type CacheReader = Remote<typeof READS>;
export type CacheWriter = Remote<typeof WRITES>;

/**
 * Runs a query by name on a connection (the cache's thread, or the main thread when inline). A
 * query that meets a damaged page writes the damage down (check.ts): the account's cache checker
 * reopens the cache within a minute, or the next open does.
 */
export function runQuery(db: Db, side: 'read' | 'write', name: string, args: unknown[]): unknown {
  const table: Record<string, Query> = side === 'read' ? READS : WRITES;
  const query = Object.hasOwn(table, name) ? table[name] : undefined;
  if (!query) throw new Error(`No cache ${side} query named "${name}".`);
  try {
    return query(db, ...args);
  } catch (error) {
    if (isDamage(error)) noteDamage(db.name, `${name}: ${error.message}`);
    throw error;
  }
}

import type BetterSqlite3 from 'better-sqlite3-multiple-ciphers';

/**
 * The house style of SQL in Earmark, for the app's cache and the reference service alike: a
 * query is SQL text beside the type of its rows, run through `all`, `get` or `run` on a
 * better-sqlite3 connection (better-sqlite3-multiple-ciphers: better-sqlite3's API over SQLite3
 * Multiple Ciphers, which encrypts the app's cache; without a key it is plain SQLite). Node only (src/shared stays pure); both src/main and src/service
 * import it.
 */

/** A better-sqlite3 connection (synchronous: the cache uses it inside its worker threads). */
export type Db = BetterSqlite3.Database;

/** Each connection's statements by their SQL text. */
const preparedByConnection = new WeakMap<Db, Map<string, BetterSqlite3.Statement>>();

/**
 * The connection's prepared statement for `sql`: prepared on its first use, then reused (a
 * statement runs any number of times, and preparing costs more than running a small query;
 * preparing on every request had taken a third of the service's CPU). SQL built from a query's
 * filters must come in a bounded number of variants: each is kept while the connection lives.
 */
export function statement(db: Db, sql: string): BetterSqlite3.Statement {
  let prepared = preparedByConnection.get(db);
  if (!prepared) {
    prepared = new Map();
    preparedByConnection.set(db, prepared);
  }
  let found = prepared.get(sql);
  if (found === undefined) {
    found = db.prepare(sql);
    prepared.set(sql, found);
  }
  return found;
}

/** The rows of a query, typed by the caller (the SQL and the row type sit side by side). */
export const all = <Row>(db: Db, sql: string, params: unknown = {}): Row[] =>
  statement(db, sql).all(params) as Row[];

/**
 * The rows of a query one at a time, for reads too large to hold at once. The connection runs
 * nothing else until the last row is read.
 */
export const each = <Row>(db: Db, sql: string, params: unknown = {}): IterableIterator<Row> =>
  statement(db, sql).iterate(params) as IterableIterator<Row>;

/** The first row of a query, or undefined. */
export const get = <Row>(db: Db, sql: string, params: unknown = {}): Row | undefined =>
  statement(db, sql).get(params) as Row | undefined;

/** Runs a statement; returns the number of rows it changed. */
export const run = (db: Db, sql: string, params: unknown = {}): number =>
  statement(db, sql).run(params).changes;

/** A LIKE pattern (ESCAPE '\') for text containing `text` literally, its wildcards escaped. */
export const likeContaining = (text: string): string =>
  `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * Whether the rows a filter matches are few enough to be looked up by an index on what it
 * matches (the labels of a few patients, by patient) rather than found by reading every row of
 * the list's range and testing each: a twentieth of the rows or fewer. For the name of a patient
 * or two among a million labels, 7 ms against 77 (the cache) and 10 against 190 (the reference
 * service); when most rows match ("a"), a lookup per row costs more than the read it saves.
 */
export const fewEnoughToLookUp = (matches: number, rows: number): boolean => matches <= rows / 20;

/** SQLite booleans. */
export const flag = (value: boolean): 0 | 1 => (value ? 1 : 0);

/**
 * `INSERT INTO table (…) VALUES (…) ON CONFLICT (key) DO UPDATE SET` every other column to the
 * new value. `columns` maps each column to its SQL value (a parameter such as `@title`).
 */
export function upsert(
  table: string,
  key: string,
  columns: Readonly<Record<string, string>>,
): string {
  const names = Object.keys(columns);
  const updates = names.filter((name) => name !== key).map((name) => `${name} = excluded.${name}`);
  return `INSERT INTO ${table} (${names.join(', ')}) VALUES (${Object.values(columns).join(', ')})
    ON CONFLICT (${key}) DO UPDATE SET ${updates.join(', ')}`;
}

import type BetterSqlite3 from 'better-sqlite3';
import { preparedStatement } from '../../shared/prepared-statements';

/** A connection to a cache database (better-sqlite3, synchronous: used inside the cache's thread). */
export type Db = BetterSqlite3.Database;

/** The statement for `sql` on `db`, prepared once per connection and kept. */
const statement = (db: Db, sql: string): BetterSqlite3.Statement => preparedStatement(db, sql);

/** The rows of a query, typed by the caller (the SQL and the row type sit side by side). */
export const all = <Row>(db: Db, sql: string, params: unknown = {}): Row[] =>
  statement(db, sql).all(params) as Row[];

/** The first row of a query, or undefined. */
export const get = <Row>(db: Db, sql: string, params: unknown = {}): Row | undefined =>
  statement(db, sql).get(params) as Row | undefined;

/** Runs a statement; returns the number of rows it changed. */
export const run = (db: Db, sql: string, params: unknown = {}): number =>
  statement(db, sql).run(params).changes;

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

import type { Db } from '../../src/node-common/sql';

/**
 * Records the SQL texts a connection prepares from now until `stop()`: the statements a code
 * path really runs (to count them, or to read their plans). `plan` asks SQLite how it runs one.
 */
export function watchPrepared(db: Db) {
  const texts: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = ((sql: string) => {
    texts.push(sql);
    return prepare(sql);
  }) as typeof db.prepare;
  return {
    texts,
    stop: () => void (db.prepare = prepare),
    /** `params`: named ones as an object, positional ones as an array. */
    plan: (sql: string, params: Record<string, unknown> | unknown[]) =>
      (
        prepare(`EXPLAIN QUERY PLAN ${sql}`).all(
          ...(Array.isArray(params) ? params : [params]),
        ) as { detail: string }[]
      )
        .map((row) => row.detail)
        .join('; '),
  };
}

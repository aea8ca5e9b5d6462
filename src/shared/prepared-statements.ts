/** A database connection that prepares statements from SQL text (better-sqlite3's `Database`). */
export interface PreparesStatements<Statement> {
  prepare(sql: string): Statement;
}

/** Each connection's statements by their SQL text. */
const preparedByConnection = new WeakMap<object, Map<string, unknown>>();

/**
 * The connection's prepared statement for `sql`: prepared on its first use, then reused
 * (a better-sqlite3 statement runs any number of times). Preparing costs more than running a small
 * query. The reference service's stores and the app's cache both go through here, so SQL built
 * from a query's filters must come in a bounded number of variants (each is kept while the
 * connection lives).
 */
export function preparedStatement<Statement>(
  db: PreparesStatements<Statement>,
  sql: string,
): Statement {
  let prepared = preparedByConnection.get(db);
  if (!prepared) {
    prepared = new Map();
    preparedByConnection.set(db, prepared);
  }
  let found = prepared.get(sql) as Statement | undefined;
  if (found === undefined) {
    found = db.prepare(sql);
    prepared.set(sql, found);
  }
  return found;
}

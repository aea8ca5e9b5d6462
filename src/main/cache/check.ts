import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { all, type Db } from '../../node-common/sql';

/**
 * The whole check of a cache's file (PRAGMA quick_check), out of the way of its opening.
 *
 * Checked whole at every open, a hospital's cache (a million records, 4.4 GB) kept its first
 * answer waiting 12 s at each launch. So an open reads only what every query meets at once (the
 * header and the schema, database.ts), and the whole file is checked in the background, a table
 * at a time on a thread of its own (cache.ts checkWhole), weekly while the user is away
 * (retention/cache-checker.ts). Damage found is written down beside the file (the damage note),
 * so the next open — the account's cache is reopened at once — moves the file aside and salvages
 * what only this computer knows, as a damage found at open always has been. A query that meets a
 * damaged page writes it down too (queries.ts runQuery), and the checker's next look (within a
 * minute) reopens the cache without a check.
 *
 * quick_check(table) checks one table's b-tree and its indexes'; the FTS5 tables are checked
 * through their shadow tables (a virtual table's own check is FTS5's integrity check, which
 * reads every doclist: 10 s of notes_fts alone at 1M, and it is not about the file's health).
 * What the per-table form leaves out is the free-page list; a damaged one is met by the write
 * that reuses a page (SQLITE_CORRUPT) and then by the next open's check of the schema, or not at
 * all if the cleanup's vacuum gives the pages back first.
 */

/** The tables checked one by one: the schema first, then each table in the file's order. */
export function checkParts(db: Db): string[] {
  const tables = all<{ name: string }>(
    db,
    `SELECT name FROM sqlite_schema
     WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'
     ORDER BY rootpage`,
  );
  return ['sqlite_schema', ...tables.map((table) => table.name)];
}

/** SQLite's word for a file that is damaged (SQLITE_CORRUPT and its kinds, SQLITE_NOTADB). */
export const isDamage = (error: unknown): error is Error & { code: string } => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(code);
};

/** quick_check of one table and its indexes: its first complaint, or null when it is sound. */
export function checkPart(db: Db, table: string): string | null {
  try {
    const problems = db.pragma(`quick_check("${table.replace(/"/g, '""')}")`) as {
      quick_check: string;
    }[];
    const first = problems[0]?.quick_check ?? 'no answer';
    return first === 'ok' ? null : `quick_check: ${first}`;
  } catch (error) {
    // Damage may stop the check itself before it can complain.
    if (isDamage(error)) return `unreadable: ${error.message}`;
    throw error;
  }
}

export const checkReads = { checkParts, checkPart };

/** How a whole check ended. */
export type WholeCheck =
  | { state: 'sound' }
  | { state: 'damaged'; reason: string }
  /** Stopped between two tables (the cache closing, the user back): checked again later. */
  | { state: 'stopped' };

/** Where a damage found while the cache was open is written down for its next open. */
export const damageNoteOf = (file: string): string => `${file}.damaged`;

/** The longest reason kept (SQLite's complaints name pages and cells, never the data). */
const REASON_LIMIT = 500;

/** Writes the damage down beside the file: its next open moves it aside and starts anew. */
export function noteDamage(file: string, reason: string): void {
  writeFileSync(damageNoteOf(file), reason.slice(0, REASON_LIMIT), { mode: 0o600 });
}

/** The damage written down for this file, if any. */
export function notedDamage(file: string): string | undefined {
  const note = damageNoteOf(file);
  if (!existsSync(note)) return undefined;
  const reason = readFileSync(note, 'utf8').trim().slice(0, REASON_LIMIT);
  return reason === '' ? 'damage found while it was open' : reason;
}

/** Forgets the damage note once the file it spoke of is gone. */
export function forgetDamage(file: string): void {
  rmSync(damageNoteOf(file), { force: true });
}

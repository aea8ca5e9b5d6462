import Database from 'better-sqlite3-multiple-ciphers';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CacheTooNewError, migrate, schemaVersion, type Migration } from './migrate';
import { MIGRATIONS } from './migrations';
import { checkPart, forgetDamage, notedDamage } from './check';
import { isPlainSqlite, sealPlainCache, type ConversionStep } from './plain-cache';
import { all, run, type Db } from '../../node-common/sql';

/** "ERMK": marks a SQLite file as an Earmark cache. */
const CACHE_APPLICATION_ID = 0x45524d4b;

/** A damaged cache moved aside at open, and the user-made data saved from it. */
export interface CacheRecovery {
  /**
   * What was wrong: quick_check's first complaint (at open, or written down by a whole check
   * while the cache was open), or why the file could not be read.
   */
  reason: string;
  /**
   * Where the damaged file now is (kept for diagnostics until the next recovery); null for an
   * encrypted cache's: it is deleted once salvaged (a copy kept beside would be one more file
   * to seal, or one left in the clear by an earlier version).
   */
  movedTo: string | null;
  /** Created ranges read back from the damaged file (they exist nowhere else). */
  salvagedCreatedRanges: number;
  /** Review marks and settings read back from it (this user's, nowhere else either). */
  salvagedReviewMarks: number;
  /** Transcript versions whose speaker names were read back from it (nor do they). */
  salvagedSpeakerNames: number;
}

/** A cache brought from an earlier version's schema to this one's. */
export interface CacheUpgrade {
  fromVersion: number;
  toVersion: number;
}

export interface OpenedCacheDatabase {
  db: Db;
  file: string;
  /** Null when the file opened clean (or did not exist). */
  recovery: CacheRecovery | null;
}

export interface CacheDatabaseOptions {
  /**
   * The database's raw key (`x'…'`, AccountKey.databaseKey): the file is encrypted (ChaCha20-
   * Poly1305 per page, SQLite3 Multiple Ciphers), and one an earlier version wrote in the clear
   * is sealed first. Without it the file is plain SQLite (the benchmarks' baseline, tools).
   */
  key?: string;
  /** The SQLite addon for this runtime when not the default (Electron's ABI build). */
  nativeBinding?: string;
  /** Called at each step of sealing a plain cache (the crash tests stop there). */
  onConversionStep?: (step: ConversionStep) => void;
  /**
   * Called before a cache that holds data is migrated to a newer schema: a migration may rebuild
   * an index over every note (009 took about a minute and a half at a million records), and the
   * user is told why nothing shows meanwhile.
   */
  onUpgrade?: (upgrade: CacheUpgrade) => void;
  /** Tests stop at an older version to test the next migration. */
  migrations?: readonly Migration[];
  targetVersion?: number;
}

/**
 * What only this computer knows, copied from a damaged file into the new one: the ranges of the
 * conversations created here, and this user's review marks and settings (006). Each table is read
 * on its own, so a damaged one (or one an older file lacks) costs only its own rows.
 */
const SALVAGED_TABLES = {
  created_ranges: ['conversation_id', 'device_id', 'start_ms', 'end_ms', 'created_at'],
  review_records: ['label_id', 'reviewed_at'],
  review_versions: ['label_id', 'version_key'],
  review_conversations: ['conversation_id', 'status', 'reviewed_at'],
  review_settings: ['key', 'value'],
  // Restored as no version's current: the record's next read places them and indexes their lines.
  speaker_overlays: ['label_id', 'version_key', 'names', 'moves', 'notice', 'updated_at'],
} as const;
type SalvagedTable = keyof typeof SALVAGED_TABLES;
type Salvaged = Partial<Record<SalvagedTable, Record<string, unknown>[]>>;

const CORRUPT_SUFFIX = '.corrupt-';
const SIDE_FILES = ['', '-wal', '-shm'] as const;

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Each connection's page cache, in KiB (PRAGMA cache_size, negative). SQLite's default, 2 MiB,
 * holds less than the smallest index on a million labels (17 MiB), so every count and every
 * page of a list read it again from the file, each page decrypted anew: 31 ms a count on a
 * sealed cache at 1M, 0.5 ms with this. Memory is taken only as pages are read (a cache of
 * 100,000 labels never fills it).
 */
export const PAGE_CACHE_KIB = 64 * 1024;

/**
 * A connection to `file`, keyed first when the cache is encrypted: the key is the first thing
 * the connection is told, before any page is read.
 */
function connect(
  file: string,
  options: CacheDatabaseOptions,
  flags: { readonly?: boolean; fileMustExist?: boolean } = {},
): Db {
  const db = new Database(file, { ...flags, nativeBinding: options.nativeBinding });
  try {
    if (options.key !== undefined) db.pragma(`key = "${options.key}"`);
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Why the file at `file` is not a healthy cache, or undefined when it is: the damage a whole
 * check found while it was open (check.ts), else what every query would meet at once — a header
 * that is not SQLite's, or not under this key, another program's database, a schema that cannot
 * be read. The rest of the file is checked in the background (check.ts says why). Reads it as it
 * is: a WAL left by a killed process is replayed by SQLite (that is recovery, not damage).
 */
function damageOf(file: string, options: CacheDatabaseOptions): string | undefined {
  const noted = notedDamage(file);
  if (noted !== undefined) return noted;
  let db: Db | undefined;
  try {
    db = connect(file, options, { fileMustExist: true });
    const appId = db.pragma('application_id', { simple: true }) as number;
    if (appId !== 0 && appId !== CACHE_APPLICATION_ID)
      return `not an Earmark cache (application_id ${appId})`;
    const problem = checkPart(db, 'sqlite_schema');
    return problem ?? undefined;
  } catch (error) {
    return `unreadable: ${message(error)}`;
  } finally {
    db?.close();
  }
}

/** The rows of SALVAGED_TABLES still readable in a damaged file. */
function salvage(file: string, options: CacheDatabaseOptions): Salvaged {
  let db: Db | undefined;
  const salvaged: Salvaged = {};
  try {
    db = connect(file, options, { readonly: true, fileMustExist: true });
    for (const [table, columns] of Object.entries(SALVAGED_TABLES)) {
      try {
        salvaged[table as SalvagedTable] = all(db, `SELECT ${columns.join(', ')} FROM ${table}`);
      } catch {
        // That table is damaged, or the file is older than it.
      }
    }
  } catch {
    // Not even readable: nothing to save.
  } finally {
    try {
      db?.close();
    } catch {
      // A damaged file may refuse even to close cleanly; it is moved aside next.
    }
  }
  return salvaged;
}

const count = (salvaged: Salvaged, tables: SalvagedTable[]) =>
  tables.reduce((n, table) => n + (salvaged[table]?.length ?? 0), 0);

/**
 * The damaged copies of a cache moved aside (with their WAL and shared memory): they hold
 * clinical text of any age, so a cleanup and "Remove everything" delete them too.
 */
export function damagedCopiesOf(file: string): string[] {
  const dir = dirname(file);
  const prefix = `${basename(file)}${CORRUPT_SUFFIX}`;
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .map((name) => join(dir, name));
}

/** Deletes the damaged copies moved aside earlier. */
function removeDamagedCopies(file: string): void {
  for (const copy of damagedCopiesOf(file)) rmSync(copy, { force: true });
}

/**
 * Moves the file and its WAL and shared-memory files aside; deletes older damaged copies. An
 * encrypted cache's file is deleted instead.
 */
function moveAside(file: string, nowMs: number, options: CacheDatabaseOptions): string | null {
  removeDamagedCopies(file);
  forgetDamage(file);
  if (options.key !== undefined) {
    for (const side of SIDE_FILES) rmSync(file + side, { force: true });
    return null;
  }
  const target = `${file}${CORRUPT_SUFFIX}${new Date(nowMs).toISOString().replace(/[:.]/g, '-')}`;
  for (const side of SIDE_FILES) {
    if (existsSync(file + side)) renameSync(file + side, target + side);
  }
  return target;
}

function configure(db: Db): void {
  // A new file gives freed pages back to the file system (the cleanup's incremental_vacuum), so
  // the cache shrinks when old records go. Only possible before the file's first page: an
  // existing cache keeps its mode and reuses its free pages instead.
  if ((db.pragma('page_count', { simple: true }) as number) === 0) {
    db.pragma('auto_vacuum = INCREMENTAL');
  }
  db.pragma('journal_mode = WAL');
  // WAL + NORMAL: a killed process loses nothing committed; a power cut may lose the last
  // transactions but never corrupts. Right for a cache.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  db.pragma('temp_store = MEMORY');
  // Deleted rows and freed pages are overwritten with zeros, so removed text does not linger in
  // the file's free space (retention; docs/security.md says what this does not cover).
  db.pragma('secure_delete = ON');
  db.pragma(`application_id = ${CACHE_APPLICATION_ID}`);
}

/**
 * Opens (creating if need be) the cache at `file` for writing: checks what every query meets
 * (damageOf; the whole file is checked in the background, check.ts), moves a damaged one aside
 * and starts empty, refuses one written by a newer app (CacheTooNewError), and
 * migrates it to the newest schema. Synchronous: call it in the cache's own thread.
 */
export function openCacheDatabase(
  file: string,
  options: CacheDatabaseOptions = {},
  nowMs = Date.now(),
): OpenedCacheDatabase {
  mkdirSync(dirname(file), { recursive: true });
  // Damaged copies an earlier version moved aside are in the clear: they go.
  if (options.key !== undefined) removeDamagedCopies(file);
  let recovery: CacheRecovery | null = null;
  let salvaged: Salvaged = {};
  if (existsSync(file)) {
    // A cache an earlier version wrote in the clear: checked as it is, then sealed.
    const plain = options.key !== undefined && isPlainSqlite(file);
    const checked = plain ? { ...options, key: undefined } : options;
    const damage = damageOf(file, checked);
    if (damage === undefined && plain) {
      sealPlainCache(file, {
        key: options.key!,
        nativeBinding: options.nativeBinding,
        onStep: options.onConversionStep,
      });
    } else if (damage !== undefined) {
      salvaged = salvage(file, checked);
      recovery = {
        reason: damage,
        movedTo: moveAside(file, nowMs, options),
        salvagedCreatedRanges: count(salvaged, ['created_ranges']),
        salvagedReviewMarks: count(salvaged, ['review_records', 'review_conversations']),
        salvagedSpeakerNames: count(salvaged, ['speaker_overlays']),
      };
    }
  }
  const migrations = options.migrations ?? MIGRATIONS;
  const db = connect(file, options);
  try {
    // Refuse a newer cache before touching it (not even a pragma that writes).
    const latest = migrations.at(-1)?.version ?? 0;
    const version = schemaVersion(db);
    if (version > latest) throw new CacheTooNewError(file, version, latest);
    configure(db);
    const target = options.targetVersion ?? latest;
    // A new file (version 0) is made in an instant; only data waits.
    if (version > 0 && version < target)
      options.onUpgrade?.({ fromVersion: version, toVersion: target });
    migrate(db, file, migrations, target);
    db.transaction(() => {
      for (const [table, rows] of Object.entries(salvaged)) {
        const columns = SALVAGED_TABLES[table as SalvagedTable];
        const insert = `INSERT OR IGNORE INTO ${table} (${columns.join(', ')})
          VALUES (${columns.map((c) => `@${c}`).join(', ')})`;
        for (const row of rows) run(db, insert, row);
      }
    })();
    return { db, file, recovery };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A read-only connection to a cache the writer has already opened and migrated. */
export function openCacheReader(file: string, options: CacheDatabaseOptions = {}): Db {
  const db = connect(file, options, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  // This connection writes nothing; set anyway, so no connection to the file ever frees a page
  // without zeroing it.
  db.pragma('secure_delete = ON');
  const latest = (options.migrations ?? MIGRATIONS).at(-1)?.version ?? 0;
  if (schemaVersion(db) !== latest) {
    db.close();
    throw new Error(`The cache ${file} is not at schema ${latest}: open the writer first.`);
  }
  return db;
}

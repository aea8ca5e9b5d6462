import Database from 'better-sqlite3-multiple-ciphers';
import { closeSync, fsyncSync, openSync, readSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A cache an earlier version of Earmark wrote in the clear, sealed on the first start of this
 * one. Crash-safe: the sealed copy is made beside the file (`<file>.encrypting`) and takes the
 * file's name by a rename, so a kill at any point leaves the old cache or the new one, never
 * neither, and the next start, finding the old one, starts the copy again.
 */

/** The first 16 bytes of every SQLite file written in the clear. */
const PLAIN_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether `file` is a SQLite database in the clear (an encrypted one starts with its salt). */
export function isPlainSqlite(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(PLAIN_HEADER.length);
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(PLAIN_HEADER);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Where a conversion has got to, for the crash tests: the sealed copy is whole but still in the
 * clear (`copied`), sealed (`sealed`), and has taken the cache's name (`renamed`).
 */
export type ConversionStep = 'copied' | 'sealed' | 'renamed';

export interface SealOptions {
  /** The database's raw key (`x'…'`, AccountKey.databaseKey). */
  key: string;
  nativeBinding?: string;
  /** Called at each step (the crash tests stop the process there). */
  onStep?: (step: ConversionStep) => void;
}

/** The sealed copy's name while it is made (deleteCacheFiles removes a killed run's too). */
const SEALING_SUFFIX = '.encrypting';
const sealingCopyOf = (file: string) => `${file}${SEALING_SUFFIX}`;
const quoted = (path: string) => `'${path.replace(/'/g, "''")}'`;

function flush(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function flushFolder(folder: string): void {
  try {
    flush(folder);
  } catch {
    // Windows cannot open a folder to flush it; NTFS journals the rename itself.
  }
}

/**
 * Seals the plain cache at `file` under `key`: a compact copy of it (VACUUM INTO, which reads
 * one consistent state, the WAL included) is made beside it, encrypted in place there (rekey),
 * flushed, and renamed over it. Before the rename the old file's WAL is emptied into it and
 * removed (a WAL left beside the new file would be replayed into it). A copy a killed run left
 * is dropped first.
 */
export function sealPlainCache(file: string, { key, nativeBinding, onStep }: SealOptions): void {
  const copy = sealingCopyOf(file);
  for (const leftover of [copy, `${copy}-journal`, `${copy}-wal`, `${copy}-shm`])
    rmSync(leftover, { force: true });
  const plain = new Database(file, { fileMustExist: true, nativeBinding });
  try {
    plain.exec(`VACUUM INTO ${quoted(copy)}`);
    onStep?.('copied');
    const sealing = new Database(copy, { fileMustExist: true, nativeBinding });
    try {
      sealing.pragma(`rekey = "${key}"`);
    } finally {
      sealing.close();
    }
    flush(copy);
    onStep?.('sealed');
    // Every committed transaction into the old file itself, so its WAL holds nothing more.
    const [checkpoint] = plain.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (checkpoint && checkpoint.busy !== 0)
      throw new Error(`The cache ${file} is in use: it cannot be sealed now.`);
  } finally {
    plain.close();
  }
  for (const side of ['-wal', '-shm']) rmSync(`${file}${side}`, { force: true });
  renameSync(copy, file);
  flushFolder(dirname(file));
  onStep?.('renamed');
}

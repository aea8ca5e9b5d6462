import Database from 'better-sqlite3-multiple-ciphers';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { MIGRATIONS } from './schema';
import { get, run } from '../../node-common/sql';

export type ServiceDatabase = Database.Database;

export const DATABASE_FILE = 'service.sqlite';

/**
 * Opens (creating if needed) the service database in `dataDir`, WAL mode, migrated to the latest
 * version. `nativeBinding` names the SQLite addon when the default one is built for another
 * runtime (Electron's ABI in the app; Node's in tests and the CLI).
 */
export function openServiceDatabase(dataDir: string, nativeBinding?: string): ServiceDatabase {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, DATABASE_FILE), nativeBinding ? { nativeBinding } : {});
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

function migrate(db: ServiceDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
  if (current > latest) {
    throw new Error(
      `The service database is at schema version ${current}, newer than this build supports (${latest}). ` +
        'Use a newer Earmark or another --data folder.',
    );
  }
  for (const step of MIGRATIONS) {
    if (step.version <= current) continue;
    db.transaction(() => {
      db.exec(step.sql);
      db.pragma(`user_version = ${step.version}`);
    })();
  }
}

export function readMeta(db: ServiceDatabase, key: string): string | undefined {
  const row = get<{ value: string }>(db, 'SELECT value FROM meta WHERE key = ?', key);
  return row?.value;
}

export function writeMeta(db: ServiceDatabase, key: string, value: string): void {
  run(
    db,
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    [key, value],
  );
}

import type { Db } from '../../node-common/sql';

/**
 * One schema version. `up` runs inside a transaction together with the `user_version` bump, so a
 * crash mid-migration leaves the previous version whole. Migrations are never edited once
 * released: a change is a new file.
 */
export interface Migration {
  version: number;
  name: string;
  up(db: Db): void;
}

/** A cache written by a newer Earmark: its schema is unknown here, so it is left as it is. */
export class CacheTooNewError extends Error {
  override readonly name = 'CacheTooNewError';
  constructor(
    readonly file: string,
    readonly fileVersion: number,
    readonly appVersion: number,
  ) {
    super(
      `The offline cache ${file} was written by a newer version of Earmark (cache schema ` +
        `${fileVersion}; this version knows schemas up to ${appVersion}). Update Earmark to use ` +
        'it, or delete the file to rebuild the cache from the clinic service.',
    );
  }
}

export const schemaVersion = (db: Db): number =>
  db.pragma('user_version', { simple: true }) as number;

/**
 * Brings `db` to `target` (the newest migration by default), one transaction per version.
 * Refuses a database newer than the newest migration it knows.
 */
export function migrate(
  db: Db,
  file: string,
  migrations: readonly Migration[],
  target = migrations.at(-1)?.version ?? 0,
): number {
  const latest = migrations.at(-1)?.version ?? 0;
  const current = schemaVersion(db);
  if (current > latest) throw new CacheTooNewError(file, current, latest);
  for (const migration of migrations) {
    if (migration.version <= current || migration.version > target) continue;
    db.transaction(() => {
      migration.up(db);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
  return schemaVersion(db);
}

import { get, run, type Db } from '../../node-common/sql';

/** A sync stream's saved state, written in the same transaction as the data it describes. */
export interface SyncStateWrite {
  stream: string;
  /** Any JSON value; null deletes the stream's state. */
  value: unknown;
  at: number;
}

export function saveSyncState(db: Db, state: SyncStateWrite): void {
  if (state.value === null) {
    run(db, 'DELETE FROM sync_state WHERE stream = ?', state.stream);
    return;
  }
  run(
    db,
    `INSERT INTO sync_state (stream, state, updated_at) VALUES (@stream, @state, @at)
     ON CONFLICT (stream) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`,
    { stream: state.stream, state: JSON.stringify(state.value), at: state.at },
  );
}

export const syncStateWrites = {
  saveSyncState(db: Db, state: SyncStateWrite): void {
    saveSyncState(db, state);
  },
};

export const syncStateReads = {
  /** The saved state of a stream (the caller knows its shape), or null. */
  syncState(db: Db, stream: string): unknown {
    const row = get<{ state: string }>(db, 'SELECT state FROM sync_state WHERE stream = ?', stream);
    return row ? (JSON.parse(row.state) as unknown) : null;
  },
};

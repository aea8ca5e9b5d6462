import { Type } from '@sinclair/typebox';
import type { SearchHit } from '../search';
import { channel, None } from './channel';

/** The background sync of the active account's cache. */
export interface SyncStatus {
  state: 'idle' | 'running' | 'offline' | 'failed';
  /** Work done and known so far in the current run (labels listed, notes fetched, …). */
  done: number;
  total: number;
  /** When the last complete run finished, ISO 8601; null before the first. */
  lastSyncAt: string | null;
  /** Why the last run did not complete, in plain words. */
  message: string | null;
  /**
   * How far back search reaches: every record the sync brings has its transcripts and notes on
   * this computer (`searchComplete`), or every record starting at or after `searchableFrom`
   * (ISO 8601) has; null while not known (the first sync has not listed far yet). The sync goes
   * newest first, so this moves back as it goes on.
   */
  searchableFrom: string | null;
  searchComplete: boolean;
}

/** The offline cache: its background sync, and the search over everything in it. */
export const SYNC_CHANNELS = {
  /** Starts a sync of the active account now (if none is running) and answers its status. */
  'sync.run': channel<SyncStatus>()(None),
  'sync.status': channel<SyncStatus>()(None),
  /** Full-text search over everything cached (works offline): ranked, with marked snippets. */
  search: channel<SearchHit[]>()(
    Type.Object(
      {
        query: Type.String({ maxLength: 200 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      },
      { additionalProperties: false },
    ),
  ),
} as const;

import { Type } from '@sinclair/typebox';
import type { SearchHit } from '../search';
import { AccountId } from './accounts';
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
  /**
   * The offline copy is being brought up to this version of Earmark: once after an update, and it
   * may take minutes at a hospital's size (a migration rebuilding the search's index). Lists and
   * search wait for it.
   */
  upgrading: boolean;
  /**
   * The offline copy was found damaged (as it opened, or by its weekly check) and started anew:
   * it is being filled again from the clinic service, until a sync completes. What only it held
   * that could be read (review marks, speaker names, ranges) was kept.
   */
  rebuilding: boolean;
}

/** Why what this computer keeps of an account cannot be read. */
export type LockReason =
  /** The key is not in this computer's keychain (reset, or the folder came from elsewhere). */
  | 'key_missing'
  /** The keychain holds another key than the one the data was sealed with. */
  | 'key_wrong';

/**
 * The active account's offline copy (its cache and cached audio), sealed with a key this
 * computer cannot give: shut until the user chooses to start a new one (cache.startFresh).
 */
export interface LockedCache {
  accountId: string;
  organizationName: string;
  reason: LockReason;
}

/** The offline cache: its background sync, and the search over everything in it. */
export const SYNC_CHANNELS = {
  /** Starts a sync of the active account now (if none is running) and answers its status. */
  'sync.run': channel<SyncStatus>()(None),
  'sync.status': channel<SyncStatus>()(None),
  /** Whether the active account's offline copy is locked (its key gone), and why; null if not. */
  'cache.locked': channel<LockedCache | null>()(None),
  /**
   * The user agreed: the locked offline copy of the account is deleted (what only it held — the
   * ranges created here, review marks, speaker names — goes with it), a new key made, and a new
   * copy filled from the clinic service. Refused unless the account is the active one and locked.
   */
  'cache.startFresh': channel<null>()(
    Type.Object({ accountId: AccountId }, { additionalProperties: false }),
  ),
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

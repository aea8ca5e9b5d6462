import type { EventName, IpcEvents, LockedCache, SyncStatus } from '../shared/ipc';
import type { AccountService } from './accounts/accounts';
import type { Administration } from './admin/administration';
import type { ActiveService } from './connection/active-service';
import type { AudioPreparation } from './audio/prepare';
import type { ShellCapabilities } from './base/capabilities';
import type { Cache } from './cache';
import type { ConversationFollower } from './conversations/follow';
import type { Conversations } from './conversations/conversations';
import type { DemoClinic } from './accounts/demo-clinic';
import type { Exports } from './export/exports';
import type { FollowUps } from './follow-ups/follow-ups';
import type { Hub } from './hub/hub';
import type { Recordings } from './recordings/recordings';
import type { SpeakerNames } from './recordings/speaker-names';
import type { TimedTranscripts } from './recordings/timed-transcripts';
import type { Review } from './review/review';
import type { SignOffs } from './review/sign-off';
import type { PatientSuggestions } from './review/suggestions';
import type { Retention } from './retention/retention';

/**
 * Everything core.ts builds for the handlers, as one object. Each area's handler module takes
 * only the part it uses (`Pick<CoreContext, …>`, declared beside the handlers), so what an area
 * depends on is written in its signature.
 */
export interface CoreContext {
  /** Information about this app (AppInfo); never a reason to branch. */
  about: { version: string; shell: 'electron' | 'browser' };
  shell: ShellCapabilities;
  accounts: AccountService;
  /**
   * Deletes what this computer holds of a removed account: its scope closed, then its cache,
   * audio and unfinished exports (AccountScopes.removeEverything, account-scope.ts).
   */
  forgetAccountData(accountId: string): Promise<void>;
  /** How long the active clinic's data stays here; kept records; removing it. */
  retention: Retention;
  demo: DemoClinic;
  emit<E extends EventName>(event: E, payload: IpcEvents[E]): void;
  /** The active account's service: calls, reads with cached data, the connection status. */
  service: Pick<ActiveService, 'call' | 'read' | 'connection'>;
  /** The active account's cache (its scope's, opened on first use). */
  cache(): Promise<Cache>;
  /** Where exports go unless the user picks another folder (the folder dialog starts there). */
  defaultExportFolder(): string;
  /** Starts a sync of the active account unless one runs; answers the status. */
  sync(): SyncStatus;
  syncStatus(): SyncStatus;
  /** Whether the active account's offline copy is locked (its key gone or another), and why. */
  cacheLocked(): Promise<LockedCache | null>;
  /** The user agreed: a new offline copy for the locked account (AccountScopes.startFresh). */
  startFreshCache(accountId: string): Promise<void>;
  hub: Hub;
  recordings: Recordings;
  /** A hub record's transcript lines with their times (the record view, export). */
  timedTranscripts: TimedTranscripts;
  /** Speaker names on records' transcripts (the cache's overlay; issue 28). */
  speakerNames: SpeakerNames;
  conversations: Conversations;
  /** The active account's follower (its scope's). */
  conversationFollower: Pick<ConversationFollower, 'follow'>;
  exports: Exports;
  followUps: FollowUps;
  audio: AudioPreparation;
  administration: Administration;
  /** The review queue, this user's marks and the review settings (the account's cache). */
  review: Review;
  /** Clinic sign-off through the task boards. */
  signOffs: SignOffs;
  patientSuggestions: PatientSuggestions;
}

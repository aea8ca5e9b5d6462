import type { ConnectionStatus, EventName, IpcEvents, SyncStatus } from '../shared/ipc';
import type { Cache, CacheReader, CacheWriter } from './cache';
import type { AccountService } from './accounts/accounts';
import type { AudioCache } from './audio/audio-cache';
import type { CoreOptions } from './core';
import type { DemoClinic } from './demo-clinic';
import type { ServiceClient } from './service-client';

/** What every handler group of the core is given. */
export interface CoreContext {
  options: CoreOptions;
  accounts: AccountService;
  demo: DemoClinic;
  emit<E extends EventName>(event: E, payload: IpcEvents[E]): void;
  connection(): ConnectionStatus;
  /** The active account's audio cache (one folder per account). */
  audioCache(): Promise<AudioCache>;
  /**
   * Runs a call on the active account's service, keeping the connection status current. With
   * `offline`, an unreachable service is answered from the cache instead (when it holds an answer).
   */
  withService<T>(
    call: (service: ServiceClient) => Promise<T>,
    offline?: (cache: CacheReader) => Promise<T | null | undefined>,
  ): Promise<T>;
  /** The active account's cache (opened on first use). */
  cache(): Promise<Cache>;
  /** Keeps what the service answered in the active account's cache; a cache failure never fails the call. */
  remember(write: (writer: CacheWriter) => Promise<unknown>): Promise<void>;
  /** Where exports go unless the user picks another folder (the folder dialog starts there). */
  defaultExportFolder(): string;
  /** Registers work to stop when the app closes, before its caches and client close. */
  onClose(stop: () => Promise<void>): void;
  /** Starts a sync of the active account unless one runs; answers the status. */
  sync(): SyncStatus;
  syncStatus(): SyncStatus;
}

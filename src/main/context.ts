import type { ConnectionStatus, EventName, IpcEvents } from '../shared/ipc';
import type { AccountService } from './accounts/accounts';
import type { AudioCache } from './audio/audio-cache';
import type { CoreOptions } from './core';
import type { DemoClinic } from './demo-clinic';
import type { CreatedRangeStore } from './hub/created-ranges';
import type { ServiceClient } from './service-client';

/** What every handler group of the core is given. */
export interface CoreContext {
  options: CoreOptions;
  accounts: AccountService;
  demo: DemoClinic;
  ranges: CreatedRangeStore;
  emit<E extends EventName>(event: E, payload: IpcEvents[E]): void;
  connection(): ConnectionStatus;
  /** The active account's audio cache (one folder per account). */
  audioCache(): Promise<AudioCache>;
  /** Runs a call on the active account's service, keeping the connection status current. */
  withService<T>(call: (service: ServiceClient) => Promise<T>): Promise<T>;
}

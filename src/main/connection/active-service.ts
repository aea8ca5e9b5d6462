import type { ConnectionStatus, IpcError, ReadSource, Sourced } from '../../shared/ipc';
import type { AccountService } from '../accounts/accounts';
import type { Cache } from '../cache';
import { classify } from '../service-client/failures';
import type { DemoClinic } from '../accounts/demo-clinic';
import { readSourced, type SourcedRead } from './offline';
import { translateServiceError, type ServiceClient } from '../service-client/connect';
import type { SyncResult } from '../sync';

export interface ActiveServiceDeps {
  accounts: AccountService;
  demo: DemoClinic;
  connect: (baseUrl: string, apiKey: string) => ServiceClient;
  cache: () => Promise<Cache>;
  /** The connection's state changed (connection.changed). */
  changed: (status: ConnectionStatus) => void;
  /** The service answered a call (the first answer of an account starts its sync). */
  answered: () => void;
  log: (message: string) => void;
}

/**
 * The active account's service: its client (made again only when the account, its address or
 * its key changes), every call through `call` (so the connection status follows each answer),
 * and reads with cached data through `read` (the offline policy, offline.ts).
 */
export class ActiveService {
  private status: ConnectionStatus = { state: 'unknown', lastError: null, checkedAt: null };
  private current:
    { accountId: string; baseUrl: string; apiKey: string; client: ServiceClient } | undefined;

  constructor(private readonly deps: ActiveServiceDeps) {}

  connection(): ConnectionStatus {
    return this.status;
  }

  private setConnection(state: ConnectionStatus['state'], lastError: IpcError | null): void {
    this.status = { state, lastError, checkedAt: new Date().toISOString() };
    this.deps.changed(this.status);
  }

  /** The active account's client. */
  async client(): Promise<ServiceClient> {
    const { account, apiKey } = this.deps.accounts.active();
    const baseUrl = account.demo ? await this.deps.demo.baseUrl() : account.baseUrl;
    const current = this.current;
    if (
      current?.accountId !== account.id ||
      current.baseUrl !== baseUrl ||
      current.apiKey !== apiKey
    ) {
      this.current = {
        accountId: account.id,
        baseUrl,
        apiKey,
        client: this.deps.connect(baseUrl, apiKey),
      };
      await current?.client.close();
    }
    return this.current!.client;
  }

  /** Runs a call on the active account's service and keeps the connection status current. */
  async call<T>(call: (service: ServiceClient) => Promise<T>): Promise<T> {
    const service = await this.client();
    try {
      const result = await call(service);
      if (this.status.state !== 'online') this.setConnection('online', null);
      this.deps.answered();
      return result;
    } catch (error) {
      const translated = translateServiceError(error);
      const failure = classify(error);
      if (translated && failure === 'unreachable') {
        this.setConnection('offline', translated);
      } else if (translated && failure === 'key_refused') {
        if (this.status.state !== 'refused' || this.status.lastError?.kind !== translated.kind)
          this.setConnection('refused', translated);
      } else if ((failure === 'busy' || failure === 'answered') && this.status.state !== 'online') {
        // An error answer (even an unreadable one) still shows the service can be reached.
        this.setConnection('online', null);
      }
      throw error;
    }
  }

  /**
   * How a background sync ended. While the user only reads, the sync is the app's one contact
   * with the service: what it finds is the connection's state too (an offline app comes back
   * when a sync completes).
   */
  syncEnded({ outcome, error }: Pick<SyncResult, 'outcome' | 'error'>): void {
    if (outcome === 'offline' && error) {
      const { name: _name, ...lastError } = error;
      this.setConnection('offline', lastError);
    } else if (outcome === 'complete' && this.status.state !== 'online') {
      this.setConnection('online', null);
    }
  }

  /** A read with cached data, through the offline policy. */
  read<T>(read: SourcedRead<T>, from: ReadSource = 'service'): Promise<Sourced<T>> {
    return readSourced(
      {
        ask: (call) => this.call(call),
        cache: this.deps.cache,
        now: Date.now,
        log: this.deps.log,
      },
      read,
      from,
    );
  }

  async close(): Promise<void> {
    await this.current?.client.close();
  }
}

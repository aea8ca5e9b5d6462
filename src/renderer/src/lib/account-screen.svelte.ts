import type { DiagnosticsReport, EarmarkApi, IpcError } from '../../../shared/ipc';
import { isKeyRefusal } from '../../../shared/ipc/constants';
import type { AccountsStore } from './accounts.svelte';

/**
 * The account section of Settings: what the service says of the key shown (asked each time an
 * account is shown), the step-by-step diagnostics, and a new key for a demo whose key was refused.
 */
export class AccountScreenStore {
  /** The service's answer to "who am I" with this key, when it was an error. */
  checkError = $state<IpcError | null>(null);
  diagnosing = $state(false);
  report = $state.raw<DiagnosticsReport | null>(null);
  diagnoseError = $state<IpcError | null>(null);
  renewing = $state(false);
  renewError = $state<IpcError | null>(null);
  /** Only the last account shown may set checkError (a slow answer for the one before may not). */
  private shown = 0;

  constructor(
    private readonly api: EarmarkApi,
    private readonly accounts: AccountsStore,
  ) {}

  /** An account is shown: what was said of the one before goes, and the service is asked. */
  async show(): Promise<void> {
    const shown = ++this.shown;
    this.checkError = null;
    this.report = null;
    this.diagnoseError = null;
    this.renewError = null;
    const result = await this.api.invoke('identity.me', {});
    if (shown === this.shown) this.checkError = result.ok ? null : result.error;
  }

  /** The refusal of the key to say: the connection's, else the one this screen's check met. */
  keyRefusal(connectionRefusal: IpcError | null): IpcError | null {
    return connectionRefusal ?? (isKeyRefusal(this.checkError) ? this.checkError : null);
  }

  /** Diagnoses the connection of the active account, step by step. */
  async diagnose(): Promise<void> {
    this.diagnosing = true;
    this.diagnoseError = null;
    const result = await this.api.invoke('accounts.diagnose', {});
    this.diagnosing = false;
    if (result.ok) this.report = result.value;
    else this.diagnoseError = result.error;
  }

  /** Opening the demo with a refused key makes it a new one (main's openDemoAccount). */
  async renewDemoKey(): Promise<void> {
    this.renewing = true;
    this.renewError = null;
    const result = await this.accounts.openDemo();
    this.renewing = false;
    if (result.ok) this.checkError = null;
    else this.renewError = result.error;
  }
}

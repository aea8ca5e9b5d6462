import type { AccountSummary, IpcError } from '../../../shared/ipc';
import { earmark } from '../bridge';

/** The accounts the main process knows, kept current by its accounts.changed event. */
class AccountsState {
  list = $state<AccountSummary[]>([]);
  loaded = $state(false);
  error = $state<IpcError | null>(null);
  active = $derived(this.list.find((a) => a.active) ?? null);

  constructor() {
    earmark.on('accounts.changed', (list) => {
      this.list = list;
    });
  }

  async load(): Promise<void> {
    const result = await earmark.invoke('accounts.list', {});
    if (result.ok) this.list = result.value;
    else this.error = result.error;
    this.loaded = true;
  }
}

export const accounts = new AccountsState();

/** Days until `iso`, rounded down; negative when past. */
export const daysUntil = (iso: string, now = Date.now()) =>
  Math.floor((Date.parse(iso) - now) / 86_400_000);

/** A key expiring within this many days gets a warning. */
export const EXPIRY_WARNING_DAYS = 14;

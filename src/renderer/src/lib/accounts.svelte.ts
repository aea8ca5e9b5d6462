import type {
  AccountSummary,
  ChannelInput,
  EarmarkApi,
  IpcError,
  IpcResult,
} from '../../../shared/ipc';

/** The key the contract takes is at least this long; real keys are far longer. */
const MIN_KEY_LENGTH = 8;

/** What is wrong with a connect form's values, in the user's words; null when nothing is. */
export function connectProblem({
  baseUrl,
  apiKey,
}: {
  baseUrl: string;
  apiKey: string;
}): string | null {
  if (baseUrl.trim() === '') return 'Enter the service address from your clinic’s portal.';
  if (apiKey.trim() === '') return 'Enter the API key from your clinic’s portal.';
  if (apiKey.trim().length < MIN_KEY_LENGTH)
    return 'That API key is too short: copy the whole key from your clinic’s portal.';
  return null;
}

/** The accounts the main process knows, kept current by its accounts.changed event. */
export class AccountsStore {
  list = $state<AccountSummary[]>([]);
  loaded = $state(false);
  error = $state<IpcError | null>(null);
  active = $derived(this.list.find((a) => a.active) ?? null);
  /** The account just connected, whose key's reach is said once (then dismissed). */
  connected = $state<AccountSummary | null>(null);

  constructor(private readonly api: EarmarkApi) {
    api.on('accounts.changed', (list) => {
      this.list = list;
    });
  }

  async load(): Promise<void> {
    const result = await this.api.invoke('accounts.list', {});
    if (result.ok) this.list = result.value;
    else this.error = result.error;
    this.loaded = true;
  }

  /** Connects an account (its key goes to the keychain unless `sessionOnly`); it becomes active. */
  async add(input: ChannelInput<'accounts.add'>): Promise<IpcResult<AccountSummary>> {
    const problem = connectProblem(input);
    if (problem) return { ok: false, error: { kind: 'invalid_input', message: problem } };
    const result = await this.api.invoke('accounts.add', {
      ...input,
      baseUrl: input.baseUrl.trim(),
      apiKey: input.apiKey.trim(),
    });
    if (result.ok) this.connected = result.value;
    return result;
  }

  dismissConnected(): void {
    this.connected = null;
  }

  /** Opens the demo clinic on this computer, as an account. */
  async openDemo(): Promise<IpcResult<AccountSummary>> {
    return this.api.invoke('accounts.openDemo', {});
  }

  async activate(accountId: string): Promise<void> {
    await this.api.invoke('accounts.activate', { accountId });
  }

  /**
   * What the last removal could not do, in main's words: the account stayed (nothing removed), or
   * it went but the keychain kept its key for now (`keychain_unavailable`). Null once said.
   */
  removalProblem = $state<IpcError | null>(null);

  /** Removes the account; its key is deleted from the keychain. */
  async remove(accountId: string): Promise<void> {
    const result = await this.api.invoke('accounts.remove', { accountId });
    this.removalProblem = result.ok ? null : result.error;
  }

  dismissRemovalProblem(): void {
    this.removalProblem = null;
  }

  /**
   * The service refused the active account's key (revoked, expired, not valid) or it is gone from
   * this computer: the account needs a new key, and says why. Null while the key is fine.
   */
  keyProblem(account: AccountSummary, connectionRefusal: IpcError | null): string | null {
    if (!account.hasKey)
      return 'The key of this account is gone from this computer (it was kept until Earmark quit).';
    if (connectionRefusal)
      return `The clinic service refused this account's key: ${connectionRefusal.message}`;
    return null;
  }
}

/** Days until `iso`, rounded down; negative when past. */
export const daysUntil = (iso: string, now = Date.now()) =>
  Math.floor((Date.parse(iso) - now) / 86_400_000);

/** A key expiring within this many days gets a warning. */
export const EXPIRY_WARNING_DAYS = 14;

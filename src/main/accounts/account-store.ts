import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AccountRecord } from '../../shared/ipc';
import { writeFileAtomicSync } from '../base/atomic-write';

/** What is remembered of an account between runs. Never the key: that is in the keychain. */
export type StoredAccount = AccountRecord;

interface AccountsFile {
  version: 1;
  activeId: string | null;
  accounts: StoredAccount[];
  /** Removed accounts whose keychain entries could not be deleted yet (ids only, never keys). */
  keysToDelete?: string[];
}

const EMPTY: AccountsFile = { version: 1, activeId: null, accounts: [] };

/** accounts.json in the app's data folder, rewritten atomically on every change. */
export class AccountStore {
  private state: AccountsFile;

  constructor(private readonly path: string) {
    this.state = existsSync(path) ? this.read() : structuredClone(EMPTY);
  }

  private read(): AccountsFile {
    const parsed = JSON.parse(readFileSync(this.path, 'utf8')) as Partial<AccountsFile>;
    if (parsed.version !== 1 || !Array.isArray(parsed.accounts)) {
      throw new Error(
        `${this.path} is not an Earmark accounts file of a version this build reads.`,
      );
    }
    return {
      version: 1,
      activeId: parsed.activeId ?? null,
      accounts: parsed.accounts,
      ...(parsed.keysToDelete?.length ? { keysToDelete: parsed.keysToDelete } : {}),
    };
  }

  get accounts(): readonly StoredAccount[] {
    return this.state.accounts;
  }

  get activeId(): string | null {
    return this.state.activeId;
  }

  get keysToDelete(): readonly string[] {
    return this.state.keysToDelete ?? [];
  }

  /** Applies a change and saves it; the in-memory state changes only if the save succeeds. */
  update(change: (state: AccountsFile) => AccountsFile): void {
    const next = change(structuredClone(this.state));
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomicSync(this.path, `${JSON.stringify(next, null, 2)}\n`);
    this.state = next;
  }
}

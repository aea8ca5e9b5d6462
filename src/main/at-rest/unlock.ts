import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LockReason } from '../../shared/ipc';
import { writeFileAtomic } from '../base/atomic-write';
import { AppError } from '../base/errors';
import { AccountKey } from './account-key';

/**
 * Which key opens what this computer keeps of an account, decided before its cache or audio
 * opens. The key is in the keychain beside the account's API key; beside the cache lies its
 * check (AccountKey.check: tells the key from another, reveals nothing of it). Data sealed with
 * a key the keychain no longer has (the keychain was reset, the folder came from another
 * computer) or with another key is never opened, overwritten or deleted before the user agrees:
 * the account's caches stay shut (CacheLockedError) until they choose to start again.
 */

/** The account's data is sealed with a key this computer cannot give. */
export class CacheLockedError extends AppError {
  constructor(
    readonly reason: LockReason,
    organizationName: string,
  ) {
    super(
      'cache_locked',
      reason === 'key_missing'
        ? `What Earmark keeps of ${organizationName} on this computer is locked with a key that is no longer in this computer's keychain (the keychain was reset, or the data folder came from another computer), so it cannot be read. Earmark works from the clinic service meanwhile; choose "Start a fresh cache" to read offline again.`
        : `What Earmark keeps of ${organizationName} on this computer is locked with another key than the one in this computer's keychain, so it cannot be read. Earmark works from the clinic service meanwhile; choose "Start a fresh cache" to read offline again.`,
    );
  }
}

export interface UnlockFacts {
  /** The key the keychain keeps for the account (a session account's: derived, always). */
  stored: Buffer | undefined;
  /** Whether sealed data of the account is on disk (an encrypted cache, sealed audio). */
  sealedData: boolean;
  /** The check written beside the cache, if any. */
  keyCheck: string | undefined;
}

export type UnlockDecision =
  /** The stored key (its check written beside the cache when missing or stale). */
  | { kind: 'use'; key: AccountKey }
  /** A new key: no sealed data (a new account, or the first start after a plain cache). */
  | { kind: 'create' }
  | { kind: 'locked'; reason: LockReason };

/** The rule, from what is on disk and in the keychain. */
export function decideUnlock({ stored, sealedData, keyCheck }: UnlockFacts): UnlockDecision {
  const key = stored && AccountKey.from(stored);
  // Nothing sealed lies there: a check left by data since deleted says nothing.
  if (!sealedData) return key ? { kind: 'use', key } : { kind: 'create' };
  if (!key) return { kind: 'locked', reason: 'key_missing' };
  if (keyCheck !== undefined && keyCheck !== key.check())
    return { kind: 'locked', reason: 'key_wrong' };
  return { kind: 'use', key };
}

export interface UnlockDeps {
  /**
   * The account's key as kept (undefined: none); throws keychain_unavailable when the keychain
   * is out of reach, key_missing when a session account's API key is not given yet.
   */
  stored(): Buffer | undefined;
  /** Keeps a new key beside the account's API key. */
  keep(key: Buffer): void;
  /** Whether sealed data of the account is on disk (an encrypted cache, sealed audio). */
  sealedData: boolean;
  /** Where the key's check lies (beside the cache). */
  keyCheckFile: string;
  organizationName: string;
}

/** The account's key, made and kept when it has none yet; CacheLockedError when it is gone. */
export async function unlockAccount(deps: UnlockDeps): Promise<AccountKey> {
  const keyCheck = await readFile(deps.keyCheckFile, 'utf8').then(
    (text) => text.trim(),
    () => undefined,
  );
  const decision = decideUnlock({ stored: deps.stored(), sealedData: deps.sealedData, keyCheck });
  if (decision.kind === 'locked')
    throw new CacheLockedError(decision.reason, deps.organizationName);
  let key: AccountKey;
  if (decision.kind === 'use') {
    key = decision.key;
  } else {
    const made = AccountKey.random();
    deps.keep(made.bytes);
    key = made.key;
  }
  if (keyCheck !== key.check()) {
    await mkdir(dirname(deps.keyCheckFile), { recursive: true });
    await writeFileAtomic(deps.keyCheckFile, `${key.check()}\n`);
  }
  return key;
}

import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DemoCredentials } from '../../service/demo/identity-seed';
import { CREDENTIALS_FILE, credentialsFile, type CredentialsKeeper } from '../../service/sandbox';
import type { SecretStore } from './secret-store';

/**
 * The keychain entry holding the credentials of the demo clinic in `demoDir`: one per folder
 * (another data folder has another clinic). Not an account id, which has no dot.
 */
export const demoCredentialsEntry = (demoDir: string) =>
  `demo-clinic.${createHash('sha256').update(resolve(demoDir)).digest('hex').slice(0, 16)}`;

/**
 * The embedded demo clinic's credentials (its keys and its admin's password) in the keychain,
 * beside the accounts' keys, never in a file. Where there is no keychain they are kept for this
 * run only; a later run gets the demo account a new key (the sandbox renews it for the owner it
 * remembers). A credentials.json an earlier version left in the folder moves into the keychain.
 */
export function keychainCredentials(keychain: SecretStore, demoDir: string): CredentialsKeeper {
  const entry = demoCredentialsEntry(demoDir);
  let inMemory: DemoCredentials | undefined;
  const keep = (credentials: DemoCredentials): boolean => {
    inMemory = credentials;
    try {
      keychain.set(entry, JSON.stringify(credentials));
      return true;
    } catch {
      return false;
    }
  };
  return {
    read() {
      let stored: string | undefined;
      try {
        stored = keychain.get(entry);
      } catch {
        // No keychain now: what this run kept, or an earlier version's file (left in place).
      }
      if (stored !== undefined) return JSON.parse(stored) as DemoCredentials;
      const earlier = credentialsFile(demoDir).read();
      // Kept in the keychain now: the file goes (it stays only while there is no keychain).
      if (earlier && keep(earlier)) rmSync(join(demoDir, CREDENTIALS_FILE), { force: true });
      return earlier ?? inMemory;
    },
    write: (credentials) => void keep(credentials),
  };
}

import Database from 'better-sqlite3-multiple-ciphers';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { AccountKey } from '../../src/main/at-rest/account-key';
import { unsealBytes } from '../../src/main/at-rest/sealed-file';
import { cacheKeyEntry, type SecretStore } from '../../src/main/accounts/secret-store';
import { SEALED_COMMENTS } from '../../src/main/follow-ups/comment-store';

/** The account's key, as the keychain (a test's SessionSecretStore) keeps it. */
export function accountKeyIn(keychain: SecretStore, accountId: string): AccountKey {
  const stored = keychain.get(cacheKeyEntry(accountId));
  if (stored === undefined) throw new Error(`no key for ${accountId} in the keychain`);
  return AccountKey.from(Buffer.from(stored, 'base64'));
}

/** An account's cache database opened as the app opens it: its key given first. */
export function openWithKey(
  file: string,
  key: AccountKey,
  options?: Database.Options,
): Database.Database {
  const db = new Database(file, options);
  db.pragma(`key = "${key.databaseKey()}"`);
  return db;
}

/**
 * A reader of an account's files as whoever holds its key reads them (for filesHolding): what
 * retention removed must be gone from these too, not only from the ciphertext. The cache
 * database: a copy with its WAL folded in, decrypted whole — every page, free pages too (rekey
 * rewrites each one); its WAL is read through it. A sealed audio or peaks file, a comments file:
 * its plain bytes. Anything else (the shared memory, a partial file, the sealed index): as it is.
 */
export function readWithKey(key: AccountKey): (file: string) => Buffer {
  return (file) => {
    if (file.endsWith('.sqlite')) return decryptedDatabase(file, key);
    if (file.endsWith('.sqlite-wal')) return Buffer.alloc(0);
    const bytes = readFileSync(file);
    try {
      return basename(dirname(file)) === 'comments'
        ? key.unseal(SEALED_COMMENTS, bytes)
        : unsealBytes(key, bytes);
    } catch {
      return bytes;
    }
  };
}

function decryptedDatabase(file: string, key: AccountKey): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'earmark-decrypted-'));
  try {
    const copy = join(dir, 'cache.sqlite');
    copyFileSync(file, copy);
    if (existsSync(`${file}-wal`)) copyFileSync(`${file}-wal`, `${copy}-wal`);
    const db = new Database(copy);
    try {
      db.pragma(`key = "${key.databaseKey()}"`);
      db.pragma('journal_mode = DELETE');
      db.pragma(`rekey = ''`);
    } finally {
      db.close();
    }
    return readFileSync(copy);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

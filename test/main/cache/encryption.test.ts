import Database from 'better-sqlite3-multiple-ciphers';
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { openCache, type Cache } from '../../../src/main/cache';
import { isPlainSqlite } from '../../../src/main/cache/plain-cache';
import { filesHolding } from '../../support/files';
import { checkIndexes, label, note, T0, useTempDir } from './helpers';

/**
 * The cache encrypted at rest (issue 30): every page of the file and its WAL sealed under the
 * account's key (SQLite3 Multiple Ciphers, ChaCha20-Poly1305), full-text search as before, and a
 * cache an earlier version wrote in the clear sealed when this version first opens it.
 */

const tempDir = useTempDir('cache-encryption');
const PHRASE = 'Juniper has been limping since the agility trial';
const PATIENT = 'Juniper Quillfeather';
const RANGE = { conversationId: 'c-1', deviceId: 'hub-1', startMs: T0, endMs: T0 + 60_000 };

async function fill(cache: Cache): Promise<void> {
  await cache.write.storeLabels(
    [label(1, { patient: PATIENT, notes: [note(`Vet: ${PHRASE}.`, T0)] })],
    T0,
  );
  await cache.write.addCreatedRange({ ...RANGE, createdAt: new Date(T0).toISOString() });
}

async function searchable(cache: Cache): Promise<void> {
  const { hits } = await cache.read.search('limping agility');
  expect(hits.map((hit) => hit.kind === 'note' && hit.label.patientName)).toContain(PATIENT);
  expect((await cache.read.search('Quillfeather')).hits.length).toBeGreaterThan(0);
  expect(await cache.read.createdRange('c-1')).toMatchObject({ startMs: T0 });
}

describe('an encrypted cache', () => {
  it('searches as before, and no file of it holds a word of it, nor the SQLite header', async () => {
    const folder = tempDir();
    const file = join(folder, 'account.sqlite');
    const key = AccountKey.random().key.databaseKey();
    const cache = await openCache({ file, key });
    await fill(cache);
    await searchable(cache);
    // Written and live: the WAL holds the last transactions, sealed too.
    expect(readdirSync(folder)).toContain('account.sqlite-wal');
    expect(filesHolding(folder, [PHRASE, PATIENT, 'limping', 'SQLite format 3'])).toEqual([]);
    await cache.close();
    expect(filesHolding(folder, [PHRASE, PATIENT, 'limping', 'SQLite format 3'])).toEqual([]);

    // Opened again with its key, from the threads: all there.
    const again = await openCache({ file, key });
    expect(again.recovery).toBeNull();
    await searchable(again);
    await again.close();
    // Read by SQLite itself with the key: whole and consistent.
    const raw = new Database(file);
    raw.pragma(`key = "${key}"`);
    expect(raw.pragma('quick_check', { simple: true })).toBe('ok');
    checkIndexes(raw);
    raw.close();
  });

  it('is no database at all without its key', async () => {
    const folder = tempDir();
    const file = join(folder, 'account.sqlite');
    const cache = await openCache({ file, key: AccountKey.random().key.databaseKey() });
    await fill(cache);
    await cache.close();
    for (const key of [undefined, AccountKey.random().key.databaseKey()]) {
      const raw = new Database(file, { readonly: true });
      if (key) raw.pragma(`key = "${key}"`);
      expect(() => raw.prepare('SELECT count(*) FROM labels').get()).toThrow(
        /file is not a database/,
      );
      raw.close();
    }
  });
});

describe('a cache an earlier version wrote in the clear', () => {
  it('is sealed when this version first opens it: the same rows, searchable, nothing left readable', async () => {
    const folder = tempDir();
    const file = join(folder, 'account.sqlite');
    const plain = await openCache({ file, thread: 'main' });
    await fill(plain);
    await plain.close();
    // A damaged copy that version had moved aside, in the clear too.
    copyFileSync(file, `${file}.corrupt-2026-01-01T00-00-00-000Z`);
    writeFileSync(`${file}.corrupt-2026-01-01T00-00-00-000Z-wal`, PHRASE);
    expect(isPlainSqlite(file)).toBe(true);
    expect(filesHolding(folder, [PHRASE, 'SQLite format 3'])).not.toEqual([]);

    const key = AccountKey.random().key.databaseKey();
    const sealed = await openCache({ file, key });
    expect(sealed.recovery).toBeNull();
    await searchable(sealed);
    await sealed.close();
    expect(isPlainSqlite(file)).toBe(false);
    expect(readdirSync(folder).sort()).toEqual(['account.sqlite']);
    expect(filesHolding(folder, [PHRASE, PATIENT, 'limping', 'SQLite format 3'])).toEqual([]);

    // Opened again with the key: nothing to convert, the same rows.
    const again = await openCache({ file, key });
    await searchable(again);
    await again.close();
  });

  it('salvages what a plain file damaged before it could be sealed still holds, and deletes it', async () => {
    const folder = tempDir();
    const file = join(folder, 'account.sqlite');
    const plain = await openCache({ file, thread: 'main' });
    await fill(plain);
    await plain.close();
    // Its header destroyed: unreadable, and in the clear.
    const bytes = Buffer.alloc(100, 0x41);
    writeFileSync(file, bytes, { flag: 'r+' });
    const key = AccountKey.random().key.databaseKey();
    const cache = await openCache({ file, key });
    expect(cache.recovery).toMatchObject({ movedTo: null, reason: /unreadable/ });
    await cache.close();
    expect(readdirSync(folder).sort()).toEqual(['account.sqlite']);
    expect(existsSync(`${file}.encrypting`)).toBe(false);
    expect(filesHolding(folder, [PHRASE, PATIENT])).toEqual([]);
  });
});

import Database from 'better-sqlite3-multiple-ciphers';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCache } from '../../../src/main/cache';
import { checkParts, damageNoteOf, notedDamage } from '../../../src/main/cache/check';
import { openCacheDatabase } from '../../../src/main/cache/database';
import { damageMiddlePages, label, note, overwrite, PAGE, T0, useTempDir } from './helpers';

/**
 * The whole check of a cache's file (src/main/cache/check.ts): a table at a time on a thread of
 * its own, stopped between two tables, damage written down for the next open. Real SQLite files,
 * sealed and plain, damaged by writing over their pages.
 */

const tempDir = useTempDir('cache-check');
const KEY = `x'${'3c'.repeat(32)}'`;

/** A closed cache (its WAL checkpointed into the file) with notes worth indexing. */
async function filledCache(key?: string): Promise<string> {
  const file = join(tempDir(), 'account.sqlite');
  const cache = await openCache({ file, key, thread: 'main' });
  await cache.write.storeLabels(
    Array.from({ length: 300 }, (_, i) =>
      label(i, { notes: [note(`${'weight check and a booster '.repeat(30)} ${i}`, T0)] }),
    ),
    T0,
  );
  await cache.close();
  return file;
}

describe('the whole check of a cache', () => {
  it('checks the schema and every table, the full-text indexes through their own tables', () => {
    const { db } = openCacheDatabase(join(tempDir(), 'c.sqlite'));
    const parts = checkParts(db);
    db.close();
    expect(parts[0]).toBe('sqlite_schema');
    expect(parts).toEqual(expect.arrayContaining(['labels', 'notes', 'notes_fts_data']));
    // A virtual table's own check is FTS5's, over every doclist: not the file's health.
    expect(parts).not.toContain('notes_fts');
    expect(new Set(parts).size).toBe(parts.length);
  });

  it.each([
    ['sealed, in its own thread', KEY, 'worker'],
    ['plain, inline', undefined, 'main'],
  ] as const)('finds a sound file sound (%s) and writes nothing', async (_, key, thread) => {
    const file = await filledCache(key);
    const cache = await openCache({ file, key, thread });
    expect(await cache.checkWhole()).toEqual({ state: 'sound' });
    await cache.close();
    expect(existsSync(damageNoteOf(file))).toBe(false);
  });

  it.each([
    ['sealed, in its own thread', KEY, 'worker'],
    ['plain, inline', undefined, 'main'],
  ] as const)(
    'finds damaged pages of an open cache (%s), and writes them down for the next open',
    async (_, key, thread) => {
      const file = await filledCache(key);
      const cache = await openCache({ file, key, thread });
      damageMiddlePages(file);
      const found = await cache.checkWhole();
      expect(found).toEqual({
        state: 'damaged',
        reason: expect.stringMatching(/quick_check|unreadable/),
      });
      expect(notedDamage(file)).toBe((found as { reason: string }).reason);
      await cache.close();
      const reopened = await openCache({ file, key, thread });
      expect(reopened.recovery?.reason).toBe((found as { reason: string }).reason);
      expect(existsSync(damageNoteOf(file))).toBe(false);
      expect(await reopened.checkWhole()).toEqual({ state: 'sound' });
      await reopened.close();
    },
  );

  it('is not needed to find a damaged page a query meets: the query writes it down for the next open', async () => {
    const file = await filledCache();
    // The root page of the labels' table: the schema stays readable, so the file opens.
    const plain = new Database(file, { readonly: true });
    const { rootpage } = plain
      .prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'labels'")
      .get() as { rootpage: number };
    plain.close();
    overwrite(file, (rootpage - 1) * PAGE, Buffer.alloc(PAGE, 0x5a));
    const cache = await openCache({ file, thread: 'main' });
    expect(cache.recovery).toBeNull();
    await expect(cache.read.labels({ limit: 5 })).rejects.toThrow(/malformed|corrupt/i);
    expect(notedDamage(file)).toMatch(/^labels: .*(malformed|corrupt)/i);
    await cache.close();
    const reopened = await openCache({ file, thread: 'main' });
    expect(reopened.recovery?.reason).toMatch(/^labels: /);
    expect((await reopened.read.labels({ limit: 5 })).items).toEqual([]);
    await reopened.close();
  });

  it('stops between two tables when asked, and writes nothing', async () => {
    const file = await filledCache();
    damageMiddlePages(file);
    const cache = await openCache({ file });
    let asked = 0;
    // Asked before each table: the schema is checked, then it stops.
    const found = await cache.checkWhole(() => ++asked > 1);
    expect(found).toEqual({ state: 'stopped' });
    expect(asked).toBe(2);
    expect(existsSync(damageNoteOf(file))).toBe(false);
    await cache.close();
  });

  it('stops when the cache closes, which waits for its thread', async () => {
    const file = await filledCache(KEY);
    damageMiddlePages(file);
    const cache = await openCache({ file, key: KEY });
    let ended = false;
    const checking = cache.checkWhole().finally(() => (ended = true));
    await cache.close();
    expect(ended).toBe(true);
    expect(await checking).toEqual({ state: 'stopped' });
    expect(existsSync(damageNoteOf(file))).toBe(false);
    await expect(cache.checkWhole()).rejects.toThrow(/closed/);
  });
});

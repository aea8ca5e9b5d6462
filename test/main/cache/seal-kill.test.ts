import Database from 'better-sqlite3-multiple-ciphers';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { openCache } from '../../../src/main/cache';
import { isPlainSqlite } from '../../../src/main/cache/plain-cache';
import { filesHolding } from '../../support/files';
import { startChild } from '../audio/crash-child';
import { checkIndexes, label, note, T0, useTempDir } from './helpers';

/**
 * Sealing a plain cache killed with SIGKILL at several points (issue 30): copying, copied but
 * still in the clear, sealed but not yet renamed, renamed. Each time the file is the old cache
 * or the new one, whole, never neither; the next start finishes the job.
 */

const tempDir = useTempDir('seal-kill');
const PHRASE = 'Pickle swallowed a sock on Sunday';
const LABELS = 200;
/** Bulk beside the labels, so copying takes long enough to be killed in the middle. */
const PADDING_MB = 48;
const key = AccountKey.random().key.databaseKey();
let original: string;

beforeAll(async () => {
  original = join(tempDir(), 'plain.sqlite');
  const cache = await openCache({ file: original, thread: 'main' });
  await cache.write.storeLabels(
    Array.from({ length: LABELS }, (_, i) =>
      label(i, { notes: [note(`Vet: ${PHRASE}, number ${i}.`, T0)] }),
    ),
    T0,
  );
  await cache.close();
  const raw = new Database(original);
  raw.exec('CREATE TABLE padding (bytes BLOB)');
  const insert = raw.prepare('INSERT INTO padding (bytes) VALUES (?)');
  raw.transaction(() => {
    for (let i = 0; i < PADDING_MB * 16; i++) insert.run(randomBytes(64 * 1024));
  })();
  raw.close();
}, 120_000);

/** The rows of the cache at `file`, read with the key or in the clear, as SQLite checks it. */
function contents(file: string, withKey: boolean): { labels: number; found: number } {
  const raw = new Database(file);
  try {
    if (withKey) raw.pragma(`key = "${key}"`);
    expect(raw.pragma('quick_check', { simple: true })).toBe('ok');
    checkIndexes(raw);
    return raw
      .prepare(
        `SELECT (SELECT count(*) FROM labels) AS labels,
                (SELECT count(*) FROM notes_fts WHERE notes_fts MATCH 'sock') AS found`,
      )
      .get() as { labels: number; found: number };
  } finally {
    raw.close();
  }
}

describe('sealing a plain cache, killed', () => {
  it.each(['copying', 'copied', 'sealed', 'renamed'] as const)(
    'while %s: the old cache or the new one is there, whole, and the next start finishes it',
    async (point) => {
      const folder = tempDir();
      const file = join(folder, 'account.sqlite');
      copyFileSync(original, file);
      const child = startChild('cache/seal-child.ts', {
        EARMARK_CACHE_FILE: file,
        EARMARK_TEST_KEY: key,
        ...(point === 'copying' ? {} : { EARMARK_STOP_AT: point }),
      });
      try {
        const deadline = Date.now() + 60_000;
        const reached = () =>
          point === 'copying'
            ? existsSync(`${file}.encrypting`) && statSync(`${file}.encrypting`).size > 1 << 20
            : child.lines.some((line) => line.event === point);
        while (!reached()) {
          if (Date.now() > deadline || child.lines.some((line) => line.event === 'done'))
            throw new Error(`never reached ${point}: ${JSON.stringify(child.lines)}`);
          await delay(2);
        }
        child.kill('SIGKILL');
        expect(await child.exited).toEqual({ code: null, signal: 'SIGKILL' });
      } finally {
        child.kill('SIGKILL');
      }

      // Left as the kill found it: the old cache before the rename, the new one after.
      const sealed = point === 'renamed';
      expect(isPlainSqlite(file)).toBe(!sealed);
      expect(contents(file, sealed)).toEqual({ labels: LABELS, found: LABELS });

      // The next start finishes it: sealed, the same rows, nothing beside it, nothing readable.
      const cache = await openCache({ file, key });
      expect(cache.recovery).toBeNull();
      expect((await cache.read.search('sock')).hits.length).toBeGreaterThan(0);
      await cache.close();
      expect(isPlainSqlite(file)).toBe(false);
      expect(contents(file, true)).toEqual({ labels: LABELS, found: LABELS });
      expect(readdirSync(folder)).toEqual(['account.sqlite']);
      expect(filesHolding(folder, [PHRASE, 'SQLite format 3'])).toEqual([]);
    },
    120_000,
  );
});

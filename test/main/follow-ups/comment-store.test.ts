import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Comment } from '../../../src/shared/api';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { CommentStore } from '../../../src/main/follow-ups/comment-store';
import { filesHolding } from '../../support/files';

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function dataFolder() {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-comments-'));
  folders.push(dataDir);
  return dataDir;
}

/** A store over `dataDir`, each account's key given by `keys` (none: kept in the clear). */
function storeIn(dataDir: string, keys: Record<string, AccountKey> = {}, logs: string[] = []) {
  return new CommentStore({
    folder: join(dataDir, 'comments'),
    legacyFile: join(dataDir, 'follow-ups.json'),
    keyOf: async (accountId) => keys[accountId],
    log: (message) => logs.push(message),
  });
}

const comment = (taskId: string, body: string): Comment => ({
  id: randomUUID(),
  taskId,
  body,
  authorEmail: 'vet@example.org',
  createdAt: new Date().toISOString(),
});

describe('the comments posted from this app', () => {
  const taskId = randomUUID();
  const otherTask = randomUUID();

  it('are sealed under the account key: no word of them on disk, read back by a later run', async () => {
    const dataDir = dataFolder();
    const { key } = AccountKey.random();
    const store = storeIn(dataDir, { a: key });
    const first = comment(taskId, 'Owner asked about the biopsy of Maple');
    const second = comment(taskId, 'Called back: results on Friday');
    // Posted at once: both kept, in order.
    await Promise.all([store.add('a', first), store.add('a', second)]);
    await store.add('a', comment(otherTask, 'Another task'));
    expect(filesHolding(dataDir, ['biopsy', 'Maple', 'Friday', taskId])).toEqual([]);
    expect(readdirSync(join(dataDir, 'comments'))).toEqual(['a']);

    const later = storeIn(dataDir, { a: key });
    expect(await later.comments('a', [taskId, randomUUID()])).toEqual({
      [taskId]: [first, second],
    });
  });

  it('that no key opens any more (the data was started again) read as none, and the file goes', async () => {
    const dataDir = dataFolder();
    await storeIn(dataDir, { a: AccountKey.random().key }).add('a', comment(taskId, 'Old words'));
    const logs: string[] = [];
    const store = storeIn(dataDir, { a: AccountKey.random().key }, logs);
    expect(await store.comments('a', [taskId])).toEqual({});
    expect(existsSync(join(dataDir, 'comments', 'a'))).toBe(false);
    expect(logs.join('\n')).toMatch(/another key/);
    const fresh = comment(taskId, 'New words');
    await store.add('a', fresh);
    expect(await store.comments('a', [taskId])).toEqual({ [taskId]: [fresh] });
  });

  it('an earlier version kept in follow-ups.json, in the clear: each account’s sealed when first read, the file gone with the last', async () => {
    const dataDir = dataFolder();
    const ofA = comment(taskId, 'Clear words of clinic A');
    const ofB = comment(otherTask, 'Clear words of clinic B');
    const legacy = join(dataDir, 'follow-ups.json');
    writeFileSync(
      legacy,
      JSON.stringify({
        version: 1,
        accounts: {
          a: { comments: { [taskId]: [ofA] } },
          b: { comments: { [otherTask]: [ofB] } },
        },
      }),
    );
    const keys = { a: AccountKey.random().key, b: AccountKey.random().key };
    const store = storeIn(dataDir, keys);

    expect(await store.comments('a', [taskId])).toEqual({ [taskId]: [ofA] });
    expect(filesHolding(dataDir, ['clinic A'])).toEqual([]);
    expect(readFileSync(legacy, 'utf8')).toContain('clinic B');

    expect(await store.comments('b', [otherTask])).toEqual({ [otherTask]: [ofB] });
    expect(existsSync(legacy)).toBe(false);
    expect(filesHolding(dataDir, ['Clear words'])).toEqual([]);
    // And they read back in a later run, from the sealed files.
    expect(await storeIn(dataDir, keys).comments('b', [otherTask])).toEqual({
      [otherTask]: [ofB],
    });
  });

  it('kept in the clear by a run without sealing are sealed when a key reads them', async () => {
    const dataDir = dataFolder();
    const clear = comment(taskId, 'Written in the clear');
    await storeIn(dataDir).add('a', clear);
    expect(filesHolding(dataDir, ['in the clear'])).not.toEqual([]);
    const key = AccountKey.random().key;
    expect(await storeIn(dataDir, { a: key }).comments('a', [taskId])).toEqual({
      [taskId]: [clear],
    });
    expect(filesHolding(dataDir, ['in the clear'])).toEqual([]);
  });

  it('go with their account, from both places; another account’s stay', async () => {
    const dataDir = dataFolder();
    const keys = { a: AccountKey.random().key, b: AccountKey.random().key };
    writeFileSync(
      join(dataDir, 'follow-ups.json'),
      JSON.stringify({
        version: 1,
        accounts: { a: { comments: { [taskId]: [comment(taskId, 'Legacy of A')] } } },
      }),
    );
    const store = storeIn(dataDir, keys);
    await store.add('b', comment(taskId, 'Kept by B'));
    await store.forgetAccount('a');
    expect(existsSync(join(dataDir, 'follow-ups.json'))).toBe(false);
    expect(await store.comments('a', [taskId])).toEqual({});
    await store.add('a', comment(taskId, 'Of A, again'));
    await store.forgetAccount('a');
    expect(readdirSync(join(dataDir, 'comments'))).toEqual(['b']);
    expect((await store.comments('b', [taskId]))[taskId]).toHaveLength(1);
  });
});

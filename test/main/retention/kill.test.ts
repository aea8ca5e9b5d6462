import Database from 'better-sqlite3-multiple-ciphers';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { AudioCache } from '../../../src/main/audio/audio-cache';
import { openCache } from '../../../src/main/cache';
import { CleanupRunner } from '../../../src/main/retention/runner';
import type { CleanupStatus } from '../../../src/shared/ipc';
import { launch } from '../../service/child-process';
import { until } from '../../service/poll';
import { filesHolding } from '../../support/files';
import { readWithKey } from '../../support/sealed-files';
import { checkIndexes, label, note, useTempDir } from '../cache/helpers';

const tempDir = useTempDir('cleanup-kill');
const CHILD = fileURLToPath(new URL('./cleanup-child.ts', import.meta.url));
const DAY = 24 * 60 * 60 * 1000;
const OLD = 2000;
const RECENT = 50;

describe('a cleanup killed with SIGKILL', () => {
  it('leaves a cache that opens clean, and the cleanup at the next start finishes it', async () => {
    const dir = tempDir();
    const file = join(dir, 'account.sqlite');
    const audioFolder = join(dir, 'audio');
    const now = Date.now();
    // Sealed, as the app keeps them: removed words must be gone from the plain pages too.
    const { key, bytes } = AccountKey.random();
    // 2,000 records 100 days old, each with a word of its own, and 50 of yesterday.
    const cache = await openCache({ file, key: key.databaseKey() });
    const word = (i: number) => `vexqual${String(i).padStart(4, '0')}`;
    for (let start = 0; start < OLD; start += 500) {
      await cache.write.storeLabels(
        Array.from({ length: 500 }, (_, k) =>
          label(start + k, {
            fromMs: now - 100 * DAY - (start + k) * 60_000,
            notes: [note(`Vet: ${word(start + k)} seen today`, now - 100 * DAY)],
          }),
        ),
        now,
      );
    }
    await cache.write.storeLabels(
      Array.from({ length: RECENT }, (_, k) =>
        label(OLD + k, { fromMs: now - DAY, notes: [note('Vet: recent', now - DAY)] }),
      ),
      now,
    );
    await cache.close();

    // Removed 10 records a step: killed once a fifth of them are gone.
    const child = launch(CHILD, [file, audioFolder, String(now - 90 * DAY), '10'], {
      EARMARK_TEST_CACHE_KEY: bytes.toString('base64'),
    });
    await child.waitFor('stdout', /"done":(4\d\d|[5-9]\d\d|\d{4})/, 60_000);
    const exit = await child.kill('SIGKILL');
    expect(exit.signal).toBe('SIGKILL');
    expect(child.output.stdout).not.toContain('"summary"');

    // The files as the killed process left them: SQLite's check and every index's pass.
    const raw = new Database(file);
    raw.pragma(`key = "${key.databaseKey()}"`);
    expect(raw.pragma('quick_check', { simple: true })).toBe('ok');
    checkIndexes(raw);
    const left = (raw.prepare('SELECT count(*) AS n FROM labels').get() as { n: number }).n;
    expect(left).toBeLessThan(OLD + RECENT);
    expect(left).toBeGreaterThan(RECENT);
    raw.close();

    // The next start: the scope's cleanup runs at once (its schedule's first run).
    const reopened = await openCache({ file, key: key.databaseKey() });
    expect(reopened.recovery).toBeNull();
    const audio = await AudioCache.open({ folder: audioFolder, key });
    const statuses: CleanupStatus[] = [];
    const runner = new CleanupRunner({
      cache: async () => reopened,
      audioCache: async () => audio,
      settings: () => ({ textDays: 90, audioDays: 30 }),
      spare: () => [],
      report: (status) => statuses.push(status),
      log: () => undefined,
    });
    runner.schedule({ firstAfterMs: 0, everyMs: DAY });
    const last = await until(
      () => runner.current(),
      (status) => status.last !== null,
      60_000,
    );
    await runner.stop();
    expect(last.last).toMatchObject({ records: left - RECENT });
    expect(statuses.some((s) => s.state === 'running')).toBe(true);
    expect((await reopened.read.stats()).labels).toBe(RECENT);
    expect(await reopened.read.indexesToMerge()).toBe(false);
    await audio.close();
    await reopened.close();
    // Nothing of a removed record is left in the files, the first ones removed included.
    const read = readWithKey(key);
    expect(filesHolding(dir, [word(0), word(OLD / 2), word(OLD - 1)], read)).toEqual([]);
    expect(filesHolding(dir, [word(OLD + 1), 'recent'], read)).not.toEqual([]);
  }, 120_000);
});

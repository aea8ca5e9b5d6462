import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AudioCache } from '../../../src/main/audio/audio-cache';
import { openCache, type Cache } from '../../../src/main/cache';
import { noteDamage } from '../../../src/main/cache/check';
import { CleanupRunner, WHOLE_CHECK_EVERY_MS } from '../../../src/main/retention/runner';
import { DAY_MS } from '../../../src/shared/retention';
import { damageMiddlePages, label, note, T0, useTempDir } from '../cache/helpers';

/**
 * The cleanup runner's weekly whole check of the cache (src/main/retention/runner.ts, with
 * src/main/cache/check.ts): due at the first cleanup, then a week after the last, and damage
 * found reopens the cache before the cleanup goes on. Real caches and audio caches.
 */

const tempDir = useTempDir('cleanup-runner');
const HOUR = 60 * 60 * 1000;

/** An account's cache and audio cache, and a runner over them whose clock the test moves. */
async function account(options: { damaged?: boolean } = {}) {
  const dir = tempDir();
  const file = join(dir, 'account.sqlite');
  const filled = await openCache({ file, thread: 'main' });
  await filled.write.storeLabels(
    Array.from({ length: 300 }, (_, i) =>
      label(i, { notes: [note(`${'ears cleaned, drops twice a day '.repeat(30)} ${i}`, T0)] }),
    ),
    T0,
  );
  await filled.write.markReviewed({ records: [label(7).id], conversations: [] }, T0);
  await filled.close();
  if (options.damaged) damageMiddlePages(file);
  let cache = await openCache({ file });
  const audio = await AudioCache.open({ folder: join(dir, 'audio') });
  const checks: string[] = [];
  const damages: string[] = [];
  let clock = T0;
  // The account scope's cache accessor: the same cache until a damage reopens it.
  const counted = (opened: Cache): Cache => ({
    ...opened,
    checkWhole: async (signal) => {
      const found = await opened.checkWhole(signal);
      checks.push(found.state);
      return found;
    },
  });
  let current = counted(cache);
  const runner = new CleanupRunner({
    cache: async () => current,
    audioCache: async () => audio,
    // Nothing is old enough to go: only the check and the file's upkeep run.
    settings: () => ({ textDays: null, audioDays: null }),
    spare: () => [],
    report: () => undefined,
    damaged: async (reason) => {
      damages.push(reason);
      await cache.close();
      cache = await openCache({ file });
      current = counted(cache);
    },
    log: () => undefined,
    now: () => clock,
  });
  return {
    runner,
    checks,
    damages,
    cache: () => cache,
    later: (ms: number) => (clock += ms),
    async close() {
      await runner.stop();
      await audio.close();
      await cache.close();
    },
  };
}

describe('the cleanup runner’s whole check of the cache', () => {
  it('checks the file whole at the first cleanup, then not again until a week has passed', async () => {
    const clinic = await account();
    await clinic.runner.run();
    expect(clinic.checks).toEqual(['sound']);
    clinic.later(WHOLE_CHECK_EVERY_MS - HOUR);
    await clinic.runner.run();
    expect(clinic.checks).toEqual(['sound']);
    clinic.later(HOUR);
    await clinic.runner.run();
    expect(clinic.checks).toEqual(['sound', 'sound']);
    expect(clinic.damages).toEqual([]);
    await clinic.close();
  });

  it('reopens a cache a query found damaged at the next cleanup, without waiting for the weekly check', async () => {
    const clinic = await account();
    await clinic.runner.run();
    const damagedCache = clinic.cache();
    // What a query that met a damaged page leaves (cache/queries.ts runQuery).
    noteDamage(damagedCache.file, 'labels: database disk image is malformed');
    clinic.later(DAY_MS);
    await clinic.runner.run();
    expect(clinic.damages).toEqual(['labels: database disk image is malformed']);
    // Not looked for again: the weekly check is not due, and the note says enough.
    expect(clinic.checks).toEqual(['sound']);
    expect(clinic.cache()).not.toBe(damagedCache);
    expect(clinic.cache().recovery).toMatchObject({
      reason: 'labels: database disk image is malformed',
      salvagedReviewMarks: 1,
    });
    await clinic.close();
  });

  it('reopens a cache found damaged, keeping this computer’s review marks, and cleans the new one', async () => {
    const clinic = await account({ damaged: true });
    const damagedCache = clinic.cache();
    const summary = await clinic.runner.run();
    expect(clinic.damages).toEqual([expect.stringMatching(/quick_check|unreadable/)]);
    expect(clinic.cache()).not.toBe(damagedCache);
    await expect(damagedCache.read.stats()).rejects.toThrow(/closed/);
    expect(clinic.cache().recovery).toMatchObject({
      reason: clinic.damages[0],
      salvagedReviewMarks: 1,
    });
    expect(summary).toMatchObject({ records: 0 });
    // The new file is checked at the next cleanup, and found sound.
    await clinic.runner.run();
    expect(clinic.checks).toEqual(['damaged', 'sound']);
    await clinic.close();
  });
});

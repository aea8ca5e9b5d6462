import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCache, type Cache } from '../../../src/main/cache';
import { noteDamage } from '../../../src/main/cache/check';
import {
  CacheChecker,
  IDLE_BEFORE_CHECK_MS,
  WHOLE_CHECK_EVERY_MS,
} from '../../../src/main/retention/cache-checker';
import { DAY_MS } from '../../../src/shared/retention';
import { damageMiddlePages, label, note, T0, useTempDir } from '../cache/helpers';

/**
 * The cache's weekly whole check while the user is away (src/main/retention/cache-checker.ts,
 * with src/main/cache/check.ts): due at the first look, then a week after the last; never while
 * the user is active, stopped when they come back; damage found, or written down by a query,
 * reopens the cache. Real caches, a clock and an idle time the test moves.
 */

const tempDir = useTempDir('cache-checker');
const HOUR = 60 * 60 * 1000;

/** An account's cache (a review mark in it) and a checker over it. */
async function account(options: { damaged?: boolean } = {}) {
  const file = join(tempDir(), 'account.sqlite');
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
  const checks: string[] = [];
  const damages: string[] = [];
  let clock = T0;
  // Asked at each look and before each table of a check.
  let idleMs = () => IDLE_BEFORE_CHECK_MS;
  // The account scope's cache accessor: the same cache until a damage reopens it.
  const counted = (opened: Cache): Cache => ({
    ...opened,
    checkWhole: async (stopWhen) => {
      const found = await opened.checkWhole(stopWhen);
      checks.push(found.state);
      return found;
    },
  });
  let current = counted(cache);
  const checker = new CacheChecker({
    openedCache: async () => current,
    idleMs: () => idleMs(),
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
    checker,
    checks,
    damages,
    cache: () => cache,
    later: (ms: number) => (clock += ms),
    idle: (ms: number | (() => number)) => {
      idleMs = typeof ms === 'number' ? () => ms : ms;
    },
    async close() {
      await checker.stop();
      await cache.close();
    },
  };
}

describe('the cache’s weekly check', () => {
  it('checks the file whole at the first look while the user is away, then not again until a week has passed', async () => {
    const clinic = await account();
    expect(await clinic.checker.look()).toBe('checked');
    expect(clinic.checks).toEqual(['sound']);
    clinic.later(WHOLE_CHECK_EVERY_MS - HOUR);
    expect(await clinic.checker.look()).toBe('not due');
    clinic.later(HOUR);
    expect(await clinic.checker.look()).toBe('checked');
    expect(clinic.checks).toEqual(['sound', 'sound']);
    expect(clinic.damages).toEqual([]);
    await clinic.close();
  });

  it('waits while the user is active, and stops between two tables when they come back', async () => {
    const clinic = await account();
    clinic.idle(IDLE_BEFORE_CHECK_MS - 1);
    expect(await clinic.checker.look()).toBe('user active');
    expect(clinic.checks).toEqual([]);
    // Away when the check starts, back before its second table.
    let asked = 0;
    clinic.idle(() => (++asked <= 2 ? IDLE_BEFORE_CHECK_MS : 0));
    expect(await clinic.checker.look()).toBe('user active');
    expect(clinic.checks).toEqual(['stopped']);
    // Not remembered as checked: the next time away checks it.
    clinic.idle(IDLE_BEFORE_CHECK_MS);
    expect(await clinic.checker.look()).toBe('checked');
    await clinic.close();
  });

  it('reopens a cache found damaged, keeping this computer’s review marks', async () => {
    const clinic = await account({ damaged: true });
    const damagedCache = clinic.cache();
    expect(await clinic.checker.look()).toBe('reopened');
    expect(clinic.damages).toEqual([expect.stringMatching(/quick_check|unreadable/)]);
    await expect(damagedCache.read.stats()).rejects.toThrow(/closed/);
    expect(clinic.cache().recovery).toMatchObject({
      reason: clinic.damages[0],
      salvagedReviewMarks: 1,
    });
    // The new file is due its own check, and found sound.
    expect(await clinic.checker.look()).toBe('checked');
    expect(clinic.checks).toEqual(['damaged', 'sound']);
    await clinic.close();
  });

  it('reopens a cache a query found damaged at once, while the user is active and with no check due', async () => {
    const clinic = await account();
    expect(await clinic.checker.look()).toBe('checked');
    const damagedCache = clinic.cache();
    // What a query that met a damaged page leaves (cache/queries.ts runQuery).
    noteDamage(damagedCache.file, 'labels: database disk image is malformed');
    clinic.later(DAY_MS);
    clinic.idle(0);
    expect(await clinic.checker.look()).toBe('reopened');
    expect(clinic.damages).toEqual(['labels: database disk image is malformed']);
    expect(clinic.checks).toEqual(['sound']);
    expect(clinic.cache().recovery).toMatchObject({
      reason: 'labels: database disk image is malformed',
      salvagedReviewMarks: 1,
    });
    await clinic.close();
  });

  it('stops with the account’s scope: a look after it does nothing', async () => {
    const clinic = await account();
    await clinic.checker.stop();
    expect(await clinic.checker.look()).toBe('stopped');
    expect(clinic.checks).toEqual([]);
    await clinic.cache().close();
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, type Cache } from '../../../src/main/cache';
import type { Label } from '../../../src/shared/api';
import { label, MINUTE, T0, useTempDir } from './helpers';

/** The patients the assign picker offers: distinct patients of cached labels. */
const tempDir = useTempDir('cache-patients');
let cache: Cache;

const withPatient = (index: number, id: string, name: string, fromMs?: number): Label => ({
  ...label(index, fromMs === undefined ? {} : { fromMs }),
  patient: { id, name },
});

beforeAll(async () => {
  cache = await openCache({ file: join(tempDir(), 'c.sqlite'), thread: 'main' });
  await cache.write.storeLabelPage({
    rows: [
      withPatient(1, 'p-maple', 'Maple'),
      withPatient(2, 'p-maple', 'Maple'),
      withPatient(3, 'p-maple', 'Maple'),
      withPatient(4, 'p-bramble', 'bramble'),
      withPatient(5, 'p-percent', '100% Biscuit'),
      withPatient(6, 'p-under', 'Bis_cuit'),
      withPatient(7, 'p-other', 'Biscuit'),
      // Renamed on the service: the newest label's name is the patient's name now.
      withPatient(8, 'p-renamed', 'Old Name', T0),
      withPatient(9, 'p-renamed', 'Zed', T0 + 60 * MINUTE),
      label(10, { patient: null }),
    ],
    seenAt: T0,
  });
});
afterAll(() => cache.close());

describe('known patients', () => {
  it('lists every patient once, by name (case-insensitive), with its cached recordings', async () => {
    expect(await cache.read.patients('')).toEqual([
      { id: 'p-percent', name: '100% Biscuit', recordings: 1 },
      { id: 'p-under', name: 'Bis_cuit', recordings: 1 },
      { id: 'p-other', name: 'Biscuit', recordings: 1 },
      { id: 'p-bramble', name: 'bramble', recordings: 1 },
      { id: 'p-maple', name: 'Maple', recordings: 3 },
      { id: 'p-renamed', name: 'Zed', recordings: 2 },
    ]);
  });

  it('matches a part of the name whatever its case', async () => {
    expect((await cache.read.patients('MAP')).map((p) => p.id)).toEqual(['p-maple']);
    expect((await cache.read.patients('ramb')).map((p) => p.id)).toEqual(['p-bramble']);
  });

  it('takes % and _ literally, as the listing does', async () => {
    expect((await cache.read.patients('0%')).map((p) => p.id)).toEqual(['p-percent']);
    expect((await cache.read.patients('s_c')).map((p) => p.id)).toEqual(['p-under']);
    expect((await cache.read.patients('%')).map((p) => p.id)).toEqual(['p-percent']);
  });

  it('matches the current name only, and counts all of the patient’s recordings', async () => {
    expect(await cache.read.patients('old name')).toEqual([]);
    expect(await cache.read.patients('zed')).toEqual([
      { id: 'p-renamed', name: 'Zed', recordings: 2 },
    ]);
  });

  it('stops at the limit', async () => {
    expect((await cache.read.patients('', 2)).map((p) => p.id)).toEqual(['p-percent', 'p-under']);
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, type Cache } from '../../../src/main/cache';
import type { Label } from '../../../src/shared/api';
import { openCacheDatabase, openCacheReader } from '../../../src/main/cache/database';
import { runQuery } from '../../../src/main/cache/queries';
import { watchPrepared } from '../../support/prepared';
import { label, MINUTE, note, T0, useTempDir } from './helpers';

const tempDir = useTempDir('cache-labels');
let cache: Cache;

beforeAll(async () => {
  cache = await openCache({ file: join(tempDir(), 'c.sqlite'), thread: 'main' });
});
afterAll(() => cache.close());

const HOUR = 60 * MINUTE;

describe('listing pages', () => {
  it('say which labels need their notes: new ones, then only those whose row changed', async () => {
    const rows = [label(1), label(2), label(3)];
    const first = await cache.write.storeLabelPage({ rows, seenAt: T0 });
    expect(first).toEqual({ needNotes: [rows[2]!.id, rows[1]!.id, rows[0]!.id], added: 3 });
    await cache.write.storeLabels(
      rows.map((row) => ({ ...row, ownedPatientNotes: [note('ready', T0)] })),
      T0 + HOUR,
    );
    const unchanged = await cache.write.storeLabelPage({ rows, seenAt: T0 + 2 * HOUR });
    expect(unchanged).toEqual({ needNotes: [], added: 0 });
    const assigned = { ...rows[1]!, patient: { id: 'p-new', name: 'Biscuit' } };
    const changed = await cache.write.storeLabelPage({
      rows: [rows[0]!, assigned],
      seenAt: T0 + 3 * HOUR,
    });
    expect(changed).toEqual({ needNotes: [assigned.id], added: 0 });
    expect((await cache.read.label(assigned.id))?.patient).toEqual({
      id: 'p-new',
      name: 'Biscuit',
    });
  });

  it('from a screen write nothing when they bring nothing new, so the readers keep their page caches', () => {
    const file = join(tempDir(), 'changes-only.sqlite');
    const { db } = openCacheDatabase(file);
    const reader = openCacheReader(file);
    // PRAGMA data_version moves when another connection commits: then SQLite drops this
    // connection's page cache.
    const version = () => reader.pragma('data_version', { simple: true }) as number;
    const store = (rows: Label[], seenAt: number, changesOnly: boolean) =>
      runQuery(db, 'write', 'storeLabelPage', [{ rows, seenAt, changesOnly }]) as {
        needNotes: string[];
        added: number;
      };
    const rows = [label(60), label(61), label(62)];
    store(rows, T0, false);
    const before = version();
    expect(store(rows, T0 + HOUR, true)).toEqual({ needNotes: [], added: 0 });
    expect(version()).toBe(before);
    // The rows kept when they were seen last: a screen's page does not mark them.
    expect(labelSeenAt(rows[0]!.id)).toBe(T0);
    // A changed row is written, and its notes asked for; a new one too.
    const assigned = { ...rows[1]!, patient: { id: 'p-9', name: 'Pepper' } };
    expect(store([rows[0]!, assigned, label(63)], T0 + 2 * HOUR, true)).toEqual({
      needNotes: [label(63).id, assigned.id],
      added: 1,
    });
    expect(version()).not.toBe(before);
    // A sync's walk marks every row it saw (its sweep deletes the others).
    const walked = version();
    store(rows, T0 + 3 * HOUR, false);
    expect(version()).not.toBe(walked);
    expect(labelSeenAt(rows[0]!.id)).toBe(T0 + 3 * HOUR);
    reader.close();
    db.close();

    function labelSeenAt(id: string): number {
      return runQuery(db, 'read', 'labelSeenAt', [id]) as number;
    }
  });

  it('count as added only the labels the cache did not hold, each once', async () => {
    const held = label(40);
    await cache.write.storeLabelPage({ rows: [held], seenAt: T0 });
    const fresh = label(41);
    const whole = label(42, { notes: [note('came with the listing', T0)] });
    // A row listed twice (a page boundary moved under a listing) is still one label.
    const result = await cache.write.storeLabelPage({
      rows: [held, fresh, fresh, whole],
      seenAt: T0 + HOUR,
    });
    expect(result.added).toBe(2);
    expect(await cache.read.label(fresh.id)).not.toBeNull();
  });

  it('in the re-scan window, also ask again for notes that may still change', async () => {
    const settleMs = 24 * HOUR;
    const recent = label(10, { fromMs: T0 });
    const processing = label(11, { fromMs: T0 });
    const settled = label(12, { fromMs: T0 });
    await cache.write.storeLabelPage({ rows: [recent, processing, settled], seenAt: T0 });
    await cache.write.storeLabels(
      [
        { ...recent, ownedPatientNotes: [note('first pass', T0)] },
        { ...processing, ownedPatientNotes: [note('{}', T0)] },
      ],
      T0 + HOUR, // an hour after the recording: a regenerated version may still come
    );
    await cache.write.storeLabels(
      [{ ...settled, ownedPatientNotes: [note('final', T0)] }],
      T0 + 2 * settleMs, // long after: settled
    );
    const rows = [recent, processing, settled];
    const soon = await cache.write.storeLabelPage({
      rows,
      seenAt: T0 + 2 * settleMs,
      recheck: { settleMs, refetchBefore: T0 + 30 * MINUTE },
    });
    expect(soon.needNotes).toEqual([]); // fetched after refetchBefore: fresh enough for now
    const later = await cache.write.storeLabelPage({
      rows,
      seenAt: T0 + 2 * settleMs,
      recheck: { settleMs, refetchBefore: T0 + 2 * HOUR },
    });
    expect(later.needNotes.sort()).toEqual([recent.id, processing.id].sort());
    // The marks are kept in the cache: a run stopped now fetches them next time.
    const marked = await cache.read.labelsNeedingNotes(100);
    expect(rows.map((r) => r.id).filter((id) => marked.includes(id))).toEqual([
      recent.id,
      processing.id,
    ]);
  });

  it('store rows that carry their notes whole, with nothing left to fetch', async () => {
    const whole = label(20, { notes: [note('came with the listing', T0)] });
    const result = await cache.write.storeLabelPage({ rows: [whole], seenAt: T0 });
    expect(result).toEqual({ needNotes: [], added: 1 });
    expect((await cache.read.label(whole.id))?.ownedPatientNotes).toEqual(whole.ownedPatientNotes);
  });

  it('save the sync state in the same transaction', async () => {
    await cache.write.storeLabelPage({
      rows: [label(30)],
      seenAt: T0,
      state: { stream: 'test.stream', value: { cursor: 42 }, at: T0 },
    });
    expect(await cache.read.syncState('test.stream')).toEqual({ cursor: 42 });
    await cache.write.saveSyncState({ stream: 'test.stream', value: null, at: T0 });
    expect(await cache.read.syncState('test.stream')).toBeNull();
  });
});

describe('labels with their notes', () => {
  it('keep every version in the service order; a label not fetched yet has notes null', async () => {
    const bare = label(40);
    await cache.write.storeLabelPage({ rows: [bare], seenAt: T0 });
    expect((await cache.read.label(bare.id))?.ownedPatientNotes).toBeNull();
    const versions = [
      note('first pass [inaudible]', T0 + 2 * MINUTE),
      note('S: eating less', T0 + 3 * MINUTE, 'SOAP'),
      note('first pass, regenerated', T0 + 5 * MINUTE),
    ];
    await cache.write.storeLabels([{ ...bare, ownedPatientNotes: versions }], T0 + HOUR);
    expect(await cache.read.label(bare.id)).toEqual({ ...bare, ownedPatientNotes: versions });
    // Storing the same answer again changes nothing; a version the service drops goes.
    await cache.write.storeLabels([{ ...bare, ownedPatientNotes: versions }], T0 + HOUR);
    await cache.write.storeLabels([{ ...bare, ownedPatientNotes: versions.slice(1) }], T0 + HOUR);
    expect((await cache.read.label(bare.id))?.ownedPatientNotes).toEqual(versions.slice(1));
    expect(await cache.read.label('no-such-label')).toBeNull();
  });

  it('are listed from the cache with the service’s filters, sorting and total', async () => {
    const local = await openCache({ file: join(tempDir(), 'list.sqlite'), thread: 'main' });
    const rows = [
      label(1, { type: 'HubMic', patient: 'maple Leaf' }),
      label(2, { type: 'PhoneCallAudio', patient: null }),
      label(3, { type: 'HubMic', patient: 'Rocky 50%' }),
      label(4, { type: 'DictationAudio', patient: 'Apollo' }),
    ];
    await local.write.storeLabelPage({ rows, seenAt: T0 });
    const ids = (page: { items: { id: string }[] }) =>
      page.items.map((l) => rows.findIndex((r) => r.id === l.id) + 1);
    expect(ids(await local.read.labels())).toEqual([4, 3, 2, 1]);
    expect(
      ids(await local.read.labels({ isSortingDescending: false, limit: 2, offset: 1 })),
    ).toEqual([2, 3]);
    expect(await local.read.labels({ types: ['HubMic'] })).toMatchObject({ total: 2 });
    expect(
      ids(await local.read.labels({ sortingProperty: 'Patient', isSortingDescending: false })),
    ).toEqual([4, 1, 3, 2]);
    expect(ids(await local.read.labels({ patientSearch: '50%' }))).toEqual([3]);
    expect(ids(await local.read.labels({ patientSearch: 'MAPLE' }))).toEqual([1]);
    expect(
      ids(await local.read.labels({ fromTime: rows[1]!.fromTime, toTime: rows[3]!.fromTime })),
    ).toEqual([3, 2]);
    const listed = await local.read.labels({ limit: 1 });
    expect(listed).toEqual({ items: [rows[3]], total: 4 });
    await local.close();
  });

  it('find the hub record a conversation became by its exact range', async () => {
    const hub = label(50, { type: 'HubBatch', fromMs: T0 + 7 * HOUR, minutes: 30 });
    await cache.write.storeLabels(
      [{ ...hub, ownedPatientNotes: [note('Speaker 1: hello', T0)] }],
      T0,
    );
    const range = { startMs: T0 + 7 * HOUR, endMs: T0 + 7 * HOUR + 30 * MINUTE };
    expect((await cache.read.hubRecordFor(range))?.id).toBe(hub.id);
    expect(await cache.read.hubRecordFor({ ...range, deviceSerial: 'OTHER' })).toBeNull();
    expect(await cache.read.hubRecordFor({ ...range, endMs: range.endMs + 1 })).toBeNull();
  });
});

describe('deleting', () => {
  it('removes labels with their notes; a sweep removes what a walk did not see', async () => {
    const local = await openCache({ file: join(tempDir(), 'sweep.sqlite'), thread: 'main' });
    const rows = [0, 1, 2, 3].map((i) =>
      label(i, { fromMs: T0 + i * HOUR, notes: [note(`words ${i}`, T0)] }),
    );
    await local.write.storeLabels(rows, T0);
    expect(await local.write.deleteLabels([rows[0]!.id, 'unknown'])).toBe(1);
    expect((await local.read.stats()).notes).toBe(3);
    // A walk over [T0 + 1h, ∞) at T0 + 1d saw only label 3.
    await local.write.storeLabelPage({ rows: [rows[3]!], seenAt: T0 + 24 * HOUR });
    expect(
      await local.write.sweepLabels({ fromMs: T0 + 2 * HOUR, seenBefore: T0 + 24 * HOUR }),
    ).toBe(1);
    expect((await local.read.labels()).items.map((l) => l.id)).toEqual([rows[3]!.id, rows[1]!.id]);
    await local.close();
  });
});

describe('the list’s SQL', () => {
  it('counts what a listing page adds among its own rows, not over every label', () => {
    const { db } = openCacheDatabase(join(tempDir(), 'page-plans.sqlite'));
    const prepared = watchPrepared(db);
    runQuery(db, 'write', 'storeLabelPage', [{ rows: [label(50), label(51)], seenAt: T0 }]);
    prepared.stop();
    const counts = prepared.texts.filter((sql) => sql.includes('count(*)'));
    expect(counts).not.toHaveLength(0);
    for (const sql of counts) expect(prepared.plan(sql, ['[]'])).not.toMatch(/SCAN labels\b/);
    db.close();
  });

  it('filters by patient through the matching patients’ labels when they are few, else through every label', () => {
    const { db } = openCacheDatabase(join(tempDir(), 'patient-plans.sqlite'));
    const rows = Array.from({ length: 40 }, (_, i) =>
      label(i + 1, { patient: i === 0 ? 'Maple' : `Abbey ${i}` }),
    );
    runQuery(db, 'write', 'storeLabelPage', [{ rows, seenAt: T0 }]);
    const prepared = watchPrepared(db);
    const filtered = (patientSearch: string) => {
      const page = runQuery(db, 'read', 'labels', [{ patientSearch, limit: 100 }]) as {
        items: { id: string }[];
        total: number;
      };
      const sql = prepared.texts.filter((text) => text.includes('LIMIT @limit')).at(-1)!;
      const params = { patientSearch: `%${patientSearch}%`, limit: 100, offset: 0 };
      return {
        ids: page.items.map((item) => item.id),
        total: page.total,
        plan: prepared.plan(sql, params),
      };
    };
    // One label of forty: read through labels_by_patient.
    const maple = filtered('maple');
    expect(maple).toMatchObject({ ids: [rows[0]!.id], total: 1 });
    expect(maple.plan).toContain('labels_by_patient');
    // Most of them: every label read, its name matched (the same answer either way).
    const abbey = filtered('abbey');
    expect(abbey).toMatchObject({
      ids: rows
        .slice(1)
        .map((row) => row.id)
        .reverse(),
      total: 39,
    });
    expect(abbey.plan).not.toContain('labels_by_patient');
    prepared.stop();
    db.close();
  });

  it('reads a page by start or by duration in its index’s order, sorting nothing', () => {
    const { db } = openCacheDatabase(join(tempDir(), 'plans.sqlite'));
    const prepared = watchPrepared(db);
    for (const isSortingDescending of [true, false])
      for (const sortingProperty of ['FromTime', 'Duration'] as const)
        runQuery(db, 'read', 'labels', [{ sortingProperty, isSortingDescending, limit: 5 }]);
    prepared.stop();
    const pages = prepared.texts.filter((sql) => sql.includes('LIMIT @limit'));
    expect(pages).toHaveLength(4);
    // A repeated term (from_ms twice) had SQLite sort every page's ties apart.
    for (const sql of pages)
      expect(prepared.plan(sql, { limit: 5, offset: 0 })).not.toContain('TEMP B-TREE');
    db.close();
  });
});

import Database from 'better-sqlite3-multiple-ciphers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSyncEngine,
  fetchTimeline,
  readSyncStatus,
  type SyncProgress,
  type SyncResult,
} from '../../../src/main/sync';
import { MINUTE_MS, type Label } from '../../../src/shared/api';
import { currentTranscript } from '../../../src/shared/transcript';
import {
  baseMinute,
  DEMO_DEVICES,
  hubMinute,
  startService,
  type RunningService,
} from '../../service/harness';
import { checkIndexes, useTempDir } from '../cache/helpers';
import {
  cachedLabelIds,
  DAY_MS,
  HOUR_MS,
  seedLabels,
  serviceLabelIds,
  setUpSync,
  transcriptOf,
  type SeededLabels,
  type SyncSetup,
} from './helpers';

const tempDir = useTempDir('sync');
const COUNT = 240;
/** Small pages, so the walks take many of them. */
const TUNING = { labelPageSize: 25, conversationPageSize: 2, concurrency: 4 };

let svc: RunningService;
let seeded: SeededLabels;
let setup: SyncSetup;
const device = DEMO_DEVICES[0].id;
const conversationIds: string[] = [];

beforeAll(async () => {
  svc = await startService({ processingMs: 100 });
  // 240 labels over 10 days: about 70 in the 72-hour re-scan window, the rest history.
  seeded = seedLabels(svc, COUNT, { spanMs: 10 * DAY_MS });
  const base = baseMinute(1);
  svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 30 }, (_, i) => hubMinute(base, i, 20_000)),
  );
  setup = await setUpSync(svc, tempDir());
  for (let i = 0; i < 5; i++) {
    const created = await setup.api.conversations.create({
      deviceId: device,
      startMs: base + i * 5 * MINUTE_MS,
      endMs: base + (i * 5 + 4) * MINUTE_MS,
    });
    conversationIds.unshift(created.conversation!.conversationId);
  }
});
afterAll(async () => {
  await setup?.close();
  await svc?.dispose();
});

/** The account's first sync, run once for the suites that start from it: its result and progress. */
let firstRun: Promise<{ result: SyncResult; progress: SyncProgress[] }> | undefined;
const firstSync = () =>
  (firstRun ??= setup.sync(TUNING).then((result) => ({ result, progress: [...setup.progress] })));

describe('a first sync', () => {
  it('mirrors the account: identity, devices, every label once with its notes, conversations', async () => {
    const { result } = await firstSync();
    expect(result).toMatchObject({
      outcome: 'complete',
      labels: {
        listed: COUNT,
        added: COUNT,
        notesFetched: COUNT,
        deleted: 0,
        historyComplete: true,
      },
      conversations: { listed: 5, added: 5 },
      skipped: [],
    });
    const { cache, api } = setup;
    expect((await cache.read.identity())?.organizationId).toBe(
      svc.credentials.primary.organizationId,
    );
    expect((await cache.read.devices()).map((d) => d.value)).toContain(device);
    const ids = await cachedLabelIds(cache);
    expect(ids).toHaveLength(COUNT);
    expect(new Set(ids).size).toBe(COUNT);
    expect(ids.sort()).toEqual((await serviceLabelIds(svc)).sort());
    for (const id of [seeded.ids[0]!, seeded.ids[100]!, seeded.ids[COUNT - 1]!]) {
      expect(await cache.read.label(id)).toEqual(await api.labels.get(id));
    }
    expect((await cache.read.stats()).labelsNeedingNotes).toBe(0);
    const conversations = await cache.read.conversations({ limit: 100 });
    expect(conversations.items.map((c) => c.conversationId)).toEqual(conversationIds);
    expect(await readSyncStatus(cache.read)).toMatchObject({
      lastOutcome: 'complete',
      lastError: null,
    });
  });

  it('reported its progress: done never went back, never passed total, and ended at total', async () => {
    const { progress: events } = await firstSync();
    expect(events.length).toBeGreaterThan(COUNT / TUNING.labelPageSize);
    expect(events.map((p) => p.phase)).toEqual(
      expect.arrayContaining(['labels', 'conversations', 'done']),
    );
    for (let i = 1; i < events.length; i++) {
      expect(events[i]!.done).toBeGreaterThanOrEqual(events[i - 1]!.done);
      expect(events[i]!.done).toBeLessThanOrEqual(events[i]!.total);
    }
    const last = events.at(-1)!;
    expect(last).toMatchObject({ phase: 'done', done: last.total });
    expect(last.labels).toMatchObject({ listed: COUNT, notesFetched: COUNT, notesQueued: 0 });
  });
});

describe('a later sync', () => {
  beforeAll(() => firstSync());

  it('lists only the re-scan window again, and fetches no notes that cannot have changed', async () => {
    const result = await setup.sync(TUNING);
    const inWindow = (
      await setup.cache.read.labels({
        fromTime: new Date(result.startedAt - 72 * HOUR_MS).toISOString(),
      })
    ).total;
    expect(inWindow).toBeGreaterThan(50);
    expect(result).toMatchObject({
      outcome: 'complete',
      labels: {
        listed: inWindow,
        added: 0,
        notesFetched: 0,
        resumedHistory: false,
        historyComplete: true,
      },
    });
  });

  it('finds a label uploaded late, inside the window, behind what the last run saw', async () => {
    const organizationId = svc.credentials.primary.organizationId;
    const fromMs = Date.now() - 2 * DAY_MS;
    const late = svc.service.labels.create({
      organizationId,
      type: 'HubMic',
      fromMs,
      toMs: fromMs + 5 * MINUTE_MS,
      friendlyName: 'Consult Room 1',
      deviceSerial: 'HUB-1',
      notes: [
        {
          type: 'Transcript',
          content: 'a late upload about a wobbly tooth',
          createdMs: fromMs,
          timeMs: fromMs,
        },
      ],
    });
    const result = await setup.sync(TUNING);
    expect(result.labels).toMatchObject({ added: 1, notesFetched: 1 });
    expect(
      (await setup.cache.read.search('wobbly')).hits.map(
        (h) => h.kind !== 'conversation' && h.label.id,
      ),
    ).toEqual([late]);
  });

  it('keeps search right after a note is regenerated: new words found, current version first, old ones as history', async () => {
    const id = seeded.ids[3]!; // 8 hours old: in the window, its notes may still change
    const organizationId = svc.credentials.primary.organizationId;
    const regeneratedMs = Date.now();
    svc.service.db.transaction(() => {
      svc.service.labels.addNote(id, {
        type: 'Transcript',
        content: 'Speaker 1: regenerated, the owner mentions a swollen paw',
        createdMs: regeneratedMs,
        timeMs: regeneratedMs,
      });
      svc.service.events.append(organizationId, 'label_updated', { labelId: id });
    })();
    // notesRefreshMs 0: the test cannot wait the ten minutes a window label's notes rest.
    const result = await setup.sync({ ...TUNING, notesRefreshMs: 0 });
    expect(result.outcome).toBe('complete');
    const cached = await setup.cache.read.label(id);
    expect(cached?.ownedPatientNotes).toHaveLength(2);
    expect(currentTranscript(cached?.ownedPatientNotes)?.content).toContain('swollen paw');
    const swollen = (await setup.cache.read.search('swollen paw')).hits;
    expect(swollen).toMatchObject([{ kind: 'note', current: true, label: { id } }]);
    const old = transcriptOf(3).split(' ')[6]!; // "visit number 3 about <word>": the word
    const history = (await setup.cache.read.search(`number 3 about ${old}`)).hits;
    expect(history).toMatchObject([{ kind: 'note', current: false, label: { id } }]);
  });

  it('deletes what the service deleted: in the window at once, in history at the next full walk', async () => {
    const recent = seeded.ids[1]!;
    const old = seeded.ids[COUNT - 2]!;
    svc.service.deleteLabel(recent);
    svc.service.deleteLabel(old);
    const first = await setup.sync(TUNING);
    expect(first.labels.deleted).toBe(1);
    expect(await setup.cache.read.label(recent)).toBeNull();
    expect(await setup.cache.read.label(old)).not.toBeNull();
    const full = await setup.sync({ ...TUNING, fullRescanMs: 0 });
    expect(full.labels).toMatchObject({ deleted: 1, notesFetched: 0, historyComplete: true });
    expect(await setup.cache.read.label(old)).toBeNull();
    const ids = await cachedLabelIds(setup.cache);
    expect(ids.sort()).toEqual((await serviceLabelIds(svc)).sort());
    expect((await setup.cache.read.search(`"visit number ${COUNT - 2}"`)).hits).toEqual([]);
    expect((await setup.cache.read.search(`"visit number ${COUNT - 3}"`)).hits).toHaveLength(1);
  });

  it('fetches the notes of a history label whose row changed, at the next full walk', async () => {
    const id = seeded.ids[COUNT - 5]!;
    const before = (await setup.cache.read.label(id)) as Label;
    const other = seeded.patients.find((p) => p !== before.patient?.id)!;
    svc.service.labels.assign(id, other);
    const result = await setup.sync({ ...TUNING, fullRescanMs: 0 });
    expect(result.labels.notesFetched).toBe(1);
    expect((await setup.cache.read.label(id))?.patient?.id).toBe(other);
  });

  it('updates conversations whose status changed, and finds new ones', async () => {
    const [newest] = conversationIds;
    await setup.api.conversations.complete(device, newest!);
    await expect
      .poll(async () => (await setup.api.conversations.get(device, newest!)).status, {
        timeout: 5000,
      })
      .toBe('UPLOADED');
    const result = await setup.sync(TUNING);
    expect(result.conversations.changed).toBeGreaterThanOrEqual(1);
    expect(await setup.cache.read.conversation(device, newest!)).toMatchObject({
      status: 'UPLOADED',
      isImportable: true,
    });
    // The record it became is a hub label, found by the new sync.
    expect(result.labels.added).toBe(1);
  });
});

describe('the full-text indexes after all those syncs', () => {
  beforeAll(() => firstSync());

  it('match their tables row for row', () => {
    const db = new Database(setup.cache.file);
    db.pragma('busy_timeout = 5000');
    checkIndexes(db);
    db.close();
  });
});

describe('cancelling', () => {
  it('stops a run, keeps what it stored, and the next run finishes the work', async () => {
    const local = await setUpSync(svc, tempDir());
    const controller = new AbortController();
    const stopped = await local.sync(
      { ...TUNING, concurrency: 2, writeBatch: 5 },
      {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.labels.notesFetched >= 20) controller.abort();
        },
      },
    );
    expect(stopped.outcome).toBe('cancelled');
    const partial = await local.cache.read.stats();
    expect(partial.labels).toBeGreaterThan(0);
    expect(partial.labelsNeedingNotes).toBeGreaterThan(0);
    expect(partial.notes).toBeGreaterThanOrEqual(20);
    const again = await local.sync(TUNING);
    expect(again.outcome).toBe('complete');
    const ids = await cachedLabelIds(local.cache);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual((await serviceLabelIds(svc)).sort());
    expect((await local.cache.read.stats()).labelsNeedingNotes).toBe(0);
    await local.close();
  });
});

describe('a full walk of the conversations', () => {
  it('asks for the next page while it stores this one, and stores each page once, in order', async () => {
    const local = await setUpSync(svc, tempDir());
    let asked = 0;
    const askedWhenStored: number[] = [];
    const positions: number[] = [];
    const write = local.cache.write;
    const cache = {
      ...local.cache,
      write: new Proxy(write, {
        get: (target, name, receiver) =>
          name === 'storeConversationPage'
            ? async (page: Parameters<typeof write.storeConversationPage>[0]) => {
                const stored = await target.storeConversationPage(page);
                positions.push(page.startPosition);
                askedWhenStored.push(asked);
                return stored;
              }
            : Reflect.get(target, name, receiver),
      }),
    };
    const api = {
      ...local.api,
      conversations: {
        ...local.api.conversations,
        list: (...args: Parameters<typeof local.api.conversations.list>) => {
          asked++;
          return local.api.conversations.list(...args);
        },
      },
    };
    const result = await createSyncEngine(
      { cache, api, organizationId: svc.credentials.primary.organizationId },
      TUNING,
    ).run();
    expect(result.outcome).toBe('complete');
    // Five conversations, two a page: three pages, each the next asked before it was stored.
    expect(positions).toEqual([0, 2, 4]);
    expect(askedWhenStored).toEqual([2, 3, 3]);
    expect(asked).toBe(3);
    const stored = await local.cache.read.conversations({ limit: 100 });
    expect(stored.items.map((c) => c.conversationId)).toEqual(conversationIds);
    await local.close();
  });
});

describe('a key that acts for another organization than the account’s', () => {
  it('fails the run before anything of it reaches the cache', async () => {
    const local = await setUpSync(svc, tempDir());
    const result = await createSyncEngine({
      cache: local.cache,
      api: local.api,
      organizationId: svc.credentials.secondary.organizationId,
    }).run();
    expect(result).toMatchObject({ outcome: 'failed', error: { kind: 'organization_mismatch' } });
    expect(await local.cache.read.stats()).toMatchObject({ labels: 0, conversations: 0 });
    expect(await local.cache.read.identity()).toBeNull();
    await local.close();
  });
});

describe('timelines', () => {
  it('are cached as handlers fetch them', async () => {
    const base = baseMinute(1);
    const range = { startMs: base - 4 * HOUR_MS, endMs: base + 4 * HOUR_MS }; // two windows
    const minutes = await fetchTimeline(setup, device, range);
    expect(minutes).toHaveLength(30);
    expect(await setup.cache.read.timeline(device, range.startMs, range.endMs)).toMatchObject({
      minutes,
      complete: true,
    });
  });
});

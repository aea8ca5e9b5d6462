import { beforeEach, describe, expect, it } from 'vitest';
import type {
  CleanupStatus,
  CleanupSummary,
  IpcError,
  IpcResult,
  RetentionOverview,
} from '../../src/shared/ipc';
import { KeepRecordStore } from '../../src/renderer/src/lib/keep-record.svelte';
import { RetentionStore } from '../../src/renderer/src/lib/retention.svelte';
import { keptFor } from '../../src/renderer/src/lib/retention-words';
import { FakeEarmark, settle } from './support';

const LABEL = '0190a000-0000-7000-8000-00000000000a';
const summary: CleanupSummary = {
  startedAt: '2026-11-27T09:00:00.000Z',
  finishedAt: '2026-11-27T09:00:02.000Z',
  records: 120,
  audioFiles: 3,
  textBytes: 4_000_000,
  audioBytes: 300_000_000,
};
const idle: CleanupStatus = { state: 'idle', done: 0, total: 0, last: null, message: null };

function overview(extra: Partial<RetentionOverview> = {}): RetentionOverview {
  return {
    settings: { audioDays: 30, textDays: 90 },
    kept: { records: 1000, textBytes: 50_000_000, audioFiles: 10, audioBytes: 900_000_000 },
    next: { records: 0, textBytes: 0, audioFiles: 0, audioBytes: 0, spared: 0 },
    keptRecords: [],
    cleanup: idle,
    ...extra,
  };
}
const failure: IpcError = { kind: 'internal', message: 'The cache could not be read.' };

describe('the retention store (Settings, Data on this computer)', () => {
  let fake: FakeEarmark;
  let store: RetentionStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    store = new RetentionStore(fake);
  });

  it('previews the next cleanup under a changed setting, keeping the other setting', async () => {
    fake.handle('retention.overview', () => overview());
    await store.load();
    fake.handle('retention.setSettings', (settings) =>
      overview({
        settings,
        next: { records: 840, textBytes: 42_000_000, audioFiles: 2, audioBytes: 1e8, spared: 1 },
      }),
    );
    await store.change({ textDays: 1 });
    expect(fake.callsOf('retention.setSettings')).toEqual([{ audioDays: 30, textDays: 1 }]);
    expect(store.overview?.settings).toEqual({ audioDays: 30, textDays: 1 });
    expect(store.overview?.next).toMatchObject({ records: 840, spared: 1 });
  });

  it('keeps only the last overview asked for: a setting changed beats a slower first read', async () => {
    const answers: ((result: IpcResult<RetentionOverview>) => void)[] = [];
    fake.answer('retention.overview', () => new Promise((resolve) => answers.push(resolve)));
    const first = store.load();
    await settle();
    store.overview = overview();
    fake.handle('retention.setSettings', (settings) => overview({ settings }));
    await store.change({ audioDays: 7 });
    answers[0]!({ ok: true, value: overview() });
    await first;
    expect(store.overview?.settings.audioDays).toBe(7);
  });

  it('removes now, says what was freed, and reads the overview again', async () => {
    fake.handle('retention.overview', () => overview());
    await store.load();
    fake.handle('retention.removeNow', () => summary);
    const removing = store.removeNow();
    expect(store.removing).toBe(true);
    await removing;
    expect(store.removing).toBe(false);
    expect(store.removed).toEqual(summary);
    expect(fake.callsOf('retention.overview')).toHaveLength(2);
  });

  it('follows a cleanup’s progress, calls only a large one large, and reads again when it ends', async () => {
    fake.handle('retention.overview', () => overview());
    await store.load();
    fake.emit('retention.changed', { ...idle, state: 'running', done: 10, total: 50 });
    expect(store.running).toBe(true);
    expect(store.large).toBe(false);
    fake.emit('retention.changed', { ...idle, state: 'running', done: 100, total: 5000 });
    expect(store.large).toBe(true);
    fake.handle('retention.overview', () => overview({ cleanup: { ...idle, last: summary } }));
    fake.emit('retention.changed', { ...idle, last: summary });
    await settle();
    expect(store.running).toBe(false);
    expect(store.status.last).toEqual(summary);
    expect(fake.callsOf('retention.overview')).toHaveLength(2);
  });

  it('says why a cleanup or a read failed', async () => {
    fake.fail('retention.overview', failure);
    await store.load();
    expect(store.loadError).toEqual(failure);
    fake.handle('retention.overview', () => overview());
    fake.fail('retention.removeNow', { kind: 'cancelled', message: 'The cleanup stopped.' });
    await store.removeNow();
    expect(store.removeError?.kind).toBe('cancelled');
    expect(store.loadError).toBeNull();
  });

  it('lets a kept record go, and removes everything of the clinic', async () => {
    fake.handle('retention.overview', () => overview());
    fake.handle('retention.keep', ({ keep }) => keep);
    await store.release(LABEL);
    expect(fake.callsOf('retention.keep')).toEqual([{ labelId: LABEL, keep: false }]);
    fake.handle('retention.removeEverything', () => ({
      files: 12,
      textBytes: 5e7,
      audioBytes: 9e8,
    }));
    expect(await store.removeEverything()).toBe(true);
    expect(store.everythingRemoved).toEqual({ files: 12, textBytes: 5e7, audioBytes: 9e8 });
    fake.fail('retention.removeEverything', failure);
    expect(await store.removeEverything()).toBe(false);
    expect(store.everythingError).toEqual(failure);
    store.reset();
    expect(store.overview).toBeNull();
    expect(store.everythingError).toBeNull();
  });

  it('words the choices', () => {
    expect([1, 7, 365, null].map((days) => keptFor(days as 1 | 7 | 365 | null))).toEqual([
      '1 day',
      '7 days',
      '1 year',
      'For ever',
    ]);
  });
});

describe('a record’s “Keep on this computer”', () => {
  it('reads whether it is kept, and keeps it or lets it go', async () => {
    const fake = new FakeEarmark();
    let kept = false;
    fake.handle('retention.isKept', () => kept);
    fake.handle('retention.keep', ({ keep }) => (kept = keep));
    const store = new KeepRecordStore(fake);
    await store.load(LABEL);
    expect(store.kept).toBe(false);
    await store.set(true);
    expect(store.kept).toBe(true);
    expect(fake.callsOf('retention.keep')).toEqual([{ labelId: LABEL, keep: true }]);
    fake.fail('retention.keep', failure);
    await store.set(false);
    expect(store.kept).toBe(true);
    expect(store.error).toEqual(failure);
    expect(store.busy).toBe(false);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { ChannelInput, LabelPage, Sourced } from '../../src/shared/ipc';
import { DEFAULT_FILTERS } from '../../src/shared/label-filter';
import {
  CACHE_HEAD_START_MS,
  PAGE_SIZE,
  RecordingsStore,
} from '../../src/renderer/src/lib/recordings.svelte';
import { FakeEarmark, settle, sourced } from './support';

const label = (n: number, patient = 'Bella'): Label => ({
  id: `label-${n}`,
  type: 'HubMic',
  fromTime: new Date(Date.UTC(2026, 10, 23, 10) - n * 60_000).toISOString(),
  toTime: new Date(Date.UTC(2026, 10, 23, 10) - n * 60_000 + 30_000).toISOString(),
  patient: { id: `p-${patient}`, name: patient },
  ownedPatientNotes: null,
  friendlyName: '',
  deviceSerial: 'S1',
});
const page = (offset: number, total: number, patient?: string): LabelPage => ({
  items: Array.from({ length: Math.max(0, Math.min(PAGE_SIZE, total - offset)) }, (_, i) =>
    label(offset + i, patient),
  ),
  total,
});
type Asked = ChannelInput<'labels.list'>;

describe('the Recordings store', () => {
  let fake: FakeEarmark;
  /** What the connection store would say: online unless a test says not. */
  let connection: { offline: boolean };
  let store: RecordingsStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    connection = { offline: false };
    store = new RecordingsStore(fake, connection);
  });

  it('paints the cache’s page first, then the service’s answer replaces it', async () => {
    let serviceAnswer: (value: Sourced<LabelPage>) => void = () => {};
    fake.handle('labels.list', (asked: Asked) =>
      asked.source === 'cache'
        ? sourced(page(0, 120, 'Cached'), 'cache')
        : new Promise((resolve) => (serviceAnswer = resolve)),
    );
    store.attach('account-1');
    await settle();
    expect(store.rowAt(0)?.patient?.name).toBe('Cached');
    expect(store.total).toBe(120);
    serviceAnswer(sourced(page(0, 130, 'Fresh'), 'service'));
    await settle();
    expect(store.rowAt(0)?.patient?.name).toBe('Fresh');
    expect(store.total).toBe(130);
    expect(store.source).toBe('service');
    const asked = fake.callsOf('labels.list');
    expect(asked.map((a) => a.source).sort()).toEqual(['cache', 'service']);
    expect(asked[0]).toMatchObject({ limit: PAGE_SIZE, offset: 0, sortingProperty: 'FromTime' });
  });

  it('with the service unreachable keeps the cached rows, says so and when the cache was synced', async () => {
    fake.fail('labels.list', { kind: 'offline', message: 'The clinic service cannot be reached.' });
    store.attach('account-1');
    await settle();
    expect(store.error?.error.kind).toBe('offline'); // nothing cached either: it says why
    // Main answers a cached page when the service is unreachable (source: 'cache').
    fake.handle('labels.list', () => sourced(page(0, 3), 'cache'));
    store.retry();
    await settle();
    expect(store.error).toBeNull();
    expect(store.rowAt(2)?.id).toBe('label-2');
    expect(store.source).toBe('cache');
    expect(store.syncedAt).toBe('2026-11-24T08:00:00.000Z');
  });

  it('asks for the pages in view, two at a time, and never for pages scrolled past', async () => {
    const waiting: (() => void)[] = [];
    fake.handle('labels.list', (asked: Asked) =>
      asked.source === 'cache'
        ? sourced({ items: [], total: 1000 }, 'cache')
        : new Promise((resolve) =>
            waiting.push(() => resolve(sourced(page(asked.offset ?? 0, 1000), 'service'))),
          ),
    );
    store.attach('account-1');
    await settle();
    store.want([3, 4, 5]);
    await settle();
    const offsets = () =>
      fake
        .callsOf('labels.list')
        .filter((a) => a.source === 'service')
        .map((a) => a.offset);
    expect(offsets()).toEqual([0, 300]); // page 0 was under way; one more fits
    waiting.shift()!();
    await settle();
    expect(offsets()).toEqual([0, 300, 400]);
    while (waiting.length) {
      waiting.shift()!();
      await settle();
    }
    expect(offsets()).toEqual([0, 300, 400, 500]);
    expect(store.rowAt(450)?.id).toBe('label-450');
  });

  it('drops the answers to an older filter; another account starts over', async () => {
    let answer: (value: Sourced<LabelPage>) => void = () => {};
    fake.handle('labels.list', (asked: Asked) =>
      asked.source === 'cache'
        ? sourced({ items: [], total: 0 }, 'cache')
        : asked.patientSearch
          ? sourced(page(0, 1, 'Biscuit'), 'service')
          : new Promise((resolve) => (answer = resolve)),
    );
    store.attach('account-1');
    await settle();
    store.setFilters({ ...DEFAULT_FILTERS, patient: 'Biscuit' });
    await settle();
    answer(sourced(page(0, 50, 'Bella'), 'service'));
    await settle();
    expect(store.total).toBe(1);
    expect(store.rowAt(0)?.patient?.name).toBe('Biscuit');
    store.toggle('label-0');
    store.attach('account-2');
    expect(store.filters).toEqual(DEFAULT_FILTERS);
    expect(store.selected.size).toBe(0);
  });

  it('lists by duration from the cache without calling that offline', async () => {
    fake.handle('labels.list', () => sourced(page(0, 3), 'cache'));
    store.attach('account-1');
    store.setFilters({ ...DEFAULT_FILTERS, sort: 'Duration' });
    await settle();
    expect(fake.callsOf('labels.list').at(-1)).toMatchObject({ sortingProperty: 'Duration' });
    expect(store.source).toBe('cache');
    expect(store.orderedHere).toBe(true);
    expect(store.offlineCopy).toBe(false);
    // The same cached answer to the service's own order: the service could not be asked.
    store.setFilters(DEFAULT_FILTERS);
    await settle();
    expect(store.offlineCopy).toBe(true);
  });

  it('keeps the cache’s rows when the service refuses first and the cache answers after', async () => {
    let cacheAnswer: (value: Sourced<LabelPage>) => void = () => {};
    fake.answer('labels.list', async (asked: Asked) =>
      asked.source === 'cache'
        ? { ok: true, value: await new Promise<Sourced<LabelPage>>((r) => (cacheAnswer = r)) }
        : { ok: false, error: { kind: 'key_revoked', message: 'The API key has been revoked.' } },
    );
    store.attach('account-1');
    // The cache, still opening, is not waited for longer than its head start.
    await vi.waitFor(() =>
      expect(fake.callsOf('labels.list').map((a) => a.source)).toEqual(['cache', 'service']),
    );
    await settle();
    // The refusal is in; the cache answers now.
    cacheAnswer(sourced(page(0, 3, 'Cached'), 'cache'));
    await settle();
    expect(store.rowAt(0)?.patient?.name).toBe('Cached');
    expect(store.source).toBe('cache');
    expect(store.error).toBeNull();
  });

  describe('a cache that has not completed a sync yet (its first is filling it)', () => {
    const partlyCached = () => sourced(page(0, 60, 'Cached'), 'cache', null);

    it('shows neither its rows nor its count: the service’s answer is the first shown', async () => {
      let serviceAnswer: (value: Sourced<LabelPage>) => void = () => {};
      fake.handle('labels.list', (asked: Asked) =>
        asked.source === 'cache'
          ? partlyCached()
          : new Promise((resolve) => (serviceAnswer = resolve)),
      );
      store.attach('account-1');
      await vi.waitFor(() =>
        expect(fake.callsOf('labels.list').map((a) => a.source)).toEqual(['cache', 'service']),
      );
      await settle();
      expect(store.total).toBeNull();
      expect(store.rowAt(0)).toBeUndefined();
      serviceAnswer(sourced(page(0, 240, 'Fresh'), 'service'));
      await settle();
      expect(store.total).toBe(240);
      expect(store.rowAt(0)?.patient?.name).toBe('Fresh');
    });

    it('shows what it holds, as cached, when the service cannot answer', async () => {
      fake.answer('labels.list', async (asked: Asked) =>
        asked.source === 'cache'
          ? { ok: true, value: partlyCached() }
          : {
              ok: false,
              error: { kind: 'offline', message: 'The clinic service cannot be reached.' },
            },
      );
      store.attach('account-1');
      await settle();
      expect(store.error).toBeNull();
      expect(store.total).toBe(60);
      expect(store.rowAt(0)?.patient?.name).toBe('Cached');
      expect(store.source).toBe('cache');
    });
  });

  describe('asks the service for a page after the cache', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());
    const sourcesAsked = () => fake.callsOf('labels.list').map((a) => a.source);

    it('once the cache has answered, the service’s answer then replacing its rows', async () => {
      let cacheAnswer: (value: Sourced<LabelPage>) => void = () => {};
      fake.handle('labels.list', (asked: Asked) =>
        asked.source === 'cache'
          ? new Promise((resolve) => (cacheAnswer = resolve))
          : sourced(page(0, 130, 'Fresh'), 'service'),
      );
      store.attach('account-1');
      await vi.advanceTimersByTimeAsync(CACHE_HEAD_START_MS - 1);
      expect(sourcesAsked()).toEqual(['cache']);
      cacheAnswer(sourced(page(0, 120, 'Cached'), 'cache'));
      await vi.advanceTimersByTimeAsync(0);
      expect(sourcesAsked()).toEqual(['cache', 'service']);
      expect(store.rowAt(0)?.patient?.name).toBe('Fresh');
      expect(store.total).toBe(130);
    });

    it('or once its head start has passed, when the cache has not answered', async () => {
      fake.handle('labels.list', (asked: Asked) =>
        asked.source === 'cache'
          ? new Promise(() => {})
          : sourced(page(0, 130, 'Fresh'), 'service'),
      );
      store.attach('account-1');
      await vi.advanceTimersByTimeAsync(CACHE_HEAD_START_MS - 1);
      expect(sourcesAsked()).toEqual(['cache']);
      await vi.advanceTimersByTimeAsync(1);
      expect(sourcesAsked()).toEqual(['cache', 'service']);
      expect(store.rowAt(0)?.patient?.name).toBe('Fresh');
    });
  });

  it('offline, takes the pages past the first from the cache alone', async () => {
    connection.offline = true;
    fake.handle('labels.list', (asked: Asked) => sourced(page(asked.offset ?? 0, 250), 'cache'));
    store.attach('account-1');
    store.want([0, 1, 2]);
    await settle();
    expect(store.rowAt(249)?.id).toBe('label-249');
    const askedOfService = fake.callsOf('labels.list').filter((a) => a.source === 'service');
    expect(askedOfService.map((a) => a.offset)).toEqual([0]);
    expect(store.offlineCopy).toBe(true);
  });

  describe('its filters', () => {
    beforeEach(() => {
      vi.useFakeTimers();
      fake.handle('labels.list', (asked: Asked) => sourced(page(asked.offset ?? 0, 3), 'cache'));
      store.attach('account-1');
    });
    afterEach(() => vi.useRealTimers());
    const asked = () => fake.callsOf('labels.list').filter((a) => a.source === 'service');

    it('follows the patient box once typing pauses, and not for the same patient again', async () => {
      store.typePatient('Be');
      store.typePatient('Bella');
      await vi.advanceTimersByTimeAsync(299);
      expect(store.filters.patient).toBe('');
      await vi.advanceTimersByTimeAsync(1);
      expect(store.filters.patient).toBe('Bella');
      await vi.advanceTimersByTimeAsync(0);
      expect(asked().at(-1)).toMatchObject({ patientSearch: 'Bella' });
      const calls = asked().length;
      store.typePatient('Bella ');
      await vi.advanceTimersByTimeAsync(300);
      expect(asked()).toHaveLength(calls);
    });

    it('clears every filter but the order, and drops a patient still being typed', async () => {
      store.sortBy('Patient');
      store.setFilters({ ...store.filters, types: ['HubMic'], fromDate: '2026-11-01' });
      store.typePatient('Bel');
      store.clearFilters();
      await vi.advanceTimersByTimeAsync(300);
      expect(store.filters).toEqual({ ...DEFAULT_FILTERS, sort: 'Patient', descending: false });
      expect(store.patientText).toBe('');
    });

    it('leaving the screen drops a patient still being typed; the box shows the filter again', async () => {
      store.typePatient('Bella');
      await vi.advanceTimersByTimeAsync(300);
      store.typePatient('Bellam');
      store.detach();
      await vi.advanceTimersByTimeAsync(300);
      expect([store.filters.patient, store.patientText]).toEqual(['Bella', 'Bella']);
    });

    it('sorts by a column: its own turns round, another starts with its natural order', () => {
      expect(store.sortOf('FromTime')).toBe('descending'); // newest first
      expect(store.sortOf('Patient')).toBe('none');
      store.sortBy('FromTime');
      expect(store.sortOf('FromTime')).toBe('ascending');
      store.sortBy('Patient');
      expect([store.sortOf('Patient'), store.sortOf('FromTime')]).toEqual(['ascending', 'none']);
    });
  });
});

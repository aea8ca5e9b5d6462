import { describe, expect, it } from 'vitest';
import type { IpcResult, SyncStatus } from '../../src/shared/ipc';
import { SyncStore } from '../../src/renderer/src/lib/sync.svelte';
import { FakeEarmark, settle } from './support';

const status = (state: SyncStatus['state'], done = 0, total = 0): SyncStatus => ({
  state,
  done,
  total,
  lastSyncAt: state === 'idle' ? '2026-11-24T08:00:00.000Z' : null,
  message: null,
  searchableFrom: null,
  searchComplete: state === 'idle',
  upgrading: false,
  rebuilding: false,
});

describe('the sync store', () => {
  it('asks main once, then follows its events', async () => {
    const fake = new FakeEarmark();
    fake.handle('sync.status', () => status('idle'));
    const sync = new SyncStore(fake);
    await settle();
    expect([sync.running, sync.status.lastSyncAt]).toEqual([false, '2026-11-24T08:00:00.000Z']);
    fake.emit('sync.changed', status('running', 40, 270));
    expect([sync.running, sync.status.done, sync.status.total]).toEqual([true, 40, 270]);
  });

  it.each([
    ['the offline copy is brought up to this version', 'upgrading'],
    ['a copy found damaged fills again', 'rebuilding'],
  ] as const)('says while %s, and no more once it is done', async (_, flag) => {
    const fake = new FakeEarmark();
    fake.handle('sync.status', () => ({ ...status('running'), [flag]: true }));
    const sync = new SyncStore(fake);
    await settle();
    expect(sync[flag]).toBe(true);
    fake.emit('sync.changed', status('idle'));
    expect(sync[flag]).toBe(false);
  });

  it('keeps an event that came before main’s answer (the event is newer)', async () => {
    const fake = new FakeEarmark();
    let answer: (result: IpcResult<SyncStatus>) => void = () => {};
    fake.answer('sync.status', () => new Promise((resolve) => (answer = resolve)));
    const sync = new SyncStore(fake);
    fake.emit('sync.changed', status('running', 1, 10));
    await settle();
    answer({ ok: true, value: status('idle') });
    await settle();
    expect(sync.running).toBe(true);
  });

  it('says how far back search reaches while the history comes, and nothing once all has', async () => {
    const fake = new FakeEarmark();
    fake.handle('sync.status', () => status('running'));
    const sync = new SyncStore(fake);
    await settle();
    const day = (iso: string) => iso.slice(0, 10);
    expect(sync.searchReach(day)).toBe('Not searchable yet');
    fake.emit('sync.changed', { ...status('running'), searchableFrom: '2026-03-12T09:30:00.000Z' });
    expect(sync.searchReach(day)).toBe('Searchable back to 2026-03-12');
    // Stopped part-way (offline): search still reaches that far.
    fake.emit('sync.changed', { ...status('offline'), searchableFrom: '2026-03-12T09:30:00.000Z' });
    expect(sync.searchReach(day)).toBe('Searchable back to 2026-03-12');
    fake.emit('sync.changed', { ...status('idle'), searchableFrom: null });
    expect(sync.searchReach(day)).toBeNull();
  });
});

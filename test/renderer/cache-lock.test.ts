import { describe, expect, it } from 'vitest';
import type { IpcResult, LockedCache } from '../../src/shared/ipc';
import { CacheLockStore } from '../../src/renderer/src/lib/cache-lock.svelte';
import { FakeEarmark, settle } from './support';

const lock = (reason: LockedCache['reason'] = 'key_missing', accountId = 'acc-1'): LockedCache => ({
  accountId,
  organizationName: 'Riverside Vets',
  reason,
});

describe('the locked offline copy', () => {
  it('asks when main says the copy is locked, at start or later, and not when it is not', async () => {
    const fake = new FakeEarmark();
    fake.handle('cache.locked', () => null);
    const store = new CacheLockStore(fake);
    await settle();
    expect(store.asking).toBe(false);
    fake.emit('cache.locked', lock());
    expect([store.asking, store.locked?.reason]).toEqual([true, 'key_missing']);

    const atStart = new FakeEarmark().handle('cache.locked', () => lock('key_wrong'));
    const started = new CacheLockStore(atStart);
    await settle();
    expect([started.asking, started.locked?.reason]).toEqual([true, 'key_wrong']);
  });

  it('keeps an event that came before main’s answer (the event is newer)', async () => {
    const fake = new FakeEarmark();
    let answer: (result: IpcResult<LockedCache | null>) => void = () => {};
    fake.answer('cache.locked', () => new Promise((resolve) => (answer = resolve)));
    const store = new CacheLockStore(fake);
    fake.emit('cache.locked', null);
    answer({ ok: true, value: lock() });
    await settle();
    expect(store.locked).toBeNull();
  });

  it('starts a new copy only when the user agrees, for the account that is locked', async () => {
    const fake = new FakeEarmark().handle('cache.locked', () => lock());
    fake.handle('cache.startFresh', () => null);
    const store = new CacheLockStore(fake);
    await settle();
    expect(fake.callsOf('cache.startFresh')).toEqual([]);
    await store.startFresh();
    expect(fake.callsOf('cache.startFresh')).toEqual([{ accountId: 'acc-1' }]);
    expect([store.locked, store.asking, store.busy]).toEqual([null, false, false]);
  });

  it('puts the question off on Not now, asks again on request, and anew for another lock', async () => {
    const fake = new FakeEarmark().handle('cache.locked', () => lock());
    const store = new CacheLockStore(fake);
    await settle();
    store.later();
    expect([store.asking, store.locked?.accountId]).toEqual([false, 'acc-1']);
    // Told again of the same lock (another screen asked): still put off.
    fake.emit('cache.locked', lock());
    expect(store.asking).toBe(false);
    store.ask();
    expect(store.asking).toBe(true);
    store.later();
    // Another account's copy, locked too: asked about.
    fake.emit('cache.locked', lock('key_missing', 'acc-2'));
    expect(store.asking).toBe(true);
  });

  it('says why when starting again fails, and keeps asking', async () => {
    const fake = new FakeEarmark().handle('cache.locked', () => lock());
    fake.fail('cache.startFresh', {
      kind: 'keychain_unavailable',
      message: 'The system keychain is not available.',
    });
    const store = new CacheLockStore(fake);
    await settle();
    await store.startFresh();
    expect([store.asking, store.error]).toEqual([true, 'The system keychain is not available.']);
  });

  it('asks about the newly active account’s copy when the account changes', async () => {
    const fake = new FakeEarmark().handle('cache.locked', () => null);
    const store = new CacheLockStore(fake);
    await settle();
    fake.handle('cache.locked', () => lock('key_missing', 'acc-2'));
    fake.emit('accounts.changed', []);
    await settle();
    expect(store.locked?.accountId).toBe('acc-2');
  });
});

import { describe, expect, it } from 'vitest';
import type { ConnectionStatus, IpcResult } from '../../src/shared/ipc';
import { ConnectionStore } from '../../src/renderer/src/lib/connection.svelte';
import { FakeEarmark, settle } from './support';

const status = (state: ConnectionStatus['state'], extra: Partial<ConnectionStatus> = {}) => ({
  state,
  lastError: null,
  checkedAt: '2026-11-24T08:00:00.000Z',
  ...extra,
});

describe('the connection store', () => {
  it('asks main once, then follows its events', async () => {
    const fake = new FakeEarmark();
    fake.handle('app.connection', () => status('offline'));
    const connection = new ConnectionStore(fake);
    expect(connection.status.state).toBe('unknown');
    await settle();
    expect(connection.offline).toBe(true);
    fake.emit('connection.changed', status('online'));
    expect([connection.offline, connection.refused]).toEqual([false, false]);
    expect(fake.callsOf('app.connection')).toHaveLength(1);
  });

  it('keeps an event that came before main’s answer (the event is newer)', async () => {
    const fake = new FakeEarmark();
    let answer: (result: IpcResult<ConnectionStatus>) => void = () => {};
    fake.answer('app.connection', () => new Promise((resolve) => (answer = resolve)));
    const connection = new ConnectionStore(fake);
    fake.emit('connection.changed', status('online'));
    await settle();
    answer({ ok: true, value: status('offline', { checkedAt: null }) });
    await settle();
    expect(connection.status.state).toBe('online');
  });

  it('says a refused key in two words, by the refusal', () => {
    const fake = new FakeEarmark();
    fake.handle('app.connection', () => status('unknown', { checkedAt: null }));
    const connection = new ConnectionStore(fake);
    const refused = (kind: 'key_revoked' | 'key_expired' | 'forbidden') =>
      fake.emit('connection.changed', status('refused', { lastError: { kind, message: '' } }));
    refused('key_revoked');
    expect([connection.refused, connection.refusedWords]).toEqual([true, 'Key revoked']);
    refused('key_expired');
    expect(connection.refusedWords).toBe('Key expired');
    refused('forbidden');
    expect(connection.refusedWords).toBe('Key refused');
  });
});

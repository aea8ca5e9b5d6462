import { describe, expect, it } from 'vitest';
import { createWebSocketBridge, type SocketEnv } from '../../src/renderer/src/bridge';
import { ShellLinkStore } from '../../src/renderer/src/lib/shell-link.svelte';
import type { WireMessage } from '../../src/shared/ipc';
import { settle } from './support';

/** A WebSocket the test opens, answers and closes. */
class FakeSocket extends EventTarget {
  readyState = 0;
  readonly sent: { id: number; channel: string; input: unknown }[] = [];
  constructor(readonly protocols: string[]) {
    super();
  }
  send(data: string) {
    this.sent.push(JSON.parse(data) as (typeof this.sent)[number]);
  }
  open() {
    this.readyState = 1;
    this.dispatchEvent(new Event('open'));
  }
  receive(message: WireMessage) {
    this.dispatchEvent(new MessageEvent('message', { data: JSON.stringify(message) }));
  }
  close() {
    this.readyState = 3;
    this.dispatchEvent(new Event('close'));
  }
}

/** The browser as the bridge sees it: sockets, whether Earmark refuses the token, retries. */
function browser({ refused = false } = {}) {
  const sockets: FakeSocket[] = [];
  const retries: (() => void)[] = [];
  let forgotten = false;
  const env: SocketEnv = {
    open: (protocols) => {
      const socket = new FakeSocket(protocols);
      sockets.push(socket);
      return socket as unknown as ReturnType<SocketEnv['open']>;
    },
    tokenRefused: async () => refused,
    forgetToken: () => (forgotten = true),
    later: (retry) => retries.push(retry),
  };
  return { env, sockets, retries, forgotten: () => forgotten };
}

describe('the browser shell’s link to Earmark', () => {
  it('offers the token, holds calls until the link opens, then answers them', async () => {
    const { env, sockets } = browser();
    const link = new ShellLinkStore();
    const api = createWebSocketBridge('t0ken', link, env);
    expect(link.state).toBe('connecting');
    expect(sockets[0]!.protocols.some((p) => p.endsWith('t0ken'))).toBe(true);
    const call = api.invoke('sync.status', {});
    await settle();
    expect(sockets[0]!.sent).toEqual([]);
    sockets[0]!.open();
    expect(link.state).toBe('open');
    await settle();
    const [sent] = sockets[0]!.sent;
    expect(sent).toMatchObject({ channel: 'sync.status', input: {} });
    sockets[0]!.receive({ id: sent!.id, result: { ok: true, value: 'answer' } });
    expect(await call).toEqual({ ok: true, value: 'answer' });
  });

  it('passes events to their listeners until they stop listening', () => {
    const { env, sockets } = browser();
    const api = createWebSocketBridge('t0ken', new ShellLinkStore(), env);
    const heard: unknown[] = [];
    const stop = api.on('sync.changed', (payload) => heard.push(payload));
    sockets[0]!.open();
    sockets[0]!.receive({ event: 'sync.changed', payload: 1 });
    stop();
    sockets[0]!.receive({ event: 'sync.changed', payload: 2 });
    expect(heard).toEqual([1]);
  });

  it('fails the calls a dropped link leaves unanswered, and connects again at once', async () => {
    const { env, sockets } = browser();
    const link = new ShellLinkStore();
    const api = createWebSocketBridge('t0ken', link, env);
    sockets[0]!.open();
    const call = api.invoke('sync.status', {});
    sockets[0]!.close();
    expect(await call).toMatchObject({ ok: false, error: { kind: 'disconnected' } });
    await settle();
    expect([link.state, sockets.length]).toEqual(['connecting', 2]);
  });

  it('says Earmark stopped when nothing answers, and keeps trying until it is back', async () => {
    const { env, sockets, retries } = browser();
    const link = new ShellLinkStore();
    const api = createWebSocketBridge('t0ken', link, env);
    const call = api.invoke('sync.status', {});
    sockets[0]!.close();
    await settle();
    expect(link.state).toBe('stopped');
    retries.shift()!();
    // Still stopped while the next attempt is under way (the banner does not flicker).
    expect([link.state, sockets.length]).toEqual(['stopped', 2]);
    sockets[1]!.open();
    expect(link.state).toBe('open');
    await settle();
    expect(sockets[1]!.sent.map((m) => m.channel)).toEqual(['sync.status']);
    sockets[1]!.receive({ id: sockets[1]!.sent[0]!.id, result: { ok: true, value: null } });
    expect(await call).toEqual({ ok: true, value: null });
  });

  it('stops for good when a later run refuses the token: forgets it, and every call says why', async () => {
    const { env, sockets, retries, forgotten } = browser({ refused: true });
    const link = new ShellLinkStore();
    const api = createWebSocketBridge('old-t0ken', link, env);
    const waiting = api.invoke('sync.status', {});
    sockets[0]!.close();
    await settle();
    expect([link.state, forgotten(), retries.length]).toEqual(['outdated', true, 0]);
    const outdated = { ok: false, error: { kind: 'disconnected' } };
    expect(await waiting).toMatchObject(outdated);
    expect(await api.invoke('sync.status', {})).toMatchObject(outdated);
    expect(sockets).toHaveLength(1);
  });
});

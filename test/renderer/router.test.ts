import { describe, expect, it } from 'vitest';
import { RouterStore, type RouterWindow } from '../../src/renderer/src/lib/router.svelte';

/** A window's address and history: pushState writes the hash, back() goes to the one before. */
class FakeWindow implements RouterWindow {
  readonly location = { hash: '' };
  private readonly entries: string[];
  private readonly events = new EventTarget();
  readonly history = {
    pushState: (_data: null, _unused: string, url: string) => {
      this.entries.push(url);
      this.location.hash = url;
    },
  };

  constructor(hash: string) {
    this.location.hash = hash;
    this.entries = [hash];
  }

  addEventListener(type: 'hashchange' | 'popstate', listener: () => void): void {
    this.events.addEventListener(type, listener);
  }

  /** Back, as the browser does it: the address changes, then popstate. */
  back(): void {
    this.entries.pop();
    this.location.hash = this.entries.at(-1) ?? '';
    this.events.dispatchEvent(new Event('popstate'));
  }

  /** The user types another hash: the browser sends popstate, then hashchange. */
  type(hash: string): void {
    this.location.hash = hash;
    this.fire('popstate');
    this.fire('hashchange');
  }

  fire(type: 'hashchange' | 'popstate'): void {
    this.events.dispatchEvent(new Event(type));
  }
}

describe('the router', () => {
  it('opens on the screen the address names, the timeline when it names none or a wrong one', () => {
    expect(new RouterStore(new FakeWindow('#conversations')).route).toEqual({
      screen: 'conversations',
      id: null,
    });
    expect(new RouterStore(new FakeWindow('#settings/webhooks')).route).toEqual({
      screen: 'settings',
      id: 'webhooks',
    });
    expect(new RouterStore(new FakeWindow('#record/a%2Fb')).route).toEqual({
      screen: 'record',
      id: 'a/b',
    });
    for (const hash of ['', '#nowhere', '#record'])
      expect(new RouterStore(new FakeWindow(hash)).screen).toBe('timeline');
  });

  it('keeps the screen in the address, so Back returns to where the user was', () => {
    const window = new FakeWindow('#recordings');
    const router = new RouterStore(window);
    router.open('record', 'label 1');
    expect(window.location.hash).toBe('#record/label%201');
    expect(router.route).toEqual({ screen: 'record', id: 'label 1' });
    window.back();
    expect(router.screen).toBe('recordings');
    router.go('settings', 'keys');
    expect(window.location.hash).toBe('#settings/keys');
    router.go('follow-ups');
    expect(window.location.hash).toBe('#follow-ups');
    window.type('#conversations');
    expect(router.route).toEqual({ screen: 'conversations', id: null });
  });

  it('takes a typed hash once, though the browser tells it twice', () => {
    const window = new FakeWindow('#settings');
    const router = new RouterStore(window);
    window.location.hash = '#record/label%201';
    window.fire('popstate');
    const opened = router.route;
    expect(opened).toEqual({ screen: 'record', id: 'label 1' });
    // The same route again would run every effect reading it: the record loaded twice.
    window.fire('hashchange');
    expect(router.route).toBe(opened);
    window.location.hash = '#record/label%201/cough';
    window.fire('hashchange');
    expect(router.route).toEqual({ screen: 'record', id: 'label 1', find: 'cough' });
  });
});

import { describe, expect, it } from 'vitest';
import type { ReviewNotification } from '../../src/shared/ipc';
import {
  ASKED_KEY,
  NotificationsStore,
  type SystemNotifications,
} from '../../src/renderer/src/lib/notifications.svelte';
import { FakeEarmark, settle } from './support';

const processed: ReviewNotification = {
  outcome: 'processed',
  conversationId: 'conv-1',
  deviceId: 'hub-1',
  labelId: '3b2d6c1e-9a4f-4e57-8c1d-0f6a2b7e9d10',
  title: 'Conversation processed',
  body: 'Consult Room 1, 10:42–11:27: its recording and transcript are ready.',
};

/** A system's notifications: its permission, the requests for it, and what was shown. */
function system(permission: NotificationPermission, answer: NotificationPermission = 'granted') {
  const shown: {
    title: string;
    options?: NotificationOptions;
    onclick: (() => void) | null;
    closed: boolean;
  }[] = [];
  let requests = 0;
  const fake = class {
    static permission = permission;
    static async requestPermission() {
      requests += 1;
      fake.permission = answer;
      return answer;
    }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: NotificationOptions) {
      shown.push(Object.assign(this, { title, options, closed: false }) as never);
    }
    close() {
      (this as unknown as { closed: boolean }).closed = true;
    }
  };
  return { api: fake as unknown as SystemNotifications, shown, requests: () => requests };
}

function setUp(notifications: ReturnType<typeof system>, stored: Record<string, string> = {}) {
  const fake = new FakeEarmark();
  const opened: string[] = [];
  let focused = 0;
  const storage = {
    getItem: (key: string) => stored[key] ?? null,
    setItem: (key: string, value: string) => void (stored[key] = value),
  };
  const store = new NotificationsStore(
    fake,
    (id) => opened.push(id),
    notifications.api,
    storage,
    () => focused++,
  );
  return { fake, store, opened, stored, focused: () => focused };
}

describe('NotificationsStore', () => {
  it('asks for the permission once, shows the notification, and opens the record on click', async () => {
    const notifications = system('default');
    const { fake, opened, stored, focused } = setUp(notifications);
    fake.emit('review.notification', processed);
    await settle();
    expect(notifications.requests()).toBe(1);
    expect(stored[ASKED_KEY]).toBeDefined();
    expect(notifications.shown).toHaveLength(1);
    const [shown] = notifications.shown;
    expect(shown).toMatchObject({
      title: 'Conversation processed',
      options: { body: processed.body, tag: 'conv-1' },
    });
    shown!.onclick!();
    expect(opened).toEqual([processed.labelId]);
    expect(focused()).toBe(1);
    expect(shown!.closed).toBe(true);

    fake.emit('review.notification', { ...processed, conversationId: 'conv-2' });
    await settle();
    expect(notifications.requests()).toBe(1);
    expect(notifications.shown).toHaveLength(2);
  });

  it('never asks again once asked, and shows nothing when refused', async () => {
    const refused = system('default', 'denied');
    const first = setUp(refused);
    first.fake.emit('review.notification', processed);
    await settle();
    expect(refused.requests()).toBe(1);
    expect(refused.shown).toEqual([]);
    const again = system('default');
    const later = setUp(again, first.stored);
    later.fake.emit('review.notification', processed);
    await settle();
    expect(again.requests()).toBe(0);
    expect(again.shown).toEqual([]);
    expect(later.store.last).toEqual(processed);
  });

  it('opens nothing for a failed conversation (it has no record)', async () => {
    const notifications = system('granted');
    const { fake, opened } = setUp(notifications);
    fake.emit('review.notification', {
      ...processed,
      outcome: 'failed',
      labelId: null,
      title: 'Conversation failed',
    });
    await settle();
    notifications.shown[0]!.onclick!();
    expect(opened).toEqual([]);
  });
});

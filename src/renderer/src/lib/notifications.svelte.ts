import type { EarmarkApi, ReviewNotification } from '../../../shared/ipc';

/** What the store needs of the Web Notifications API (the browser's, or Electron's renderer's). */
export interface SystemNotifications {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  new (title: string, options?: NotificationOptions): Notification;
}

/** Remembered on this computer once the permission was asked for: it is asked once. */
export const ASKED_KEY = 'earmark.notifications.asked';

/**
 * Turns main's review.notification (a conversation created here was processed or failed) into
 * a system notification; clicking it brings the window forward and opens the record. The
 * permission is asked for once, the first time there is something to tell; when it is refused,
 * nothing is shown (the setting in Settings → Review turns these off altogether).
 */
export class NotificationsStore {
  /** The last notification told, shown in the window too. */
  last = $state.raw<ReviewNotification | null>(null);

  constructor(
    earmark: EarmarkApi,
    private readonly open: (labelId: string) => void,
    private readonly system: SystemNotifications | undefined = globalThis.Notification,
    private readonly storage: Pick<Storage, 'getItem' | 'setItem'> = localStorage,
    private readonly focusWindow: () => void = () => window.focus(),
  ) {
    earmark.on('review.notification', (notification) => void this.tell(notification));
  }

  private async permitted(): Promise<boolean> {
    const system = this.system;
    if (!system) return false;
    if (system.permission === 'default' && this.storage.getItem(ASKED_KEY) === null) {
      this.storage.setItem(ASKED_KEY, 'yes');
      await system.requestPermission().catch(() => 'denied');
    }
    return system.permission === 'granted';
  }

  async tell(notification: ReviewNotification): Promise<void> {
    this.last = notification;
    if (!(await this.permitted())) return;
    const shown = new this.system!(notification.title, {
      body: notification.body,
      tag: notification.conversationId,
    });
    shown.onclick = () => {
      this.focusWindow();
      if (notification.labelId) this.open(notification.labelId);
      shown.close();
    };
  }
}

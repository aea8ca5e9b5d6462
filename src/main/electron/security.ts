import type { Session, WebContents } from 'electron';
import { parseExternalUrl } from '../external-url';
import { APP_HOST, APP_SCHEME } from './protocol';

/** Is this URL the app's own renderer? (URL.origin is "null" for custom schemes: compare parts.) */
export const isAppUrl = (url: string) => {
  try {
    const parsed = new URL(url);
    return parsed.protocol === `${APP_SCHEME}:` && parsed.host === APP_HOST;
  } catch {
    return false;
  }
};

/**
 * Locks a window's web contents: no new windows (http(s) links go to the system browser after
 * parsing), no navigation away from the app, no webviews.
 */
export function hardenWebContents(
  contents: WebContents,
  openExternal: (url: string) => unknown,
): void {
  contents.setWindowOpenHandler(({ url }) => {
    try {
      void openExternal(parseExternalUrl(url));
    } catch {
      // Not an http(s) link: nothing to open.
    }
    return { action: 'deny' };
  });
  contents.on('will-navigate', (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Denies every permission request (camera, microphone, notifications, geolocation, …) by default. */
export function denyPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

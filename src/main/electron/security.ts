import type { Session, WebContents } from 'electron';
import { parseExternalUrl } from '../base/external-url';
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

/** The one permission the app's own page gets: writing text to the clipboard (Copy buttons). */
const CLIPBOARD_WRITE = 'clipboard-sanitized-write';

/**
 * Denies every permission request (camera, microphone, notifications, geolocation, clipboard
 * reading, …), except clipboard writes from the app's own page: navigator.clipboard.writeText
 * asks for it (check, then request) and rejects without it.
 */
export function denyPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(permission === CLIPBOARD_WRITE && isAppUrl(details?.requestingUrl ?? '')),
  );
  session.setPermissionCheckHandler(
    (_contents, permission, requestingOrigin) =>
      permission === CLIPBOARD_WRITE && isAppUrl(requestingOrigin ?? ''),
  );
}

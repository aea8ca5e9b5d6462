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

/**
 * What the app's own page may do, and nothing else may: write text to the clipboard (Copy
 * buttons: navigator.clipboard.writeText checks, then requests, and rejects without it) and show
 * notifications (the Notification API, which checks and requests the same way).
 */
const APP_PERMISSIONS: ReadonlySet<string> = new Set([
  'clipboard-sanitized-write',
  'notifications',
]);

/** Whether a frame may have `permission`: one of the app's, asked by the app's top frame. */
const granted = (permission: string, url: string | undefined, isMainFrame: boolean | undefined) =>
  APP_PERMISSIONS.has(permission) && isMainFrame === true && isAppUrl(url ?? '');

/**
 * Denies every permission (camera, microphone, geolocation, clipboard reading, …) to every frame,
 * except the app's permissions to the app's own top frame: never to a subframe or another origin.
 */
export function restrictPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, permission, callback, details) =>
    callback(granted(permission, details?.requestingUrl, details?.isMainFrame)),
  );
  session.setPermissionCheckHandler((_contents, permission, requestingOrigin, details) =>
    granted(permission, requestingOrigin, details?.isMainFrame),
  );
}

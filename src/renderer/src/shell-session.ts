const STORAGE_KEY = 'earmark.shell-token';

/**
 * The browser shell's token: taken from the address Earmark printed (`?token=…`, then dropped
 * from the address bar and the history entry) into localStorage, which is this origin's alone —
 * scheme, host and port: another server on 127.0.0.1 never sees it — so that a reload, or a
 * record opened in a new window, keeps working. A launch makes a new token (and, by default, a
 * new port): an old one left here opens nothing. Null when the page was opened without it.
 */
function takeShellToken(): string | null {
  const url = new URL(location.href);
  const offered = url.searchParams.get('token');
  if (offered) {
    localStorage.setItem(STORAGE_KEY, offered);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
    return offered;
  }
  return localStorage.getItem(STORAGE_KEY);
}

/** A later run refused the token: a reload must not offer it again. */
export function forgetShellToken(): void {
  localStorage.removeItem(STORAGE_KEY);
}

/** Electron's window has the preload's API and needs no token. */
export const shellToken: string | null = window.earmark ? null : takeShellToken();

/** A browser tab opened without the token: it cannot reach Earmark, and says so. */
export const missingShellToken = !window.earmark && shellToken === null;

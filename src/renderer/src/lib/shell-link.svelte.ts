/**
 * The browser shell's link to Earmark, for the screens to say when it is gone (Electron's window
 * has no such link: it stays 'open').
 * - connecting: the first connection, or a dropped one being made again (briefly, unsaid);
 * - stopped: Earmark does not answer (it was closed); the window reconnects when it is back;
 * - outdated: Earmark answers, but this window's token is from an earlier run: only the address
 *   the new run printed opens it.
 */
export type ShellLinkState = 'connecting' | 'open' | 'stopped' | 'outdated';

class ShellLink {
  state = $state<ShellLinkState>('open');
}

export const shellLink = new ShellLink();

/**
 * The browser shell's link to Earmark, for the screens to say when it is gone (Electron's window
 * has no such link: it stays 'open'). The WebSocket bridge (bridge.ts) moves it:
 * - connecting: the first connection, or a dropped one being made again (briefly, unsaid);
 * - stopped: Earmark does not answer (it was closed); the window reconnects when it is back;
 * - outdated: Earmark answers, but this window's token is from an earlier run: only the address
 *   the new run printed opens it. Nothing moves it on from there.
 */
export type ShellLinkState = 'connecting' | 'open' | 'stopped' | 'outdated';

export class ShellLinkStore {
  state = $state<ShellLinkState>('open');

  /** A connection is being made (the first, or again after one dropped). */
  connecting(): void {
    if (this.state !== 'outdated') this.state = 'connecting';
  }

  opened(): void {
    if (this.state !== 'outdated') this.state = 'open';
  }

  /** Nothing answered: Earmark is not running at this address (for now). */
  stopped(): void {
    if (this.state !== 'outdated') this.state = 'stopped';
  }

  /** A later run refuses this window's token: no retry can succeed. */
  outdated(): void {
    this.state = 'outdated';
  }

  get isOutdated(): boolean {
    return this.state === 'outdated';
  }
}

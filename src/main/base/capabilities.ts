/**
 * What the shell hosting the core can do, as capabilities (never the shell's name): each is
 * present where the shell has it. Electron gives all three; the browser shell opens links and
 * folders where xdg-open is on PATH and has no folder dialog.
 */
export interface ShellCapabilities {
  /** Opens a parsed http(s) URL in the system browser. */
  openExternal?: (url: string) => Promise<void> | void;
  /** The system's folder dialog, starting in `defaultPath`; null when cancelled. */
  chooseFolder?: (defaultPath: string) => Promise<string | null>;
  /** Shows a folder in the system's file manager. */
  openFolder?: (path: string) => Promise<void>;
  /**
   * The page-relative URL that plays a label's audio, when the shell's media route needs more
   * than `media/<labelId>` (the browser shell's carries a capability); that path otherwise.
   */
  mediaUrl?: (labelId: string) => string;
  /**
   * Forgets what the shell itself keeps of a removed account (the browser shell: recordings in
   * its Chromium profile's disk cache), after the core has deleted what it keeps.
   */
  forgetAccount?: (accountId: string) => Promise<void>;
}

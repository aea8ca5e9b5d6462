/** How long a copy's outcome stays on screen. */
const SHOWN_MS = 4000;

/**
 * Copying to the clipboard with its outcome in words for a status line: what was copied, or
 * why it could not be; the words go after a few seconds. One per copy button.
 */
export class CopyFeedback {
  message = $state.raw<{ ok: boolean; text: string } | null>(null);
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Runs `write` (a clipboard write); `done` says what was copied, `failed` what was not. */
  async copy(write: () => Promise<void>, done: string, failed: string): Promise<void> {
    clearTimeout(this.timer);
    try {
      await write();
      this.message = { ok: true, text: done };
    } catch (error) {
      this.message = {
        ok: false,
        text: `${failed}: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
    this.timer = setTimeout(() => (this.message = null), SHOWN_MS);
  }

  /** The component is going: no timer outlives it. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}

/** How long a copy's outcome stays on screen. */
const SHOWN_MS = 4000;

/**
 * Copying to the clipboard with its outcome in words for a status line: what was copied, or
 * why it could not be; the words go after a few seconds. One per copy button.
 */
export class CopyFeedbackStore {
  message = $state.raw<{ ok: boolean; text: string } | null>(null);
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * Runs `write` (a clipboard write); `done` says what was copied, `failed` what was not (with the
   * clipboard's reason after it, or given it). True when it was copied.
   */
  async copy(
    write: () => Promise<void>,
    done: string,
    failed: string | ((reason: string) => string),
  ): Promise<boolean> {
    clearTimeout(this.timer);
    let copied = true;
    try {
      await write();
      this.message = { ok: true, text: done };
    } catch (error) {
      copied = false;
      const reason = error instanceof Error ? error.message : String(error);
      this.message = {
        ok: false,
        text: typeof failed === 'string' ? `${failed}: ${reason}` : failed(reason),
      };
    }
    this.timer = setTimeout(() => (this.message = null), SHOWN_MS);
    return copied;
  }

  /** The component is going: no timer outlives it. */
  dispose(): void {
    clearTimeout(this.timer);
  }
}

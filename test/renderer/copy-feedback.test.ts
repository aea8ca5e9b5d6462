import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CopyFeedbackStore } from '../../src/renderer/src/lib/copy-feedback.svelte';

describe('the outcome of a copy', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('says what was copied, or why not, then clears after a few seconds', async () => {
    const feedback = new CopyFeedbackStore();
    await feedback.copy(async () => undefined, 'Copied.', 'Could not copy');
    expect(feedback.message).toEqual({ ok: true, text: 'Copied.' });
    await vi.advanceTimersByTimeAsync(4000);
    expect(feedback.message).toBeNull();
    await feedback.copy(
      () => Promise.reject(new Error('Clipboard access denied.')),
      'Copied.',
      'Could not copy',
    );
    expect(feedback.message).toEqual({
      ok: false,
      text: 'Could not copy: Clipboard access denied.',
    });
    feedback.dispose();
    await vi.advanceTimersByTimeAsync(4000);
    expect(feedback.message).not.toBeNull(); // disposed: no timer touches it any more
  });
});

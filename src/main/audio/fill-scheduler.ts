/**
 * Which partly cached recording fills now. One at a time, so the recording being played gets
 * the whole link: the one demanded most recently fills; the others wait their turn and go on,
 * most recent first, once it is whole (or stops: offline, no audio). A recording opened while
 * another fills takes the link from it at once.
 */

export interface Fillable {
  /** Stops the request under way (the stream waits for its turn again). */
  pause(): void;
}

export class FillScheduler<S extends Fillable = Fillable> {
  /** Streams that want to fill, the most recently demanded last. */
  private queue: S[] = [];
  private wakers = new Map<S, () => void>();

  /** The stream whose turn it is, if any. */
  get current(): S | undefined {
    return this.queue.at(-1);
  }

  /** `stream` was just demanded: its turn now; the one filling before it pauses. */
  claim(stream: S): void {
    const before = this.current;
    this.queue = [...this.queue.filter((s) => s !== stream), stream];
    if (before && before !== stream) before.pause();
    this.wake();
  }

  /** Resolves when it is `stream`'s turn to fill (at once when it is). */
  turn(stream: S): Promise<void> {
    if (!this.queue.includes(stream)) this.queue.unshift(stream);
    if (this.current === stream) return Promise.resolve();
    return new Promise((resolve) => this.wakers.set(stream, resolve));
  }

  /** `stream` is done filling (whole, failed or closed): the next one's turn. */
  release(stream: S): void {
    this.queue = this.queue.filter((s) => s !== stream);
    const waker = this.wakers.get(stream);
    this.wakers.delete(stream);
    waker?.();
    this.wake();
  }

  private wake(): void {
    const current = this.current;
    if (!current) return;
    const waker = this.wakers.get(current);
    if (waker) {
      this.wakers.delete(current);
      waker();
    }
  }
}

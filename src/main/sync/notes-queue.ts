import type { Label } from '../../shared/api';

export interface NotesQueueOptions {
  concurrency: number;
  /** Fetched labels written per transaction. */
  batch: number;
  /**
   * The label with its notes; null when the service no longer has it; 'failed' when this label
   * alone could not be fetched (it stays marked for the next run).
   */
  fetch: (id: string) => Promise<Label | null | 'failed'>;
  store: (labels: Label[]) => Promise<void>;
  remove: (ids: string[]) => Promise<number>;
  /** The first failure stops the queue (what is left stays marked in the cache). */
  onError: (error: unknown) => void;
  /** After each batch is written. */
  onWritten: () => void;
}

/**
 * Fetches labels' notes with bounded concurrency and writes them in batches, one transaction at
 * a time. The cache marks which labels need notes (`notes_stale`), so what a stopped or killed
 * run did not fetch is fetched by the next one.
 */
export class NotesQueue {
  /**
   * Ids waiting, first out at `head`. Not shift(): on an array of a million ids each shift moves
   * them all, and a first sync at 1M spent nine tenths of its main thread there.
   */
  private queue: string[] = [];
  private head = 0;
  /**
   * Labels queued in this run, fetched or not: each is asked for once a run (one whose answer
   * failed stays marked in the cache and is tried next run; a list of those left by a stopped run,
   * read before the window was listed, does not bring back one fetched since).
   */
  private readonly known = new Set<string>();
  private active = 0;
  private stopped = false;
  private fetchedLabels: Label[] = [];
  private goneIds: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private idle: (() => void)[] = [];
  fetched = 0;
  failed = 0;
  deleted = 0;

  constructor(private readonly options: NotesQueueOptions) {}

  /** Labels fetched or under way, not yet written, plus those waiting. */
  get queued(): number {
    return this.waiting + this.active;
  }

  private get waiting(): number {
    return this.queue.length - this.head;
  }

  add(ids: readonly string[]): void {
    if (this.stopped) return;
    for (const id of ids) {
      if (this.known.has(id)) continue;
      this.known.add(id);
      this.queue.push(id);
    }
    this.pump();
  }

  /** Stops fetching; what was fetched is still written. */
  stop(): void {
    this.stopped = true;
    this.queue = [];
    this.head = 0;
  }

  /** Resolves when nothing is waiting or under way and every fetched label is written. */
  async drain(): Promise<void> {
    if (this.active > 0 || this.waiting > 0) {
      await new Promise<void>((resolve) => this.idle.push(resolve));
    }
    await this.flush();
  }

  private pump(): void {
    while (!this.stopped && this.active < this.options.concurrency && this.waiting > 0) {
      const id = this.queue[this.head++]!;
      this.active++;
      void this.work(id);
    }
    // Drop the ids taken once they are half the array: each id is moved at most once more.
    if (this.head > 1024 && this.head * 2 >= this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
  }

  private async work(id: string): Promise<void> {
    try {
      const label = await this.options.fetch(id);
      if (label === 'failed') {
        this.failed++;
        return;
      }
      this.fetched++;
      if (label) this.fetchedLabels.push(label);
      else this.goneIds.push(id);
      if (this.fetchedLabels.length + this.goneIds.length >= this.options.batch) await this.flush();
    } catch (error) {
      this.options.onError(error);
      this.stop();
    } finally {
      this.active--;
      this.pump();
      if (this.active === 0 && this.waiting === 0) {
        const waiting = this.idle;
        this.idle = [];
        waiting.forEach((resolve) => resolve());
      }
    }
  }

  /** Writes what was fetched (after the writes before it). */
  flush(): Promise<void> {
    const labels = this.fetchedLabels;
    const gone = this.goneIds;
    this.fetchedLabels = [];
    this.goneIds = [];
    if (labels.length === 0 && gone.length === 0) return this.writing;
    this.writing = this.writing.then(async () => {
      try {
        if (labels.length > 0) await this.options.store(labels);
        if (gone.length > 0) this.deleted += await this.options.remove(gone);
        this.options.onWritten();
      } catch (error) {
        this.options.onError(error);
        this.stop();
      }
    });
    return this.writing;
  }
}

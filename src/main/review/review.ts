import {
  DEFAULT_REVIEW_SETTINGS,
  SIGN_OFF_BOARD_NAME,
  type ChannelInput,
  type RecordReview,
  type ReviewPage,
  type ReviewSettings,
  type ReviewSettingsView,
} from '../../shared/ipc';
import { itemKey, reasonsChangeAt, reviewItem, type ReviewItem } from '../../shared/review/queue';
import {
  queuePage,
  withItemsJudgedAnew,
  type QueueEntry,
  type QueueIndex,
} from '../../shared/review/queue-index';
import type { Cache } from '../cache';
import { AppError } from '../base/errors';

export interface ReviewDeps {
  cache(): Promise<Cache>;
  /** The queue's count changed (review.changed). */
  changed(count: number): void;
  /** Whether the user may turn sign-off on (an owner or admin); refuses with the reason. */
  mayTurnOnSignOff(): Promise<void>;
  now?: () => number;
}

type ListInput = ChannelInput<'review.list'>;

const SIGN_OFF_WRITES =
  'Signing a recording off adds a task to the clinic’s “Earmark sign-off” board (created the ' +
  'first time): its title names the recording, it links back to it, your name is its assignee ' +
  'and the time is its date done. Every Earmark of the clinic reads that board and leaves ' +
  'signed-off recordings out of its queue. Nothing is written while sign-off is off.';

const PAGE_SIZE = 100;

/**
 * The review queue of the active account, read from its cache (so offline too): each item with
 * its reasons (src/shared/review/queue.ts), this user's marks, and the settings. Every change of
 * marks is said with the new count (review.changed), which the sidebar shows.
 */
export class Review {
  private readonly now: () => number;
  /** The queue read last, or being read: asks meanwhile wait for that read (seconds at 1M). */
  private kept: { cache: Cache; index: Promise<QueueIndex> } | null = null;

  constructor(private readonly deps: ReviewDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * The queue's index (src/shared/review/queue-index.ts), kept from the last reading until the
   * clock would change a reason in it; a sync, a mark, an assignment or a sign-off brings it up
   * to date through refresh(). The list with the reviewed ones too is read each time.
   */
  private async index(showReviewed = false): Promise<QueueIndex> {
    const cache = await this.deps.cache();
    if (showReviewed) return this.reading(cache, true);
    const kept = this.kept;
    if (kept?.cache === cache) {
      const index = await kept.index;
      if (this.now() < index.validUntilMs) return index;
    }
    return this.keep(cache, this.wholeReading(cache));
  }

  private reading(cache: Cache, showReviewed: boolean): Promise<QueueIndex> {
    return cache.read.reviewQueue({
      showReviewed,
      signOffBoardName: SIGN_OFF_BOARD_NAME,
      nowMs: this.now(),
    });
  }

  /** The queue read whole, the cache logging what changes in it from before the reading on. */
  private async wholeReading(cache: Cache): Promise<QueueIndex> {
    await cache.write.trackQueueChanges();
    return this.reading(cache, false);
  }

  private keep(cache: Cache, index: Promise<QueueIndex>): Promise<QueueIndex> {
    this.kept = { cache, index };
    // A read that failed is not kept: the next asks again.
    index.catch(() => {
      if (this.kept?.index === index) this.kept = null;
    });
    return index;
  }

  /** Items read whole, judged now, in the order asked. */
  private async itemsOf(entries: readonly QueueEntry[]): Promise<ReviewItem[]> {
    if (entries.length === 0) return [];
    const facts = await (
      await this.deps.cache()
    ).read.reviewFacts({
      signOffBoardName: SIGN_OFF_BOARD_NAME,
      records: entries.filter((e) => e.kind === 'record').map((e) => e.id),
      conversations: entries.filter((e) => e.kind === 'conversation').map((e) => e.id),
    });
    const now = this.now();
    const byKey = new Map(facts.map((f) => [itemKey(f), reviewItem(f, now)]));
    return entries.flatMap((e) => byKey.get(itemKey(e)) ?? []);
  }

  async list({ filter = {}, fromMs, toMs, offset = 0, limit = PAGE_SIZE }: ListInput = {}) {
    const index = await this.index(filter.showReviewed === true);
    const { entries, ...counts } = queuePage(index, { filter, fromMs, toMs, offset, limit });
    const items = await this.itemsOf(entries);
    const records = items.filter((i) => i.kind === 'record').map((i) => i.id);
    const previews =
      records.length > 0 ? await (await this.deps.cache()).read.reviewPreviews(records) : {};
    return {
      ...counts,
      items: items.map((i) => (i.kind === 'record' ? { ...i, preview: previews[i.id] ?? '' } : i)),
    } satisfies ReviewPage;
  }

  async count(): Promise<number> {
    return queuePage(await this.index(), { offset: 0, limit: 0 }).count;
  }

  /**
   * Brings the kept queue up to date after a change (a sync, a mark, a sign-off, a patient
   * assigned) and says its count: the items the cache logged as changed since the queue was read
   * (migration 012) are read and judged anew into it (withItemsJudgedAnew). It is read whole
   * when nothing is kept for this cache (another account), or when the log cannot say. A whole
   * reading takes 3.2 s of a core at 1M records; a sync of a working day's minutes brings a few.
   */
  async refresh(): Promise<number> {
    const cache = await this.deps.cache();
    const kept = this.kept;
    if (kept?.cache === cache)
      this.keep(
        cache,
        kept.index.then(
          (index) => this.withChanges(cache, index),
          // The reading it kept failed: read whole now.
          () => this.wholeReading(cache),
        ),
      );
    else this.kept = null;
    const count = await this.count();
    this.deps.changed(count);
    return count;
  }

  /** `index` with the changes the cache logged since it was read; read whole when it cannot say. */
  private async withChanges(cache: Cache, index: QueueIndex): Promise<QueueIndex> {
    const changes = await cache.read.queueChanges();
    if (changes.whole) return this.wholeReading(cache);
    const asked: QueueEntry[] = [
      ...changes.records.map((id) => ({ kind: 'record' as const, id })),
      ...changes.conversations.map((id) => ({ kind: 'conversation' as const, id })),
    ];
    const updated = withItemsJudgedAnew(index, asked, await this.itemsOf(asked), (item) =>
      reasonsChangeAt(item, this.now()),
    );
    await cache.write.forgetQueueChanges(changes.upTo);
    return updated;
  }

  async mark(input: ChannelInput<'review.mark'>): Promise<number> {
    const { write } = await this.deps.cache();
    const marks = { records: input.records, conversations: input.conversations };
    if (input.reviewed) await write.markReviewed(marks, this.now());
    else await write.markUnreviewed(marks);
    return this.refresh();
  }

  /** A record's review, for the record view. */
  async record(labelId: string): Promise<RecordReview> {
    const [[item], settings] = await Promise.all([
      this.itemsOf([{ kind: 'record', id: labelId }]),
      this.settings(),
    ]);
    return {
      reviewed: item?.reviewed ?? { state: 'never' },
      signedOff: item?.signedOff ?? null,
      signOffEnabled: settings.settings.signOff,
    };
  }

  async settings(): Promise<ReviewSettingsView> {
    const saved = await (await this.deps.cache()).read.reviewSettings();
    return { settings: { ...DEFAULT_REVIEW_SETTINGS, ...saved }, signOffWrites: SIGN_OFF_WRITES };
  }

  async saveSettings(patch: Partial<ReviewSettings>): Promise<ReviewSettingsView> {
    if (patch.signOff === true && !(await this.settings()).settings.signOff)
      await this.deps.mayTurnOnSignOff();
    await (await this.deps.cache()).write.saveReviewSettings(patch);
    return this.settings();
  }

  /** Refuses what sign-off needs when it is off here. */
  async requireSignOff(): Promise<void> {
    if (!(await this.settings()).settings.signOff)
      throw new AppError(
        'invalid_input',
        'Sign-off is off on this computer. An owner or admin of the clinic turns it on in Settings → Review.',
      );
  }
}

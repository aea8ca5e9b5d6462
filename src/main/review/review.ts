import {
  DEFAULT_REVIEW_SETTINGS,
  SIGN_OFF_BOARD_NAME,
  type ChannelInput,
  type RecordReview,
  type ReviewPage,
  type ReviewSettings,
  type ReviewSettingsView,
} from '../../shared/ipc';
import {
  compareItems,
  countsTowardQueue,
  matchesFilter,
  reviewItem,
  type ReviewItem,
} from '../../shared/review/queue';
import { dateKey, dayRange, localDate, machineTimeZone } from '../../shared/timeline';
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
/** How long the queue read last is used as it is (reasons that depend on the time move on). */
const KEPT_MS = 60_000;

/**
 * Items per clinic-local day, for items newest first: a day's bounds are worked out once per day
 * (a zone's wall clock costs an Intl call), not once per item.
 */
function countByDay(items: readonly ReviewItem[]): Map<string, number> {
  const days = new Map<string, number>();
  // Asked once: the machine's zone is itself an Intl call, as dear as a day's bounds.
  const timeZone = machineTimeZone();
  let day: { key: string; startMs: number; endMs: number } | undefined;
  for (const { startMs } of items) {
    if (startMs === null) continue;
    if (!day || startMs < day.startMs || startMs >= day.endMs) {
      const date = localDate(startMs, timeZone);
      day = { key: dateKey(date), ...dayRange(date, timeZone) };
    }
    days.set(day.key, (days.get(day.key) ?? 0) + 1);
  }
  return days;
}

/**
 * The review queue of the active account, read from its cache (so offline too): each item with
 * its reasons (src/shared/review/queue.ts), this user's marks, and the settings. Every change of
 * marks is said with the new count (review.changed), which the sidebar shows.
 */
export class Review {
  private readonly now: () => number;
  private kept: { cache: Cache; at: number; items: ReviewItem[] } | null = null;

  constructor(private readonly deps: ReviewDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * The queue's items: kept from the last reading for a while (a sync, a mark or a sign-off reads
   * it anew through refresh()), so opening Review does not wait for 10,000 items to be read and
   * judged again; everything else (reviewed ones shown, one record) is read each time.
   */
  private async items(
    query: { showReviewed: boolean; labelId?: string } = { showReviewed: false },
  ): Promise<ReviewItem[]> {
    const cache = await this.deps.cache();
    const kept = this.kept;
    const plain = !query.showReviewed && query.labelId === undefined;
    if (plain && kept?.cache === cache && this.now() - kept.at < KEPT_MS) return kept.items;
    const facts = await cache.read.reviewFacts({ ...query, signOffBoardName: SIGN_OFF_BOARD_NAME });
    const now = this.now();
    const items = facts.map((f) => reviewItem(f, now));
    if (plain) this.kept = { cache, at: now, items };
    return items;
  }

  async list({ filter = {}, fromMs, toMs, offset = 0, limit = PAGE_SIZE }: ListInput = {}) {
    const cache = await this.deps.cache();
    const all = await this.items({ showReviewed: filter.showReviewed === true });
    const count = all.filter(countsTowardQueue).length;
    const sources = new Map<string, ReviewPage['sources'][number]>();
    for (const item of all) {
      if (!item.inQueue) continue;
      const source = sources.get(item.source.key) ?? { ...item.source, count: 0 };
      source.count += 1;
      sources.set(item.source.key, source);
    }
    const matching = all
      .filter((item) => matchesFilter(item, filter))
      .filter(
        (item) =>
          (fromMs === undefined || (item.startMs !== null && item.startMs >= fromMs)) &&
          (toMs === undefined || (item.startMs !== null && item.startMs < toMs)),
      )
      .sort(compareItems);
    const days = countByDay(matching);
    const items = matching.slice(offset, offset + limit);
    const records = items.filter((i) => i.kind === 'record').map((i) => i.id);
    const previews = records.length > 0 ? await cache.read.reviewPreviews(records) : {};
    return {
      items: items.map((i) => (i.kind === 'record' ? { ...i, preview: previews[i.id] ?? '' } : i)),
      total: matching.length,
      count,
      days: [...days].map(([key, n]) => ({ key, count: n })),
      sources: [...sources.values()].sort((a, b) => a.name.localeCompare(b.name)),
    } satisfies ReviewPage;
  }

  async count(): Promise<number> {
    return (await this.items()).filter(countsTowardQueue).length;
  }

  /** Reads the queue anew and says its count (after a sync, a mark, a sign-off read, a switch of account). */
  async refresh(): Promise<number> {
    this.kept = null;
    const count = await this.count();
    this.deps.changed(count);
    return count;
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
      this.items({ showReviewed: true, labelId }),
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

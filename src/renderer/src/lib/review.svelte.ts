import type {
  EarmarkApi,
  IpcError,
  ReviewFilter,
  ReviewItem,
  ReviewPage,
} from '../../../shared/ipc';
import { itemKey, reviewDays } from '../../../shared/review/queue';
import { dayRange, parseDateKey, type DayGroup } from '../../../shared/timeline';
import { SpokenByStore } from './spoken-by.svelte';

/**
 * The Review screen's state and its calls to main: the queue newest first (pages of PAGE_SIZE as
 * the list is scrolled), its filters, the focused item and the selection, marking reviewed or
 * not (with undo), the count the sidebar shows (review.changed), and where the focus goes when
 * the user comes back from an item they opened: the next one. Lives as long as the window, so
 * Back finds the same filters and place.
 */

export const PAGE_SIZE = 100;
/** The most one "select the day" takes (main's cap on a page). */
const DAY_LIMIT = 5000;

export type Marked = { items: ReviewItem[]; reviewed: boolean };

/** Keys as an object to look them up in (a plain value: the store's state stays immutable). */
const keySet = (keys: readonly string[]): Record<string, true> =>
  Object.fromEntries(keys.map((key) => [key, true]));

export class ReviewStore {
  items = $state.raw<ReviewItem[]>([]);
  /** Items matching the filter (all pages). */
  total = $state(0);
  /** The queue's count (the sidebar's); null until main has said it. */
  count = $state<number | null>(null);
  dayCounts = $state.raw<Record<string, number>>({});
  sources = $state.raw<ReviewPage['sources']>([]);
  filter = $state.raw<ReviewFilter>({});
  focused = $state<string | null>(null);
  /** The keys of the selected items. */
  selected = $state.raw<readonly string[]>([]);
  loaded = $state(false);
  loading = $state(false);
  error = $state<IpcError | null>(null);
  /** The last mark, for "Mark unreviewed" (or "Mark reviewed" after an undo). */
  lastMarked = $state.raw<Marked | null>(null);
  /** Who spoke in the listed records, where the speakers are named on this computer. */
  readonly spoken: SpokenByStore;
  /** The item to focus when the screen comes back from one that was opened. */
  private returnTo: { key: string | null; index: number } | null = null;
  private generation = 0;
  private reloadTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly earmark: EarmarkApi,
    private readonly timeZone?: string,
  ) {
    this.spoken = new SpokenByStore(earmark);
    earmark.on('review.changed', ({ count }) => {
      this.count = count;
      // A sync or another window changed the queue: show it, keeping the place.
      if (this.loaded) this.scheduleReload();
    });
    void earmark.invoke('review.count', {}).then((result) => {
      if (result.ok && this.count === null) this.count = result.value;
    });
  }

  get days(): DayGroup<ReviewItem>[] {
    return reviewDays(this.items, this.timeZone).days;
  }

  get undated(): ReviewItem[] {
    return reviewDays(this.items, this.timeZone).undated;
  }

  get focusedItem(): ReviewItem | null {
    return this.items.find((item) => itemKey(item) === this.focused) ?? null;
  }

  get filtered(): boolean {
    const f = this.filter;
    return Boolean(f.sources?.length || f.kinds?.length || f.reasons?.length || f.showReviewed);
  }

  /**
   * What `r` and the buttons act on: the selection, else the focused item; never what is being
   * processed (shown, not actionable).
   */
  get targets(): ReviewItem[] {
    if (this.selected.length > 0) {
      const chosen = keySet(this.selected);
      return this.items.filter((i) => chosen[itemKey(i)] && i.actionable);
    }
    const item = this.focusedItem;
    return item?.actionable ? [item] : [];
  }

  /** The first page (or as many items as are shown, to keep the place), then the focus. */
  async load(): Promise<void> {
    const generation = ++this.generation;
    this.loading = true;
    const limit = Math.max(PAGE_SIZE, Math.min(this.items.length, DAY_LIMIT));
    const result = await this.earmark.invoke('review.list', { filter: this.filter, limit });
    if (generation !== this.generation) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.error = null;
    const previous = this.items;
    this.show(result.value, result.value.items);
    this.loaded = true;
    this.placeFocus(previous);
  }

  /** The next page, when the list is scrolled (or the focus moved) to its end. */
  async more(): Promise<void> {
    if (this.loading || this.items.length >= this.total) return;
    const generation = this.generation;
    this.loading = true;
    const result = await this.earmark.invoke('review.list', {
      filter: this.filter,
      offset: this.items.length,
      limit: PAGE_SIZE,
    });
    if (generation !== this.generation) return;
    this.loading = false;
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const known = keySet(this.items.map(itemKey));
    this.show(result.value, [
      ...this.items,
      ...result.value.items.filter((i) => !known[itemKey(i)]),
    ]);
  }

  private show(page: ReviewPage, items: ReviewItem[]): void {
    this.items = items;
    void this.spoken.load(items.filter((i) => i.kind === 'record').map((i) => i.id));
    this.total = page.total;
    this.count = page.count;
    this.sources = page.sources;
    this.dayCounts = Object.fromEntries(page.days.map((d) => [d.key, d.count]));
    const keys = keySet(items.map(itemKey));
    if (this.selected.some((key) => !keys[key]))
      this.selected = this.selected.filter((key) => keys[key]);
  }

  /** Keeps the focus on its item; else on the one now where it was (the next); else the first. */
  private placeFocus(previous: readonly ReviewItem[]): void {
    const keys = this.items.map(itemKey);
    const wanted = this.returnTo;
    this.returnTo = null;
    if (wanted) {
      this.focused =
        (wanted.key && keys.includes(wanted.key) ? wanted.key : null) ??
        keys[Math.min(wanted.index, keys.length - 1)] ??
        null;
      return;
    }
    if (this.focused && keys.includes(this.focused)) return;
    const at = previous.findIndex((item) => itemKey(item) === this.focused);
    this.focused = keys[Math.max(0, Math.min(at, keys.length - 1))] ?? null;
  }

  private scheduleReload(): void {
    clearTimeout(this.reloadTimer);
    this.reloadTimer = setTimeout(() => void this.load(), 150);
  }

  setFilter(filter: ReviewFilter): void {
    this.filter = filter;
    this.selected = [];
    this.items = [];
    this.loaded = false;
    void this.load();
  }

  focus(key: string): void {
    this.focused = key;
  }

  /** Moves the focus by `delta` items (↑/↓, j/k), asking for more at the end of what is loaded. */
  move(delta: number): void {
    const keys = this.items.map(itemKey);
    if (keys.length === 0) return;
    const at = this.focused === null ? -1 : keys.indexOf(this.focused);
    const next = Math.max(0, Math.min(keys.length - 1, at + delta));
    this.focused = keys[next]!;
    if (next >= keys.length - 5) void this.more();
  }

  toFirst(): void {
    this.focused = this.items[0] ? itemKey(this.items[0]) : null;
  }

  toLast(): void {
    const last = this.items.at(-1);
    this.focused = last ? itemKey(last) : null;
  }

  toggle(key: string): void {
    this.selected = this.selected.includes(key)
      ? this.selected.filter((k) => k !== key)
      : [...this.selected, key];
  }

  clearSelection(): void {
    this.selected = [];
  }

  /** Selects every item of the focused item's day (Ctrl/Cmd+A), those not loaded yet too. */
  async selectDay(): Promise<void> {
    const item = this.focusedItem;
    if (!item || item.startMs === null) return;
    const day = this.days.find((d) => d.items.some((i) => itemKey(i) === itemKey(item)));
    const date = day && parseDateKey(day.key);
    if (!date) return;
    const { startMs, endMs } = dayRange(date, this.timeZone);
    const result = await this.earmark.invoke('review.list', {
      filter: this.filter,
      fromMs: startMs,
      toMs: endMs,
      limit: DAY_LIMIT,
    });
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    const known = keySet(this.items.map(itemKey));
    const missing = result.value.items.filter((i) => !known[itemKey(i)]);
    if (missing.length > 0)
      this.items = [...this.items, ...missing].sort(
        (a, b) => (b.startMs ?? -Infinity) - (a.startMs ?? -Infinity),
      );
    this.selected = result.value.items.map(itemKey);
  }

  /** Marks the targets reviewed (or not); the focus goes to the item after them. */
  async mark(reviewed: boolean, items: ReviewItem[] = this.targets): Promise<void> {
    if (items.length === 0) return;
    const result = await this.earmark.invoke('review.mark', {
      records: items.filter((i) => i.kind === 'record').map((i) => i.id),
      conversations: items.filter((i) => i.kind === 'conversation').map((i) => i.id),
      reviewed,
    });
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    this.count = result.value;
    this.lastMarked = { items, reviewed };
    this.selected = [];
    const keys = keySet(items.map(itemKey));
    if (reviewed && !this.filter.showReviewed) {
      const index = this.items.findIndex((i) => keys[itemKey(i)]);
      this.items = this.items.filter((i) => !keys[itemKey(i)]);
      this.total = Math.max(0, this.total - items.length);
      const next = this.items[Math.min(Math.max(index, 0), this.items.length - 1)];
      this.focused = next ? itemKey(next) : null;
    }
    await this.load();
  }

  /** Takes the last mark back ("Mark unreviewed" after `r`). */
  async undo(): Promise<void> {
    const last = this.lastMarked;
    if (!last) return;
    await this.mark(!last.reviewed, last.items);
    this.focused = last.items[0] ? itemKey(last.items[0]) : this.focused;
  }

  /** An item is being opened: coming back focuses the one after it. */
  opening(item: ReviewItem): void {
    const index = this.items.findIndex((i) => itemKey(i) === itemKey(item));
    const next = this.items[index + 1];
    this.returnTo = { key: next ? itemKey(next) : null, index: index + 1 };
    this.focused = itemKey(item);
  }

  /** Completes a conversation still active after its range ended; main follows it from there. */
  async complete(item: ReviewItem): Promise<void> {
    if (item.kind !== 'conversation' || item.deviceId === null) return;
    const ref = { deviceId: item.deviceId, conversationId: item.id };
    const result = await this.earmark.invoke('hub.complete', ref);
    if (!result.ok) {
      this.error = result.error;
      return;
    }
    await this.earmark.invoke('conversations.follow', ref);
    await this.load();
  }
}

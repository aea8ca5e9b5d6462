import { dateKey, dayRange, localDate, machineTimeZone } from '../timeline';
import {
  compareItems,
  countsTowardQueue,
  itemKey,
  REVIEW_REASONS,
  type ReviewFilter,
  type ReviewItem,
  type ReviewItemKind,
} from './queue';

/**
 * The review queue at a hospital's scale. A new desktop of a clinic with three years of records
 * has every one of them "new": a million items. Kept as objects they held gigabytes and each
 * page sorted them all, so the queue is kept as a few numbers an item instead, newest first
 * (compareItems): a page, its filters, its days and its counts are a pass over arrays, and only
 * the page's items are read whole. Items are judged (reviewItem) as they are packed.
 */
export interface QueueIndex {
  /** Each item's id (a record's label id or a conversation's id), newest first. */
  ids: string[];
  /** Each item's start; NaN when undated (a service that sends a conversation no times). */
  startMs: Float64Array;
  /** Each item's source, as its place in `sources`. */
  source: Uint32Array;
  /** Each item's kind, state and reasons (the bits below). */
  flags: Uint16Array;
  /** The rooms and devices items come from. */
  sources: { key: string; name: string }[];
  /**
   * When the clock alone next changes an item's reasons (an active conversation's end passes);
   * Infinity when nothing would. The index is good until then, or until what it was read from
   * changes.
   */
  validUntilMs: number;
}

const CONVERSATION = 1;
const IN_QUEUE = 2;
/** Counts toward the sidebar's number (countsTowardQueue). */
const COUNTED = 4;
/** The reasons' bits come after the three above, in REVIEW_REASONS's order. */
const REASON_BITS = 3;
const reasonBit = (kind: ReviewItem['reasons'][number]['kind']): number =>
  1 << (REASON_BITS + REVIEW_REASONS.indexOf(kind));

const kindOf = (flags: number): ReviewItemKind =>
  flags & CONVERSATION ? 'conversation' : 'record';

/** An item's kind, state and reasons as the index keeps them. */
function packedFlags(item: ReviewItem): number {
  let flags = item.kind === 'conversation' ? CONVERSATION : 0;
  if (item.inQueue) flags |= IN_QUEUE;
  if (countsTowardQueue(item)) flags |= COUNTED;
  for (const reason of item.reasons) flags |= reasonBit(reason.kind);
  return flags;
}

/** An item of the index: enough to read it whole. */
export interface QueueEntry {
  kind: ReviewItemKind;
  id: string;
}

/** Each source's place in `sources`, a source not there yet added at the end. */
function sourcePlaces(sources: QueueIndex['sources']): (source: ReviewItem['source']) => number {
  const places = new Map(sources.map((source, at) => [source.key, at]));
  return (source) => {
    let place = places.get(source.key);
    if (place === undefined) {
      place = sources.push({ ...source }) - 1;
      places.set(source.key, place);
    }
    return place;
  };
}

/** Packs judged items, given in the queue's order (compareItems), into an index. */
class QueueIndexBuilder {
  private readonly ids: string[] = [];
  private readonly starts: number[] = [];
  private readonly sourceOf: number[] = [];
  private readonly flags: number[] = [];
  private readonly sources: QueueIndex['sources'] = [];
  private readonly placeOfSource = sourcePlaces(this.sources);

  add(item: ReviewItem): void {
    this.ids.push(item.id);
    this.starts.push(item.startMs ?? Number.NaN);
    this.sourceOf.push(this.placeOfSource(item.source));
    this.flags.push(packedFlags(item));
  }

  build(validUntilMs: number): QueueIndex {
    return {
      ids: this.ids,
      startMs: Float64Array.from(this.starts),
      source: Uint32Array.from(this.sourceOf),
      flags: Uint16Array.from(this.flags),
      sources: this.sources,
      validUntilMs,
    };
  }
}

/**
 * Merges the queue's records and its conversations, each already in the queue's order, into
 * one index. `changesAt` is when the clock alone would change an item's reasons (null: never).
 */
export function indexQueue(
  records: Iterable<ReviewItem>,
  conversations: Iterable<ReviewItem>,
  changesAt: (item: ReviewItem) => number | null,
): QueueIndex {
  const builder = new QueueIndexBuilder();
  let validUntilMs = Number.POSITIVE_INFINITY;
  const recordsLeft = records[Symbol.iterator]();
  const conversationsLeft = conversations[Symbol.iterator]();
  let record = recordsLeft.next();
  let conversation = conversationsLeft.next();
  while (!record.done || !conversation.done) {
    const takeRecord =
      conversation.done || (!record.done && compareItems(record.value, conversation.value) <= 0);
    const item = takeRecord ? record.value : conversation.value;
    validUntilMs = Math.min(validUntilMs, changesAt(item) ?? Number.POSITIVE_INFINITY);
    builder.add(item);
    if (takeRecord) record = recordsLeft.next();
    else conversation = conversationsLeft.next();
  }
  return builder.build(validUntilMs);
}

/**
 * Whether the queue read without the reviewed ones holds an item: not reviewed as it is now, and
 * not signed off (as src/main/cache/review.ts's RECORDS_IN_QUEUE and CONVERSATIONS_IN_QUEUE
 * choose them).
 */
export const heldInQueue = (item: ReviewItem): boolean =>
  item.reviewed.state !== 'current' && item.signedOff === null;

/** An index's item as compareItems orders it. */
const heldAt = (index: QueueIndex, at: number) => {
  const startMs = index.startMs[at]!;
  return { id: index.ids[at]!, startMs: Number.isNaN(startMs) ? null : startMs };
};

/** Where `item` goes in the index's order: before the first item it does not come after. */
function placeOf(index: QueueIndex, item: Pick<ReviewItem, 'startMs' | 'id'>): number {
  let low = 0;
  let high = index.ids.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareItems(item, heldAt(index, middle)) <= 0) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** Where the index holds an item: looked up by its start where it is known, else searched for. */
function positionOf(index: QueueIndex, entry: QueueEntry, now?: ReviewItem): number {
  const matches = (at: number) =>
    index.ids[at] === entry.id && kindOf(index.flags[at]!) === entry.kind;
  if (now) {
    const at = placeOf(index, now);
    if (at < index.ids.length && matches(at)) return at;
  }
  // Its start changed, or it is no longer an item: one pass over the index.
  for (let at = index.ids.indexOf(entry.id); at >= 0; at = index.ids.indexOf(entry.id, at + 1))
    if (matches(at)) return at;
  return -1;
}

/**
 * The queue (read without the reviewed ones) with some of its items judged anew after a change
 * made here, a mark or a sign-off: `asked` are the items that changed, `judged` what each of them
 * is now (an item asked and not judged is no longer one, and leaves). No other item is read: a
 * reading of the whole queue takes seconds at a hospital's scale, and this a copy of the arrays.
 */
export function withItemsJudgedAnew(
  index: QueueIndex,
  asked: readonly QueueEntry[],
  judged: readonly ReviewItem[],
  changesAt: (item: ReviewItem) => number | null,
): QueueIndex {
  const judgedByKey = new Map(judged.map((item) => [itemKey(item), item]));
  const leaving = new Set(
    asked
      .map((entry) => positionOf(index, entry, judgedByKey.get(itemKey(entry))))
      .filter((at) => at >= 0),
  );
  const incoming = judged.filter(heldInQueue).sort(compareItems);
  // Each incoming item's place among the held ones (ascending, as `incoming` is sorted).
  const places = incoming.map((item) => placeOf(index, item));
  const sources = [...index.sources];
  const placeOfSource = sourcePlaces(sources);
  const size = index.ids.length - leaving.size + incoming.length;
  const ids = new Array<string>(size);
  const startMs = new Float64Array(size);
  const source = new Uint32Array(size);
  const flags = new Uint16Array(size);
  let out = 0;
  let next = 0;
  let validUntilMs = index.validUntilMs;
  for (let at = 0; at <= index.ids.length; at++) {
    for (; next < incoming.length && places[next] === at; next++, out++) {
      const item = incoming[next]!;
      ids[out] = item.id;
      startMs[out] = item.startMs ?? Number.NaN;
      source[out] = placeOfSource(item.source);
      flags[out] = packedFlags(item);
      validUntilMs = Math.min(validUntilMs, changesAt(item) ?? Number.POSITIVE_INFINITY);
    }
    if (at === index.ids.length) break;
    if (leaving.has(at)) continue;
    ids[out] = index.ids[at]!;
    startMs[out] = index.startMs[at]!;
    source[out] = index.source[at]!;
    flags[out] = index.flags[at]!;
    out++;
  }
  return { ids, startMs, source, flags, sources, validUntilMs };
}

/** Which items a page may show: the Review screen's filter and a window of time. */
export interface QueueQuery {
  filter?: ReviewFilter;
  /** Only items starting in [fromMs, toMs) (undated ones are then left out). */
  fromMs?: number;
  toMs?: number;
  offset: number;
  limit: number;
  /** The clinic's zone, for the days (the machine's by default). */
  timeZone?: string;
}

/** One page of the queue, with what the screen's headings and filters need of the whole. */
export interface QueuePage {
  /** The page's items, in order. */
  entries: QueueEntry[];
  /** Items matching the filter (and window). */
  total: number;
  /** The queue's count (the sidebar's): items this user can act on, whatever the filter. */
  count: number;
  /** Matching items per clinic-local day ("2026-11-23"), newest day first. */
  days: { key: string; count: number }[];
  /** Rooms and devices the queue holds, by name, with how many items each has there. */
  sources: { key: string; name: string; count: number }[];
}

/** A page of the queue, with the counts the screen shows beside it. */
export function queuePage(index: QueueIndex, query: QueueQuery): QueuePage {
  const { filter = {}, fromMs = -Infinity, toMs = Infinity, offset, limit } = query;
  const timeZone = query.timeZone ?? machineTimeZone();
  const wantedSources = filter.sources?.length
    ? new Set(
        filter.sources.flatMap((key) => {
          const at = index.sources.findIndex((s) => s.key === key);
          return at < 0 ? [] : [at];
        }),
      )
    : null;
  const kinds = new Set(
    filter.kinds?.length ? filter.kinds : (['record', 'conversation'] as const),
  );
  const reasonMask = filter.reasons?.length
    ? filter.reasons.reduce((mask, kind) => mask | reasonBit(kind), 0)
    : null;
  const windowed = query.fromMs !== undefined || query.toMs !== undefined;

  const entries: QueueEntry[] = [];
  const perSource = new Uint32Array(index.sources.length);
  const days = new Map<string, number>();
  let day: { key: string; startMs: number; endMs: number } | undefined;
  let count = 0;
  let total = 0;
  for (let i = 0; i < index.ids.length; i++) {
    const flags = index.flags[i]!;
    const inQueue = (flags & IN_QUEUE) !== 0;
    if (inQueue) {
      perSource[index.source[i]!]! += 1;
      if (flags & COUNTED) count += 1;
    }
    if (!inQueue && !filter.showReviewed) continue;
    if (wantedSources && !wantedSources.has(index.source[i]!)) continue;
    const kind = kindOf(flags);
    if (!kinds.has(kind)) continue;
    if (reasonMask !== null && (flags & reasonMask) === 0) continue;
    const startMs = index.startMs[i]!;
    if (windowed && !(startMs >= fromMs && startMs < toMs)) continue;
    if (total >= offset && entries.length < limit) entries.push({ kind, id: index.ids[i]! });
    total += 1;
    if (Number.isNaN(startMs)) continue;
    // Newest first: a day's bounds are worked out once per day (a zone's wall clock costs an
    // Intl call), not once per item.
    if (!day || startMs < day.startMs || startMs >= day.endMs) {
      const date = localDate(startMs, timeZone);
      day = { key: dateKey(date), ...dayRange(date, timeZone) };
    }
    days.set(day.key, (days.get(day.key) ?? 0) + 1);
  }
  return {
    entries,
    total,
    count,
    days: [...days].map(([key, n]) => ({ key, count: n })),
    sources: index.sources
      .map((source, at) => ({ ...source, count: perSource[at]! }))
      .filter((source) => source.count > 0)
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

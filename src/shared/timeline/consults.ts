import type { TimelineMinute } from '../api/conversations';
import { CONVERSATION_MAX_RANGE_MS, MINUTE_MS } from '../api/values';
import type { TimeRange } from './range';

/** A suggested consult: a range worth turning into a conversation with one click. */
export interface Consult extends TimeRange {
  readonly speechMinutes: number;
}

export interface ConsultOptions {
  /** Silent or missing minutes allowed between two speech minutes of one consult (3). */
  readonly maxGapMinutes?: number;
  /** Fewer speech minutes than this is a passing word, not a consult (2). */
  readonly minSpeechMinutes?: number;
  /** No suggestion is longer than this (90 minutes): each must be creatable as it is. */
  readonly capMs?: number;
}

/**
 * Where people talked: speech minutes grouped while the gap between consecutive ones (silent or
 * missing minutes) is at most maxGapMinutes. A consult runs from its first speech minute to the
 * end of its last, so it never starts or ends on silence. One over the cap is split at its largest
 * inner gap (the natural pause between two visits), recursively; among equal gaps the one nearest
 * the middle, so a long unbroken stretch halves instead of shedding one minute at a time. Pieces
 * with fewer than minSpeechMinutes speech minutes are dropped. Sorted by time.
 */
export function suggestConsults(
  minutes: readonly TimelineMinute[],
  options: ConsultOptions = {},
): Consult[] {
  const maxGap = options.maxGapMinutes ?? 3;
  const minSpeech = options.minSpeechMinutes ?? 2;
  const capMinutes = Math.floor((options.capMs ?? CONVERSATION_MAX_RANGE_MS) / MINUTE_MS);
  if (!(capMinutes >= 1)) throw new RangeError('consult cap must be at least a minute');

  // Speech minutes as epoch-minute numbers, sorted, each once.
  const sorted = minutes
    .filter((minute) => !minute.vadIsSilent)
    .map((minute) => Math.floor(minute.minuteStartMs / MINUTE_MS))
    .sort((a, b) => a - b);
  const speech = sorted.filter((n, i) => i === 0 || n !== sorted[i - 1]);
  const at = (i: number): number => speech[i] ?? Number.NaN;

  const consults: Consult[] = [];
  /** Emits speech[from..to) as one consult, or splits it while it is over the cap. */
  const emit = (from: number, to: number): void => {
    const first = at(from);
    const last = at(to - 1);
    if (last - first + 1 > capMinutes && to - from >= 2) {
      let split = from + 1;
      let splitGap = -1;
      let splitOffCentre = Number.POSITIVE_INFINITY;
      for (let i = from + 1; i < to; i++) {
        const gap = at(i) - at(i - 1) - 1;
        const offCentre = Math.abs(at(i - 1) + at(i) - (first + last)); // doubled, stays integral
        if (gap > splitGap || (gap === splitGap && offCentre < splitOffCentre)) {
          split = i;
          splitGap = gap;
          splitOffCentre = offCentre;
        }
      }
      emit(from, split);
      emit(split, to);
      return;
    }
    if (to - from >= minSpeech) {
      consults.push({
        startMs: first * MINUTE_MS,
        endMs: (last + 1) * MINUTE_MS,
        speechMinutes: to - from,
      });
    }
  };

  let from = 0;
  for (let i = 1; i <= speech.length; i++) {
    if (i === speech.length || at(i) - at(i - 1) - 1 > maxGap) {
      emit(from, i);
      from = i;
    }
  }
  return consults;
}

/**
 * The [ and ] keys: the first consult starting after `ms` (direction 1) or the last one starting
 * before it (direction -1); undefined past the first or last. Inside a consult, [ goes to its own
 * start, as "previous" does in a text editor.
 */
export function adjacentConsult(
  consults: readonly Consult[],
  ms: number,
  direction: 1 | -1,
): Consult | undefined {
  let best: Consult | undefined;
  for (const consult of consults) {
    if (direction === 1) {
      if (consult.startMs > ms && (best === undefined || consult.startMs < best.startMs)) {
        best = consult;
      }
    } else if (consult.startMs < ms && (best === undefined || consult.startMs > best.startMs)) {
      best = consult;
    }
  }
  return best;
}

import { MINUTE_MS, TIMELINE_MAX_WINDOW_MS } from '../api/values';

/** A half-open span of time [startMs, endMs) in epoch milliseconds, as the service's queries. */
export interface TimeRange {
  readonly startMs: number;
  readonly endMs: number;
}

/**
 * The start of the epoch minute holding `ms`. The service's minutes (minuteStartMs) sit on this
 * grid, and every offset in use today is a whole number of minutes, so local midnights do too.
 */
export function floorToMinute(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS + 0; // + 0 turns -0 into 0
}

/** The first epoch-minute boundary at or after `ms`. */
export function ceilToMinute(ms: number): number {
  return Math.ceil(ms / MINUTE_MS) * MINUTE_MS + 0;
}

/**
 * How many minutes of the grid start inside the range: the minutes a timeline of it draws and the
 * service's [startMs, endMs) filter can return (1,380, 1,440 or 1,500 for a local day).
 */
export function minuteCount(range: TimeRange): number {
  return Math.max(0, (ceilToMinute(range.endMs) - ceilToMinute(range.startMs)) / MINUTE_MS);
}

/**
 * The start of the minute holding `ms`, kept within the range's minutes (its first to its last):
 * where a pointer or a cursor lands, never outside the day on show.
 */
export function clampMinute(ms: number, range: TimeRange): number {
  const first = ceilToMinute(range.startMs);
  const last = first + (minuteCount(range) - 1) * MINUTE_MS;
  if (last < first) return first;
  return Math.min(Math.max(floorToMinute(ms), first), last);
}

/**
 * The timeline requests for a range: the service answers at most 6 hours a call (seed §8), so a
 * day is fetched as contiguous windows of at most `maxMs` (in parallel), covering the range
 * exactly, with every inner boundary on a minute so no minute is split or asked for twice.
 * Throws a RangeError when `maxMs` is under a minute or the range is not finite.
 */
export function fetchWindows(
  range: TimeRange,
  maxMs: number = TIMELINE_MAX_WINDOW_MS,
): TimeRange[] {
  const step = floorToMinute(maxMs);
  if (!(step >= MINUTE_MS))
    throw new RangeError(`fetch window must be at least a minute: ${maxMs}`);
  if (!Number.isFinite(range.startMs) || !Number.isFinite(range.endMs)) {
    throw new RangeError('fetch range must be finite');
  }
  const windows: TimeRange[] = [];
  let startMs = range.startMs;
  while (startMs < range.endMs) {
    const endMs = Math.min(range.endMs, floorToMinute(startMs + step));
    windows.push({ startMs, endMs });
    startMs = endMs;
  }
  return windows;
}

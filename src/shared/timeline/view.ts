import { MINUTE_MS } from '../api/values';
import type { TimeRange } from './range';

/** The closest zoom: an hour across the width (issue 4: "from the whole day to an hour"). */
export const MIN_VIEW_MS = 60 * MINUTE_MS;

const clamp = (value: number, lo: number, hi: number) => Math.min(Math.max(value, lo), hi);

/** The view moved to lie within the day, its length kept (or cut to the day's). */
function withinDay(startMs: number, spanMs: number, day: TimeRange): TimeRange {
  const span = Math.min(spanMs, day.endMs - day.startMs);
  const start = clamp(startMs, day.startMs, day.endMs - span);
  return { startMs: start, endMs: start + span };
}

/**
 * Zoom by `factor` (2 shows half as much, 0.5 twice as much) around `anchorMs`, the time under
 * the pointer: it stays at the same fraction of the width, so the eye does not lose its place.
 * The span stays between an hour (or the day, if shorter) and the whole day, and the view within
 * the day; at an edge the clamp wins over the anchor. Whole milliseconds.
 */
export function zoomAt(
  view: TimeRange,
  day: TimeRange,
  factor: number,
  anchorMs: number,
): TimeRange {
  if (!(factor > 0) || !Number.isFinite(factor)) throw new RangeError(`bad zoom factor: ${factor}`);
  const daySpan = Math.max(0, day.endMs - day.startMs);
  const span = view.endMs - view.startMs;
  const anchor = clamp(anchorMs, view.startMs, view.endMs);
  const fraction = span > 0 ? (anchor - view.startMs) / span : 0.5;
  const newSpan = clamp(Math.round(span / factor), Math.min(MIN_VIEW_MS, daySpan), daySpan);
  return withinDay(Math.round(anchor - fraction * newSpan), newSpan, day);
}

/** Scroll the view by `deltaMs` (negative: earlier), kept within the day. */
export function panView(view: TimeRange, day: TimeRange, deltaMs: number): TimeRange {
  return withinDay(Math.round(view.startMs + deltaMs), view.endMs - view.startMs, day);
}

/** The time at x pixels from the left of a timeline `width` pixels wide showing `view`. */
export function msAtX(view: TimeRange, x: number, width: number): number {
  if (!(width > 0)) return view.startMs;
  return view.startMs + (x / width) * (view.endMs - view.startMs);
}

/** The x position of `ms` on a timeline `width` pixels wide showing `view`. */
export function xAtMs(view: TimeRange, ms: number, width: number): number {
  const span = view.endMs - view.startMs;
  if (!(span > 0)) return 0;
  return ((ms - view.startMs) / span) * width;
}

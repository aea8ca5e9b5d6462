import type { Preview } from '../api/conversations';
import { CONVERSATION_MAX_RANGE_MS, MINUTE_MS } from '../api/values';
import { formatClock, formatDuration, machineTimeZone } from './clock';
import { ceilToMinute, clampMinute, floorToMinute, minuteCount, type TimeRange } from './range';

/**
 * A selection is two minutes: the anchor, where it began (drag start, or where shift was first
 * pressed), and the focus, the minute that moves (pointer, shift+arrow). Both are minute starts.
 */
export interface Selection {
  readonly anchorMs: number;
  readonly focusMs: number;
}

/** The one range a selection stands for: drawn on the timeline and sent to preview and create. */
export interface SelectionRange extends TimeRange {
  /** True when the 90-minute cap cut it short: the band stops and says so. */
  readonly capped: boolean;
}

/** The cap as whole minutes; a cap under a minute could select nothing. */
function capOf(capMs: number): number {
  const cap = floorToMinute(capMs);
  if (!(cap >= MINUTE_MS))
    throw new RangeError(`selection cap must be at least a minute: ${capMs}`);
  return cap;
}

/**
 * The whole minutes from the earlier of the two minutes to the later one inclusive. Longer than
 * the cap (create/preview refuse over 90 minutes, seed §8), it is cut on the FOCUS side: the
 * anchor stays where the user put it and the range is exactly the cap. The UI draws this range
 * and sends this range, so what the user sees is never different from what the service gets.
 */
export function selectionRange(
  anchorMs: number,
  focusMs: number,
  capMs: number = CONVERSATION_MAX_RANGE_MS,
): SelectionRange {
  const cap = capOf(capMs);
  const anchor = floorToMinute(anchorMs);
  const focus = floorToMinute(focusMs);
  const startMs = Math.min(anchor, focus);
  const endMs = Math.max(anchor, focus) + MINUTE_MS;
  if (endMs - startMs <= cap) return { startMs, endMs, capped: false };
  return focus > anchor
    ? { startMs: anchor, endMs: anchor + cap, capped: true }
    : { startMs: anchor + MINUTE_MS - cap, endMs: anchor + MINUTE_MS, capped: true };
}

/** The selection of a whole range (a suggested consult, a created conversation): one click. */
export function selectionOf(range: TimeRange): Selection {
  const anchorMs = floorToMinute(range.startMs);
  return { anchorMs, focusMs: Math.max(anchorMs, ceilToMinute(range.endMs) - MINUTE_MS) };
}

/** The cursor `deltaMinutes` on (←/→), stopping at the day's first and last minutes. */
export function moveMinute(ms: number, deltaMinutes: number, range: TimeRange): number {
  return clampMinute(floorToMinute(ms) + Math.trunc(deltaMinutes) * MINUTE_MS, range);
}

/**
 * Shift+arrow: the focus moves, the anchor stays; the focus stops at the day's edges and where
 * the range would pass the cap. A focus already past the cap (a drag beyond it) is first brought
 * back to the cap, so every key press visibly moves the drawn edge.
 */
export function extendSelection(
  selection: Selection,
  deltaMinutes: number,
  range: TimeRange,
  capMs: number = CONVERSATION_MAX_RANGE_MS,
): Selection {
  const reach = capOf(capMs) - MINUTE_MS;
  const anchorMs = floorToMinute(selection.anchorMs);
  const withinCap = (ms: number) => Math.min(Math.max(ms, anchorMs - reach), anchorMs + reach);
  const focusMs = withinCap(moveMinute(withinCap(selection.focusMs), deltaMinutes, range));
  return { anchorMs, focusMs };
}

/**
 * Dragging a handle: the edge moves to the minute boundary nearest `toMs`, the opposite edge of
 * the drawn range stays put. The moving edge stops at the day's edges, at the cap, and one minute
 * short of the other edge (a handle never crosses over). The fixed side becomes the anchor, so a
 * later shift+arrow moves the edge that was dragged.
 */
export function resizeSelection(
  selection: Selection,
  edge: 'start' | 'end',
  toMs: number,
  range: TimeRange,
  capMs: number = CONVERSATION_MAX_RANGE_MS,
): Selection {
  const cap = capOf(capMs);
  const drawn = selectionRange(selection.anchorMs, selection.focusMs, cap);
  const dayStart = ceilToMinute(range.startMs);
  const dayEnd = dayStart + minuteCount(range) * MINUTE_MS;
  const toEdge = Math.round(toMs / MINUTE_MS) * MINUTE_MS;
  if (edge === 'start') {
    const lowest = Math.max(dayStart, drawn.endMs - cap);
    const startMs = Math.min(Math.max(toEdge, lowest), drawn.endMs - MINUTE_MS);
    return { anchorMs: drawn.endMs - MINUTE_MS, focusMs: startMs };
  }
  const highest = Math.min(dayEnd, drawn.startMs + cap);
  const endMs = Math.max(Math.min(toEdge, highest), drawn.startMs + MINUTE_MS);
  return { anchorMs: drawn.startMs, focusMs: endMs - MINUTE_MS };
}

/** The band's live label of UI.md: "10:42–11:27 · 45 min · 31 speech". */
export function selectionLabel(
  range: TimeRange,
  totals: Pick<Preview, 'speechMinutes'>,
  timeZone: string = machineTimeZone(),
  locale?: string,
): string {
  const from = formatClock(range.startMs, timeZone, locale);
  const to = formatClock(range.endMs, timeZone, locale);
  const length = formatDuration(range.endMs - range.startMs);
  return `${from}–${to} · ${length} · ${totals.speechMinutes} speech`;
}

/** A selection handle's width on screen, and how far it reaches past its edge of the band. */
export const HANDLE_PX = 10;
const HANDLE_OVERHANG_PX = 6;
/** The least space kept between the two handles of a selection too narrow to hold them. */
const HANDLE_GAP_PX = 2;

/**
 * Where the selection's two handles sit, as `left` offsets from the band's left edge: each
 * straddles its edge of the band; a band too narrow for that (a few minutes at day zoom) gets
 * them side by side about its middle, so neither covers the other and both can be grabbed.
 */
export function handleLefts(bandPx: number): { start: number; end: number } {
  const middle = bandPx / 2;
  return {
    start: Math.min(-HANDLE_OVERHANG_PX, middle - HANDLE_GAP_PX / 2 - HANDLE_PX),
    end: Math.max(bandPx + HANDLE_OVERHANG_PX - HANDLE_PX, middle + HANDLE_GAP_PX / 2),
  };
}

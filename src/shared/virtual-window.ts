/**
 * The arithmetic of a virtualized list of fixed-height rows: which rows are in (or near) view, and
 * which pages of rows they fall in. Pure, so it is unit-tested; the renderer only draws what
 * this says.
 */

export interface Viewport {
  /** The scroller's scrollTop, in pixels. */
  scrollTop: number;
  /** The scroller's visible height, in pixels. */
  height: number;
  /** Every row's height, in pixels. */
  rowHeight: number;
  /** How many rows the list has. */
  count: number;
  /** Rows kept in the DOM beyond each edge, so a quick scroll never shows a gap. */
  overscan: number;
}

/** The rows to draw: [start, end), both within [0, count]. */
export interface RowWindow {
  start: number;
  end: number;
}

/** The rows in view plus the overscan either side, clamped to the list. */
export function rowWindow(viewport: Viewport): RowWindow {
  const { scrollTop, height, rowHeight, count, overscan } = viewport;
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const top = Math.max(0, scrollTop);
  const firstVisible = Math.min(count - 1, Math.floor(top / rowHeight));
  const lastVisible = Math.ceil((top + Math.max(0, height)) / rowHeight); // exclusive
  return {
    start: Math.max(0, firstVisible - overscan),
    end: Math.min(count, Math.max(lastVisible, firstVisible + 1) + overscan),
  };
}

/** The most rows a window of this viewport can hold: the row elements a list keeps. */
export const windowCapacity = (height: number, rowHeight: number, overscan: number): number =>
  Math.ceil(Math.max(0, height) / rowHeight) + 1 + 2 * overscan;

/**
 * Row recycling: slot k shows the row whose index is k modulo `capacity` (null when that slot
 * has no row in the window). As the window moves, a row leaving one edge frees the slot the row
 * entering the other edge takes, so a list keeps `capacity` row elements and a scroll only
 * changes what the recycled ones say. `capacity` must be at least the window's length.
 */
export function rowSlots(window: RowWindow, capacity: number): (number | null)[] {
  const slots: (number | null)[] = Array.from({ length: capacity }, () => null);
  for (let index = window.start; index < window.end; index++) slots[index % capacity] = index;
  return slots;
}

/** The pages (of `pageSize` rows, numbered from 0) that hold the rows of `window`. */
export function pagesOf(window: RowWindow, pageSize: number): number[] {
  if (window.end <= window.start) return [];
  const first = Math.floor(window.start / pageSize);
  const last = Math.floor((window.end - 1) / pageSize);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/**
 * The scrollTop that brings row `index` fully into view while moving as little as possible:
 * unchanged when it is already visible, else the row at the top (going up) or bottom (going
 * down) edge.
 */
export function scrollTopShowing(
  index: number,
  current: { scrollTop: number; height: number; rowHeight: number },
): number {
  const top = index * current.rowHeight;
  const bottom = top + current.rowHeight;
  if (top < current.scrollTop) return top;
  if (bottom > current.scrollTop + current.height) return Math.max(0, bottom - current.height);
  return current.scrollTop;
}

/** The number of whole rows a viewport shows (at least 1): the step of Page Up and Page Down. */
export const rowsPerPage = (height: number, rowHeight: number): number =>
  Math.max(1, Math.floor(height / rowHeight));

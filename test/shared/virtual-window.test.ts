import { describe, expect, it } from 'vitest';
import {
  pagesOf,
  rowSlots,
  rowsPerPage,
  rowWindow,
  scrollTopShowing,
  windowCapacity,
} from '../../src/shared/virtual-window';

const viewport = { scrollTop: 0, height: 340, rowHeight: 34, count: 100_000, overscan: 5 };

describe('rowWindow', () => {
  it('holds the rows in view and the overscan below at the top of the list', () => {
    expect(rowWindow(viewport)).toEqual({ start: 0, end: 15 });
  });

  it('holds the overscan on both sides in the middle, counting a partly visible row', () => {
    // 100.5 rows down: rows 100 (half hidden) to 110 (half shown) are visible.
    expect(rowWindow({ ...viewport, scrollTop: 100.5 * 34 })).toEqual({ start: 95, end: 116 });
  });

  it('stops at the end of the list', () => {
    const bottom = (100_000 - 10) * 34;
    expect(rowWindow({ ...viewport, scrollTop: bottom })).toEqual({
      start: 99_985,
      end: 100_000,
    });
  });

  it('clamps an overscrolled or emptied list', () => {
    expect(rowWindow({ ...viewport, scrollTop: -200 })).toEqual({ start: 0, end: 15 });
    // The list shrank under a scroll position far below its new end.
    expect(rowWindow({ ...viewport, count: 20, scrollTop: 5000 })).toEqual({ start: 14, end: 20 });
    expect(rowWindow({ ...viewport, count: 0 })).toEqual({ start: 0, end: 0 });
  });

  it('keeps at least one row before the viewport has been measured', () => {
    expect(rowWindow({ ...viewport, height: 0, overscan: 0 })).toEqual({ start: 0, end: 1 });
  });
});

describe('pagesOf', () => {
  it('names the pages the rows fall in', () => {
    expect(pagesOf({ start: 0, end: 15 }, 100)).toEqual([0]);
    expect(pagesOf({ start: 95, end: 116 }, 100)).toEqual([0, 1]);
    expect(pagesOf({ start: 100, end: 200 }, 100)).toEqual([1]);
    expect(pagesOf({ start: 99_985, end: 100_000 }, 100)).toEqual([999]);
    expect(pagesOf({ start: 0, end: 0 }, 100)).toEqual([]);
  });
});

describe('scrollTopShowing', () => {
  const at = { scrollTop: 340, height: 340, rowHeight: 34 }; // rows 10–19 visible

  it('does not move for a visible row', () => {
    expect(scrollTopShowing(10, at)).toBe(340);
    expect(scrollTopShowing(19, at)).toBe(340);
  });

  it('puts a row below the view at the bottom edge and one above at the top edge', () => {
    expect(scrollTopShowing(20, at)).toBe(21 * 34 - 340);
    expect(scrollTopShowing(9, at)).toBe(9 * 34);
    expect(scrollTopShowing(0, at)).toBe(0);
  });
});

describe('rowsPerPage', () => {
  it('counts whole rows, at least one', () => {
    expect(rowsPerPage(340, 34)).toBe(10);
    expect(rowsPerPage(350, 34)).toBe(10);
    expect(rowsPerPage(0, 34)).toBe(1);
  });
});

describe('rowSlots', () => {
  const capacity = windowCapacity(340, 34, 5); // 10 rows in view, a partial one, 5 either side

  it('holds any window of the viewport', () => {
    expect(capacity).toBe(21);
    for (const scrollTop of [0, 17, 100.5 * 34, 5000 * 34, (100_000 - 10) * 34]) {
      const window = rowWindow({ ...viewport, scrollTop });
      expect(window.end - window.start).toBeLessThanOrEqual(capacity);
    }
  });

  it('puts each row of the window in its own slot, index modulo the capacity', () => {
    const slots = rowSlots({ start: 95, end: 116 }, capacity);
    expect(slots).toHaveLength(capacity);
    expect(slots.filter((index) => index !== null).sort((a, b) => a! - b!)).toEqual(
      Array.from({ length: 21 }, (_, i) => 95 + i),
    );
    slots.forEach((index, slot) => {
      if (index !== null) expect(index % capacity).toBe(slot);
    });
  });

  it('keeps the rows still in view in their slots as the window moves: only the edges swap', () => {
    const before = rowSlots({ start: 95, end: 116 }, capacity);
    const after = rowSlots({ start: 98, end: 119 }, capacity);
    const changed = before.filter((index, slot) => after[slot] !== index);
    expect(changed.sort((a, b) => a! - b!)).toEqual([95, 96, 97]);
  });

  it('leaves slots empty when the window is shorter than the capacity', () => {
    expect(rowSlots({ start: 0, end: 3 }, 5)).toEqual([0, 1, 2, null, null]);
  });
});

import { describe, expect, it } from 'vitest';
import { CONVERSATION_MAX_RANGE_MS, MINUTE_MS, type TimelineMinute } from '../../src/shared/api';
import {
  dayRange,
  extendSelection,
  minuteSlots,
  moveMinute,
  resizeSelection,
  HANDLE_PX,
  handleLefts,
  selectionLabel,
  selectionOf,
  selectionRange,
  selectionTotals,
  type Selection,
} from '../../src/shared/timeline';

const ZONE = 'Europe/London';
const day = dayRange({ year: 2026, month: 6, day: 15 }, ZONE); // 2026-06-14T23:00Z, 1,440 minutes
const at = (minuteOfDay: number) => day.startMs + minuteOfDay * MINUTE_MS;
const minute = (minuteOfDay: number, speechMs: number): TimelineMinute => ({
  minuteStartMs: at(minuteOfDay),
  vadIsSilent: speechMs === 0,
  vadSpeechDurationMs: speechMs,
  transcriptText: '',
  diarizedTranscriptText: '',
});
const lengthMin = (r: { startMs: number; endMs: number }) => (r.endMs - r.startMs) / MINUTE_MS;

describe('minuteSlots', () => {
  it('gives one slot per minute of the day, in order, with speech, silence and no-data', () => {
    const minutes = [minute(601, 0), minute(600, 42_000), minute(602, 90_000)]; // out of order
    const slots = minuteSlots(day, minutes);
    expect(slots).toHaveLength(1440);
    slots.forEach((slot, i) => expect(slot.minuteStartMs).toBe(at(i)));
    expect(slots[600]).toEqual({
      minuteStartMs: at(600),
      state: 'speech',
      speechMs: 42_000,
      minute: minutes[1],
    });
    expect(slots[601]).toMatchObject({ state: 'silence', speechMs: 0, minute: minutes[0] });
    expect(slots[602]).toMatchObject({ state: 'speech', speechMs: MINUTE_MS }); // clamped height
    expect(slots[599]).toMatchObject({ state: 'no-data', speechMs: 0, minute: undefined });
    expect(slots.filter((s) => s.state === 'no-data')).toHaveLength(1437);
  });

  it('follows vadIsSilent for the state, ignores minutes outside the day, lets a repeat win', () => {
    const silentWithNoise = { ...minute(10, 800), vadIsSilent: true };
    const slots = minuteSlots(day, [
      silentWithNoise,
      minute(-1, 5_000),
      minute(1440, 5_000),
      minute(20, 0),
      minute(20, 7_000),
    ]);
    expect(slots[10]?.state).toBe('silence');
    expect(slots[20]).toMatchObject({ state: 'speech', speechMs: 7_000 });
    expect(slots.filter((s) => s.state !== 'no-data')).toHaveLength(2);
  });

  it('sizes to 23- and 25-hour days', () => {
    expect(minuteSlots(dayRange({ year: 2026, month: 3, day: 29 }, ZONE), [])).toHaveLength(1380);
    expect(minuteSlots(dayRange({ year: 2026, month: 10, day: 25 }, ZONE), [])).toHaveLength(1500);
  });
});

describe('selectionTotals (the create/preview definition)', () => {
  // 600 speech, 601 silent, 602 no data, 603 speech, 604 silent, 605 speech (outside [600, 605)).
  const minutes = [minute(600, 30_000), minute(601, 0), minute(603, 1), minute(604, 0)];
  const range = { startMs: at(600), endMs: at(605) };

  it('counts recorded minutes starting in [startMs, endMs); no-data minutes count for nothing', () => {
    const expected = { totalMinutes: 4, speechMinutes: 2, silentMinutes: 2 };
    expect(selectionTotals(minutes, range)).toEqual(expected);
    expect(selectionTotals(minuteSlots(day, minutes), range)).toEqual(expected);
    expect(selectionTotals([...minutes, minute(605, 9_000)], range)).toEqual(expected);
    expect(selectionTotals(minutes, { startMs: at(601), endMs: at(604) })).toEqual({
      totalMinutes: 2,
      speechMinutes: 1,
      silentMinutes: 1,
    });
  });

  it('counts a minute given twice once, and an empty range as zeros', () => {
    expect(selectionTotals([...minutes, minute(600, 0)], range)).toEqual({
      totalMinutes: 4,
      speechMinutes: 1,
      silentMinutes: 3,
    });
    expect(selectionTotals(minutes, { startMs: at(602), endMs: at(603) })).toEqual({
      totalMinutes: 0,
      speechMinutes: 0,
      silentMinutes: 0,
    });
  });
});

describe('selectionRange', () => {
  it('covers whole minutes from the earlier to the later minute inclusive, either direction', () => {
    expect(selectionRange(at(600), at(644))).toEqual({
      startMs: at(600),
      endMs: at(645),
      capped: false,
    });
    expect(selectionRange(at(644), at(600))).toEqual(selectionRange(at(600), at(644)));
    expect(selectionRange(at(600), at(600))).toEqual({
      startMs: at(600),
      endMs: at(601),
      capped: false,
    });
    // A pointer inside a minute selects that minute.
    expect(selectionRange(at(600) + 59_999, at(601) + 1)).toMatchObject({
      startMs: at(600),
      endMs: at(602),
    });
  });

  it('allows exactly 90 minutes', () => {
    const forward = selectionRange(at(600), at(689));
    expect(forward).toEqual({ startMs: at(600), endMs: at(690), capped: false });
    expect(forward.endMs - forward.startMs).toBe(CONVERSATION_MAX_RANGE_MS);
    expect(selectionRange(at(689), at(600)).capped).toBe(false);
  });

  it('clamps 91 minutes on the focus side, the anchor unchanged, to exactly the cap', () => {
    const forward = selectionRange(at(600), at(690)); // 91 minutes asked
    expect(forward).toEqual({ startMs: at(600), endMs: at(690), capped: true });
    const backward = selectionRange(at(690), at(600)); // anchor 690 stays in
    expect(backward).toEqual({ startMs: at(601), endMs: at(691), capped: true });
    for (const range of [forward, backward]) expect(lengthMin(range)).toBe(90);
  });

  it('is the range drawn and the range sent, however far the drag goes', () => {
    const anchor = at(300);
    for (const focus of [at(0), at(100), at(389), at(390), at(800), at(1439)]) {
      const range = selectionRange(anchor, focus);
      expect(lengthMin(range)).toBeLessThanOrEqual(90);
      expect(range.startMs <= anchor && anchor < range.endMs).toBe(true);
      // Sending it (start, end - 1 min) back through the same rule changes nothing.
      const again = selectionRange(range.startMs, range.endMs - MINUTE_MS);
      expect({ startMs: again.startMs, endMs: again.endMs }).toEqual({
        startMs: range.startMs,
        endMs: range.endMs,
      });
    }
  });

  it('honours another cap and refuses one under a minute', () => {
    expect(selectionRange(at(0), at(30), 10 * MINUTE_MS)).toMatchObject({ endMs: at(10) });
    expect(() => selectionRange(at(0), at(30), 1_000)).toThrow(RangeError);
  });

  it('round-trips a whole range through selectionOf', () => {
    const range = { startMs: at(100), endMs: at(145) };
    const selection = selectionOf(range);
    expect(selectionRange(selection.anchorMs, selection.focusMs)).toEqual({
      ...range,
      capped: false,
    });
  });
});

describe('keyboard', () => {
  it('moves the cursor a minute at a time, stopping at the day edges', () => {
    expect(moveMinute(at(10), 1, day)).toBe(at(11));
    expect(moveMinute(at(10), -1, day)).toBe(at(9));
    expect(moveMinute(at(10) + 30_000, 0, day)).toBe(at(10));
    expect(moveMinute(at(0), -1, day)).toBe(at(0));
    expect(moveMinute(at(1439), 1, day)).toBe(at(1439));
    expect(moveMinute(at(1430), 60, day)).toBe(at(1439));
    expect(moveMinute(at(5), -60, day)).toBe(at(0));
  });

  it('extends the focus with shift+arrow and stops at the cap, the anchor kept', () => {
    let selection: Selection = { anchorMs: at(600), focusMs: at(600) };
    for (let i = 0; i < 120; i++) selection = extendSelection(selection, 1, day);
    expect(selection).toEqual({ anchorMs: at(600), focusMs: at(689) });
    const range = selectionRange(selection.anchorMs, selection.focusMs);
    expect(range).toEqual({ startMs: at(600), endMs: at(690), capped: false });
    selection = extendSelection(selection, -1, day);
    expect(selection.focusMs).toBe(at(688));
    // And backwards past the anchor, to the cap on the other side.
    for (let i = 0; i < 300; i++) selection = extendSelection(selection, -1, day);
    expect(selection).toEqual({ anchorMs: at(600), focusMs: at(511) });
    expect(lengthMin(selectionRange(selection.anchorMs, selection.focusMs))).toBe(90);
  });

  it('stops extending at the day edges', () => {
    let selection: Selection = { anchorMs: at(1420), focusMs: at(1420) };
    for (let i = 0; i < 50; i++) selection = extendSelection(selection, 1, day);
    expect(selection.focusMs).toBe(at(1439));
    selection = { anchorMs: at(3), focusMs: at(3) };
    for (let i = 0; i < 50; i++) selection = extendSelection(selection, -1, day);
    expect(selection.focusMs).toBe(at(0));
  });

  it('brings a focus dragged past the cap back to it before moving', () => {
    const dragged: Selection = { anchorMs: at(600), focusMs: at(900) };
    expect(extendSelection(dragged, -1, day).focusMs).toBe(at(688));
    expect(extendSelection(dragged, 1, day).focusMs).toBe(at(689));
  });
});

describe('resizeSelection (drag handles)', () => {
  const selection: Selection = { anchorMs: at(600), focusMs: at(629) }; // [600, 630)
  const drawn = (s: Selection) => {
    const { startMs, endMs } = selectionRange(s.anchorMs, s.focusMs);
    return [(startMs - day.startMs) / MINUTE_MS, (endMs - day.startMs) / MINUTE_MS];
  };

  it('moves the dragged edge to the nearest minute boundary, the other edge stays put', () => {
    expect(drawn(resizeSelection(selection, 'start', at(590) + 20_000, day))).toEqual([590, 630]);
    expect(drawn(resizeSelection(selection, 'start', at(610) + 40_000, day))).toEqual([611, 630]);
    expect(drawn(resizeSelection(selection, 'end', at(650), day))).toEqual([600, 650]);
    expect(drawn(resizeSelection(selection, 'end', at(615), day))).toEqual([600, 615]);
  });

  it('works on a selection made backwards, too', () => {
    const backwards: Selection = { anchorMs: at(629), focusMs: at(600) };
    expect(drawn(resizeSelection(backwards, 'end', at(640), day))).toEqual([600, 640]);
    expect(drawn(resizeSelection(backwards, 'start', at(580), day))).toEqual([580, 630]);
  });

  it('stops at the cap, at the day edges and one minute short of the other edge', () => {
    expect(drawn(resizeSelection(selection, 'start', at(400), day))).toEqual([540, 630]);
    expect(drawn(resizeSelection(selection, 'end', at(900), day))).toEqual([600, 690]);
    expect(drawn(resizeSelection(selection, 'start', at(700), day))).toEqual([629, 630]);
    expect(drawn(resizeSelection(selection, 'end', at(100), day))).toEqual([600, 601]);
    const early: Selection = { anchorMs: at(10), focusMs: at(20) };
    expect(drawn(resizeSelection(early, 'start', day.startMs - 3_600_000, day))).toEqual([0, 21]);
    const late: Selection = { anchorMs: at(1400), focusMs: at(1410) };
    expect(drawn(resizeSelection(late, 'end', day.endMs + 3_600_000, day))).toEqual([1400, 1440]);
  });

  it('makes the fixed edge the anchor, so shift+arrow then moves the dragged edge', () => {
    const resized = resizeSelection(selection, 'start', at(595), day);
    expect(resized).toEqual({ anchorMs: at(629), focusMs: at(595) });
    expect(drawn(extendSelection(resized, -1, day))).toEqual([594, 630]);
  });
});

describe('selectionLabel', () => {
  it('reads like UI.md: "10:42–11:27 · 45 min · 31 speech"', () => {
    const range = selectionRange(at(642), at(686));
    expect(selectionLabel(range, { speechMinutes: 31 }, ZONE, 'en-GB')).toBe(
      '10:42–11:27 · 45 min · 31 speech',
    );
    // In the user's locale, as every time on the screens.
    expect(selectionLabel(range, { speechMinutes: 31 }, ZONE, 'en-US').replace(/\s/g, ' ')).toBe(
      '10:42 AM–11:27 AM · 45 min · 31 speech',
    );
  });
});

describe('handleLefts', () => {
  it('straddles the band’s edges when it is wide enough, as before', () => {
    expect(handleLefts(100)).toEqual({ start: -6, end: 100 + 6 - HANDLE_PX });
  });

  it('never lets one handle cover the other, however narrow the band (day zoom, issue 20)', () => {
    for (let band = 0; band <= 40; band += 0.5) {
      const { start, end } = handleLefts(band);
      expect(end - (start + HANDLE_PX)).toBeGreaterThanOrEqual(2);
      // Each stays on its side: the start's left of the end's, around the band.
      expect(start).toBeLessThanOrEqual(0);
      expect(end + HANDLE_PX).toBeGreaterThanOrEqual(band);
    }
  });
});

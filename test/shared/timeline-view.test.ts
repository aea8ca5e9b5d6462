import { describe, expect, it } from 'vitest';
import { MINUTE_MS, type TimelineMinute } from '../../src/shared/api';
import {
  MIN_VIEW_MS,
  dayRange,
  msAtX,
  panView,
  rangeTranscript,
  xAtMs,
  zoomAt,
} from '../../src/shared/timeline';

const HOUR_MS = 60 * MINUTE_MS;
const day = dayRange({ year: 2026, month: 10, day: 25 }, 'Europe/London'); // 25 hours
const WIDTH = 1200;

describe('msAtX and xAtMs', () => {
  it('map between time and x by proportion, and invert each other', () => {
    expect(msAtX(day, 0, WIDTH)).toBe(day.startMs);
    expect(msAtX(day, WIDTH, WIDTH)).toBe(day.endMs);
    expect(msAtX(day, WIDTH / 5, WIDTH)).toBe(day.startMs + 5 * HOUR_MS);
    expect(xAtMs(day, day.startMs + 5 * HOUR_MS, WIDTH)).toBe(WIDTH / 5);
    for (const x of [0, 1, 333.5, 1199])
      expect(xAtMs(day, msAtX(day, x, WIDTH), WIDTH)).toBeCloseTo(x, 6);
  });

  it('do not divide by zero', () => {
    expect(msAtX(day, 10, 0)).toBe(day.startMs);
    expect(xAtMs({ startMs: 5, endMs: 5 }, 5, WIDTH)).toBe(0);
  });
});

describe('zoomAt', () => {
  it('keeps the time under the pointer at the same x', () => {
    const anchorX = 450;
    const anchor = msAtX(day, anchorX, WIDTH);
    const zoomed = zoomAt(day, day, 4, anchor);
    expect(zoomed.endMs - zoomed.startMs).toBe((25 * HOUR_MS) / 4);
    expect(xAtMs(zoomed, anchor, WIDTH)).toBeCloseTo(anchorX, 2);
    const back = zoomAt(zoomed, day, 0.5, anchor);
    expect(back.endMs - back.startMs).toBe((25 * HOUR_MS) / 2);
    expect(xAtMs(back, anchor, WIDTH)).toBeCloseTo(anchorX, 2);
  });

  it('stops at an hour when zooming in and at the whole day when zooming out', () => {
    const anchor = day.startMs + 12 * HOUR_MS;
    const hour = zoomAt(day, day, 1000, anchor);
    expect(hour.endMs - hour.startMs).toBe(MIN_VIEW_MS);
    expect(xAtMs(hour, anchor, WIDTH)).toBeCloseTo(xAtMs(day, anchor, WIDTH), 2);
    expect(zoomAt(hour, day, 0.0001, anchor)).toEqual(day);
  });

  it('stays within the day near its edges', () => {
    const view = { startMs: day.startMs, endMs: day.startMs + 2 * HOUR_MS };
    const out = zoomAt(view, day, 0.25, day.startMs + 10 * MINUTE_MS);
    expect(out).toEqual({ startMs: day.startMs, endMs: day.startMs + 8 * HOUR_MS });
    const late = { startMs: day.endMs - 2 * HOUR_MS, endMs: day.endMs };
    expect(zoomAt(late, day, 0.5, day.endMs)).toEqual({
      startMs: day.endMs - 4 * HOUR_MS,
      endMs: day.endMs,
    });
    expect(() => zoomAt(view, day, 0, day.startMs)).toThrow(RangeError);
  });

  it('pans within the day, keeping the span', () => {
    const view = { startMs: day.startMs + HOUR_MS, endMs: day.startMs + 3 * HOUR_MS };
    expect(panView(view, day, HOUR_MS)).toEqual({
      startMs: day.startMs + 2 * HOUR_MS,
      endMs: day.startMs + 4 * HOUR_MS,
    });
    expect(panView(view, day, -5 * HOUR_MS)).toEqual({
      startMs: day.startMs,
      endMs: day.startMs + 2 * HOUR_MS,
    });
    expect(panView(view, day, 99 * HOUR_MS).endMs).toBe(day.endMs);
  });
});

describe('rangeTranscript', () => {
  const BASE = day.startMs + 10 * HOUR_MS;
  const minute = (n: number, transcriptText: string, diarizedTranscriptText: string) =>
    ({
      minuteStartMs: BASE + n * MINUTE_MS,
      vadIsSilent: transcriptText === '',
      vadSpeechDurationMs: transcriptText === '' ? 0 : 20_000,
      transcriptText,
      diarizedTranscriptText,
    }) satisfies TimelineMinute;
  const range = { startMs: BASE, endMs: BASE + 5 * MINUTE_MS };

  it('prefers diarized text, one entry per line with its speaker, in time order', () => {
    const minutes = [
      minute(1, 'Thanks. Bye.', 'Owner: Thanks.\nSpeaker 2: Bye.'),
      minute(0, 'How is Max? Limping.', 'Speaker 1: How is Max?\nOwner:   Limping since Tuesday.'),
    ];
    expect(rangeTranscript(minutes, range)).toEqual([
      { minuteStartMs: BASE, speaker: 'Speaker 1', text: 'How is Max?' },
      { minuteStartMs: BASE, speaker: 'Owner', text: 'Limping since Tuesday.' },
      { minuteStartMs: BASE + MINUTE_MS, speaker: 'Owner', text: 'Thanks.' },
      { minuteStartMs: BASE + MINUTE_MS, speaker: 'Speaker 2', text: 'Bye.' },
    ]);
  });

  it('falls back to transcriptText with no speaker, even when it holds a colon', () => {
    const minutes = [minute(2, 'Note: weigh him at 10:30.\nSecond line', '')];
    expect(rangeTranscript(minutes, range)).toEqual([
      { minuteStartMs: BASE + 2 * MINUTE_MS, speaker: null, text: 'Note: weigh him at 10:30.' },
      { minuteStartMs: BASE + 2 * MINUTE_MS, speaker: null, text: 'Second line' },
    ]);
  });

  it('skips empty minutes and blank lines, keeps unlabelled diarized lines, stays in range', () => {
    const minutes = [
      minute(0, '', ''),
      minute(1, 'x', '  \n10:30 is fine\nSpeaker 1:   \n'),
      minute(5, 'after the range', 'Speaker 1: after the range'),
      minute(-1, 'before', 'Speaker 1: before'),
    ];
    expect(rangeTranscript(minutes, range)).toEqual([
      { minuteStartMs: BASE + MINUTE_MS, speaker: null, text: '10:30 is fine' },
    ]);
    expect(rangeTranscript([], range)).toEqual([]);
  });
});

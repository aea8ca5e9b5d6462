import { describe, expect, it } from 'vitest';
import { MINUTE_MS, TIMELINE_MAX_WINDOW_MS } from '../../src/shared/api';
import {
  addDays,
  dateKey,
  dayRange,
  fetchWindows,
  formatClock,
  formatDuration,
  hourTicks,
  usesTwelveHourClock,
  localDate,
  machineTimeZone,
  minuteCount,
  parseDateKey,
  zoneOffsetMs,
  type LocalDate,
} from '../../src/shared/timeline';

const HOUR_MS = 60 * MINUTE_MS;
const iso = (ms: number) => new Date(ms).toISOString();
const date = (year: number, month: number, day: number): LocalDate => ({ year, month, day });
const hours = (range: { startMs: number; endMs: number }) =>
  (range.endMs - range.startMs) / HOUR_MS;

describe('clinic-local days', () => {
  it('a normal day is 24 hours from local midnight to local midnight', () => {
    const day = dayRange(date(2026, 6, 15), 'Europe/London');
    expect(iso(day.startMs)).toBe('2026-06-14T23:00:00.000Z'); // BST, UTC+1
    expect(iso(day.endMs)).toBe('2026-06-15T23:00:00.000Z');
    expect(minuteCount(day)).toBe(1440);
    const utc = dayRange(date(2026, 1, 15), 'UTC');
    expect(iso(utc.startMs)).toBe('2026-01-15T00:00:00.000Z');
    expect(hours(utc)).toBe(24);
  });

  it.each([
    ['Europe/London', date(2026, 3, 29), '2026-03-29T00:00:00.000Z', 23],
    ['Europe/London', date(2026, 10, 25), '2026-10-24T23:00:00.000Z', 25],
    ['America/New_York', date(2026, 3, 8), '2026-03-08T05:00:00.000Z', 23],
    ['America/New_York', date(2026, 11, 1), '2026-11-01T04:00:00.000Z', 25],
  ])('%s %o starts at %s and lasts %i hours', (zone, day, start, length) => {
    const range = dayRange(day, zone);
    expect(iso(range.startMs)).toBe(start);
    expect(hours(range)).toBe(length);
    expect(minuteCount(range)).toBe(length * 60);
  });

  it('gives each zone its own bounds for the same date, asked again and again', () => {
    // Bounds are kept by zone and date: a date asked in one zone never answers for another.
    for (let round = 0; round < 2; round++) {
      expect(iso(dayRange(date(2026, 7, 1), 'Asia/Tokyo').startMs)).toBe(
        '2026-06-30T15:00:00.000Z',
      );
      expect(iso(dayRange(date(2026, 7, 1), 'America/Chicago').startMs)).toBe(
        '2026-07-01T05:00:00.000Z',
      );
    }
    const kept = dayRange(date(2026, 7, 1), 'UTC');
    expect(() => Object.assign(kept, { startMs: 0 })).toThrow(TypeError);
    expect(iso(dayRange(date(2026, 7, 1), 'UTC').startMs)).toBe('2026-07-01T00:00:00.000Z');
  });

  it('starts a day whose midnight is skipped at the first instant that exists (01:00)', () => {
    // Santiago springs forward at 00:00 → 01:00 on 2026-09-06; Beirut on 2026-03-29.
    const santiago = dayRange(date(2026, 9, 6), 'America/Santiago');
    expect(iso(santiago.startMs)).toBe('2026-09-06T04:00:00.000Z');
    expect(formatClock(santiago.startMs, 'America/Santiago', 'en-GB')).toBe('01:00');
    expect(formatClock(santiago.startMs - 1, 'America/Santiago', 'en-GB')).toBe('23:59');
    expect(localDate(santiago.startMs - 1, 'America/Santiago')).toEqual(date(2026, 9, 5));
    expect(hours(santiago)).toBe(23);
    const beirut = dayRange(date(2026, 3, 29), 'Asia/Beirut');
    expect(iso(beirut.startMs)).toBe('2026-03-28T22:00:00.000Z');
    expect(hours(beirut)).toBe(23);
    // The day before ends where this one starts.
    expect(dayRange(date(2026, 3, 28), 'Asia/Beirut').endMs).toBe(beirut.startMs);
  });

  it('gives the 25 hours to the day before when clocks go back over midnight (Beirut)', () => {
    const saturday = dayRange(date(2026, 10, 24), 'Asia/Beirut');
    expect(hours(saturday)).toBe(25);
    expect(iso(saturday.endMs)).toBe('2026-10-24T22:00:00.000Z');
    expect(localDate(saturday.endMs - 1, 'Asia/Beirut')).toEqual(date(2026, 10, 24));
  });

  it('tiles time: each day ends where the next starts, every instant on its own date', () => {
    for (const zone of ['Europe/London', 'America/New_York', 'America/Santiago', 'Asia/Beirut']) {
      let day = date(2026, 3, 1);
      let range = dayRange(day, zone);
      for (let i = 0; i < 300; i += 7) {
        const next = addDays(day, 1);
        const nextRange = dayRange(next, zone);
        expect(nextRange.startMs).toBe(range.endMs);
        expect(localDate(range.startMs, zone)).toEqual(day);
        expect(localDate(range.endMs - 1, zone)).toEqual(day);
        day = addDays(day, 7);
        range = dayRange(day, zone);
      }
    }
  });

  it('reads the local date of an instant in the given zone', () => {
    const ms = Date.parse('2026-03-08T04:30:00Z');
    expect(localDate(ms, 'America/New_York')).toEqual(date(2026, 3, 7));
    expect(localDate(ms, 'Europe/London')).toEqual(date(2026, 3, 8));
    expect(localDate(ms, 'Pacific/Auckland')).toEqual(date(2026, 3, 8));
    expect(localDate(ms)).toEqual(localDate(ms, machineTimeZone()));
    expect(() => localDate(ms, 'Not/AZone')).toThrow(RangeError);
  });

  it('adds calendar days across months, years and leap days', () => {
    expect(addDays(date(2026, 1, 31), 1)).toEqual(date(2026, 2, 1));
    expect(addDays(date(2026, 3, 1), -1)).toEqual(date(2026, 2, 28));
    expect(addDays(date(2028, 3, 1), -1)).toEqual(date(2028, 2, 29));
    expect(addDays(date(2026, 12, 31), 1)).toEqual(date(2027, 1, 1));
    expect(addDays(date(2026, 3, 29), 0)).toEqual(date(2026, 3, 29));
    expect(addDays(date(2026, 1, 1), 365)).toEqual(date(2027, 1, 1));
  });

  it('keys days as YYYY-MM-DD and reads only real dates back', () => {
    expect(dateKey(date(2026, 3, 9))).toBe('2026-03-09');
    expect(parseDateKey('2026-03-09')).toEqual(date(2026, 3, 9));
    expect(parseDateKey('2026-02-29')).toBeUndefined();
    expect(parseDateKey('2028-02-29')).toEqual(date(2028, 2, 29));
    expect(parseDateKey('9 March')).toBeUndefined();
  });
});

describe('hourTicks', () => {
  const labels = (zone: string, day: LocalDate) =>
    hourTicks(dayRange(day, zone), zone, 'en-GB').map((tick) => tick.label);
  const all = Array.from({ length: 24 }, (_, h) => `${String(h).padStart(2, '0')}:00`);

  it('has 24 ticks an hour apart on a normal day, starting at the day', () => {
    const day = dayRange(date(2026, 6, 15), 'America/New_York');
    const ticks = hourTicks(day, 'America/New_York', 'en-GB');
    expect(ticks.map((t) => t.label)).toEqual(all);
    expect(ticks.map((t) => t.hour)).toEqual(all.map((_, h) => h));
    expect(ticks[0]?.ms).toBe(day.startMs);
    ticks.forEach((tick, i) => expect(tick.ms).toBe(day.startMs + i * HOUR_MS));
  });

  it('has 23 ticks on spring-forward days, the skipped hour missing', () => {
    expect(labels('Europe/London', date(2026, 3, 29))).toEqual(all.filter((l) => l !== '01:00'));
    expect(labels('America/New_York', date(2026, 3, 8))).toEqual(all.filter((l) => l !== '02:00'));
    expect(labels('America/Santiago', date(2026, 9, 6))).toEqual(all.slice(1));
  });

  it('has 25 ticks on fall-back days, the repeated hour labelled twice', () => {
    const london = labels('Europe/London', date(2026, 10, 25));
    expect(london).toHaveLength(25);
    expect(london.slice(0, 4)).toEqual(['00:00', '01:00', '01:00', '02:00']);
    const newYork = hourTicks(
      dayRange(date(2026, 11, 1), 'America/New_York'),
      'America/New_York',
      'en-GB',
    );
    expect(newYork).toHaveLength(25);
    expect(newYork.filter((t) => t.label === '01:00')).toHaveLength(2);
    newYork.slice(1).forEach((tick, i) => expect(tick.ms - (newYork[i]?.ms ?? 0)).toBe(HOUR_MS));
  });

  it('follows half-hour changes (Lord Howe) and half-hour zones (India)', () => {
    const zone = 'Australia/Lord_Howe';
    const spring = dayRange(date(2026, 10, 4), zone); // 02:00 → 02:30
    expect(hours(spring)).toBe(23.5);
    expect(labels(zone, date(2026, 10, 4))).toEqual(all.filter((l) => l !== '02:00'));
    const ticks = hourTicks(spring, zone);
    expect(ticks[2]?.ms).toBe(Date.parse('2026-10-03T16:00:00Z')); // 03:00 at +11
    expect((ticks[2]?.ms ?? 0) - (ticks[1]?.ms ?? 0)).toBe(1.5 * HOUR_MS); // 01:00, 02:00 → 02:30, 03:00
    const india = hourTicks(dayRange(date(2026, 6, 1), 'Asia/Kolkata'), 'Asia/Kolkata');
    expect(india).toHaveLength(24);
    expect(iso(india[0]?.ms ?? 0)).toBe('2026-05-31T18:30:00.000Z');
  });

  it('only ticks inside a partial range', () => {
    const start = Date.parse('2026-06-15T10:30:00Z');
    const ticks = hourTicks({ startMs: start, endMs: start + 2 * HOUR_MS }, 'UTC', 'en-GB');
    expect(ticks.map((t) => t.label)).toEqual(['11:00', '12:00']);
    expect(hourTicks({ startMs: start, endMs: start }, 'UTC')).toEqual([]);
  });

  it('labels hours on the locale’s clock: "2 PM" on a 12-hour one (issue 20)', () => {
    const day = dayRange(date(2026, 6, 15), 'America/New_York');
    const us = hourTicks(day, 'America/New_York', 'en-US').map((t) => t.label.replace(/\s/g, ' '));
    expect(us.slice(0, 2)).toEqual(['12 AM', '1 AM']);
    expect(us[14]).toBe('2 PM');
    expect(usesTwelveHourClock('en-US')).toBe(true);
    expect(usesTwelveHourClock('en-GB')).toBe(false);
    expect(usesTwelveHourClock('de-DE')).toBe(false);
  });
});

describe('formatting', () => {
  it('formats a clinic-local clock time in the locale’s own form', () => {
    const ms = Date.parse('2026-06-15T13:05:42Z');
    expect(formatClock(ms, 'Europe/London', 'en-GB')).toBe('14:05');
    expect(formatClock(ms, 'America/New_York', 'en-GB')).toBe('09:05');
    expect(formatClock(ms, 'Asia/Kathmandu', 'en-GB')).toBe('18:50');
    expect(formatClock(ms, 'America/New_York', 'en-US')).toMatch(/^09:05\sAM$/);
    expect(formatClock(ms, 'Europe/London', 'en-GB')).toBe('14:05');
  });

  it('knows how far a zone’s clock is from UTC, summer and winter, east and west', () => {
    expect(zoneOffsetMs(Date.parse('2026-06-15T12:00:00Z'), 'Europe/London')).toBe(HOUR_MS);
    expect(zoneOffsetMs(Date.parse('2026-12-15T12:00:00Z'), 'Europe/London')).toBe(0);
    expect(zoneOffsetMs(Date.parse('2026-12-15T12:00:00Z'), 'America/New_York')).toBe(-5 * HOUR_MS);
    expect(zoneOffsetMs(Date.parse('2026-12-15T12:00:00Z'), 'Asia/Kathmandu')).toBe(
      5 * HOUR_MS + 45 * MINUTE_MS,
    );
  });

  it('formats durations as UI.md does', () => {
    expect(formatDuration(0)).toBe('0 min');
    expect(formatDuration(45 * MINUTE_MS)).toBe('45 min');
    expect(formatDuration(59 * MINUTE_MS)).toBe('59 min');
    expect(formatDuration(60 * MINUTE_MS)).toBe('1 h 00 min');
    expect(formatDuration(65 * MINUTE_MS)).toBe('1 h 05 min');
    expect(formatDuration(90 * MINUTE_MS)).toBe('1 h 30 min');
    expect(formatDuration(25 * HOUR_MS)).toBe('25 h 00 min');
    expect(formatDuration(44 * MINUTE_MS + 31_000)).toBe('45 min');
    expect(formatDuration(-MINUTE_MS)).toBe('0 min');
  });
});

describe('fetchWindows', () => {
  const expectExactCover = (range: { startMs: number; endMs: number }, maxMs: number) => {
    const windows = fetchWindows(range, maxMs);
    expect(windows[0]?.startMs).toBe(range.startMs);
    expect(windows.at(-1)?.endMs).toBe(range.endMs);
    windows.forEach((w, i) => {
      expect(w.endMs).toBeGreaterThan(w.startMs);
      expect(w.endMs - w.startMs).toBeLessThanOrEqual(maxMs);
      if (i > 0) expect(w.startMs).toBe(windows[i - 1]?.endMs);
      if (i > 0) expect(w.startMs % MINUTE_MS).toBe(0);
    });
    return windows;
  };

  it('covers a 25-hour day with 5 contiguous windows of at most 6 hours', () => {
    const day = dayRange(date(2026, 10, 25), 'Europe/London');
    const windows = expectExactCover(day, TIMELINE_MAX_WINDOW_MS);
    expect(windows).toHaveLength(5);
    expect(windows.map((w) => hours(w))).toEqual([6, 6, 6, 6, 1]);
    expect(fetchWindows(day)).toEqual(windows);
  });

  it('covers 23- and 24-hour days with 4 windows', () => {
    expect(
      expectExactCover(dayRange(date(2026, 3, 29), 'Europe/London'), TIMELINE_MAX_WINDOW_MS),
    ).toHaveLength(4);
    expect(
      expectExactCover(dayRange(date(2026, 6, 15), 'Asia/Kolkata'), TIMELINE_MAX_WINDOW_MS),
    ).toHaveLength(4);
  });

  it('keeps inner boundaries on minutes for any maximum, and handles empty ranges', () => {
    const start = Date.parse('2026-06-15T00:00:00Z');
    const windows = expectExactCover(
      { startMs: start, endMs: start + HOUR_MS },
      25 * MINUTE_MS + 7,
    );
    expect(windows.map((w) => (w.endMs - w.startMs) / MINUTE_MS)).toEqual([25, 25, 10]);
    expectExactCover({ startMs: start + 1234, endMs: start + 3 * HOUR_MS + 99 }, HOUR_MS);
    expect(fetchWindows({ startMs: start, endMs: start })).toEqual([]);
    expect(() => fetchWindows({ startMs: start, endMs: start + HOUR_MS }, 59_999)).toThrow(
      RangeError,
    );
  });
});

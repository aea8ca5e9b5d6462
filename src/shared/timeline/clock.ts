import { MINUTE_MS } from '../api/values';
import type { TimeRange } from './range';

/**
 * Clinic-local days and clock times without a date library. The only source of truth about a
 * zone's offsets is Intl (the platform's tz data), read through formatToParts; everything else is
 * arithmetic on "wall" milliseconds: the local date and time written as if it were UTC.
 */

/** A calendar date; month 1–12. */
export interface LocalDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/** A local hour boundary: where a tick and its label go. */
export interface HourTick {
  readonly ms: number;
  /** The hour in the locale's clock ("14:00", or "2 PM" on a 12-hour one); repeated on the day the clocks go back. */
  readonly label: string;
  readonly hour: number;
}

const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The machine's IANA zone: the default when the clinic's zone is not known. */
export function machineTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const mod = (a: number, b: number): number => ((a % b) + b) % b;
const pad2 = (n: number): string => String(n).padStart(2, '0');

/** Date.UTC without its two-digit-year quirk. */
function utcWall(year: number, month: number, day: number, hour = 0, minute = 0, second = 0) {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

// Building a DateTimeFormat costs far more than using one; the timeline asks on every redraw.
const partFormatters = new Map<string, Intl.DateTimeFormat>();

function partFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = partFormatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    partFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local date and time at `ms` as wall milliseconds. Throws a RangeError for an unknown zone. */
function wallMs(ms: number, timeZone: string): number {
  const f = { year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0 };
  for (const part of partFormatter(timeZone).formatToParts(ms)) {
    if (part.type in f) f[part.type as keyof typeof f] = Number(part.value);
  }
  // Some engines wrote midnight as 24 even with h23; it is the start of the same date.
  const hour = f.hour === 24 ? 0 : f.hour;
  return utcWall(f.year, f.month, f.day, hour, f.minute, f.second) + mod(ms, 1000);
}

function dateOfWall(wall: number): LocalDate {
  const date = new Date(wall);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/**
 * The first instant whose local wall time is at or after `wall`. When that wall time happens twice
 * (clocks going back over it) this is the first time; when the clocks skip it (Santiago and Beirut
 * skip midnight itself) it is the instant of the jump, the first that exists after it.
 */
function firstInstantAtOrAfter(wall: number, timeZone: string): number {
  // The offsets a day either side give the candidates; one of them is right unless the wall time
  // falls in a gap, in which case the jump lies between them.
  const a = wall - (wallMs(wall - DAY_MS, timeZone) - (wall - DAY_MS));
  const b = wall - (wallMs(wall + DAY_MS, timeZone) - (wall + DAY_MS));
  let lo = Math.min(a, b);
  let hi = Math.max(a, b);
  if (wallMs(lo, timeZone) === wall) return lo;
  if (wallMs(hi, timeZone) === wall) return hi;
  const reached = (t: number) => wallMs(t, timeZone) >= wall;
  if (reached(lo) || !reached(hi)) {
    // More than one change within a day of `wall`: search the whole neighbourhood.
    lo = wall - 2 * DAY_MS;
    hi = wall + 2 * DAY_MS;
  }
  while (hi - lo > 1) {
    const mid = lo + Math.floor((hi - lo) / 2);
    if (reached(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** How far the zone's wall clock is ahead of UTC at `ms` (negative west of Greenwich). */
export function zoneOffsetMs(ms: number, timeZone: string = machineTimeZone()): number {
  return wallMs(ms, timeZone) - ms;
}

/** The clinic-local calendar date at `ms`. */
export function localDate(ms: number, timeZone: string = machineTimeZone()): LocalDate {
  return dateOfWall(wallMs(ms, timeZone));
}

/** The date `days` later (or earlier, when negative) on the calendar; zones play no part. */
export function addDays(date: LocalDate, days: number): LocalDate {
  return dateOfWall(utcWall(date.year, date.month, date.day + days));
}

/** "2026-03-29": a stable key for caching a day and the value of a date input. */
export function dateKey(date: LocalDate): string {
  const year =
    date.year >= 0 && date.year < 10_000 ? String(date.year).padStart(4, '0') : date.year;
  return `${year}-${pad2(date.month)}-${pad2(date.day)}`;
}

/** The date of a "YYYY-MM-DD" key, or undefined when it is not a real date. */
export function parseDateKey(key: string): LocalDate | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (!match) return undefined;
  const date = { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
  const normal = addDays(date, 0);
  return normal.month === date.month && normal.day === date.day ? date : undefined;
}

/**
 * Days worked out, by zone and date: a day's bounds take a dozen Intl calls, and Review counts its
 * queue's items by day on every page (a thousand days for three years of a hospital's records).
 */
const dayRanges = new Map<string, TimeRange>();
const DAY_RANGES_KEPT = 8192;

/**
 * A clinic-local day: from its local midnight to the next one, so 23, 24 or 25 hours around
 * daylight-saving changes. Where midnight itself is skipped the day starts at the first instant
 * that exists (01:00 in Santiago and Beirut). Consecutive days tile time with no gap or overlap.
 */
export function dayRange(date: LocalDate, timeZone: string = machineTimeZone()): TimeRange {
  const key = `${timeZone} ${dateKey(date)}`;
  let range = dayRanges.get(key);
  if (range === undefined) {
    const next = addDays(date, 1);
    range = Object.freeze({
      startMs: firstInstantAtOrAfter(utcWall(date.year, date.month, date.day), timeZone),
      endMs: firstInstantAtOrAfter(utcWall(next.year, next.month, next.day), timeZone),
    });
    if (dayRanges.size >= DAY_RANGES_KEPT) dayRanges.clear();
    dayRanges.set(key, range);
  }
  return range;
}

/** The first local hour boundary strictly after `ms`, with its wall time. */
function nextHourBoundary(ms: number, timeZone: string): { ms: number; wall: number } {
  // Without an offset change the next boundary is one local hour on; a change of a whole number of
  // hours keeps the boundaries, a change by a fraction (Lord Howe's half hour) shifts them.
  let candidate = ms - mod(wallMs(ms, timeZone), HOUR_MS) + HOUR_MS;
  for (let i = 0; i < 8; i++) {
    const wall = wallMs(candidate, timeZone);
    const past = mod(wall, HOUR_MS);
    if (past === 0) return { ms: candidate, wall };
    const earlier = candidate - past;
    if (earlier > ms) {
      const earlierWall = wallMs(earlier, timeZone);
      if (mod(earlierWall, HOUR_MS) === 0) return { ms: earlier, wall: earlierWall };
    }
    candidate = earlier + HOUR_MS;
  }
  return { ms: candidate, wall: wallMs(candidate, timeZone) };
}

/**
 * A tick at every local hour boundary in [startMs, endMs): 24 on a normal day, 23 on the day the
 * clocks go forward, 25 on the day they go back (the repeated hour's label appears twice).
 * Some 25–50 Intl calls (a fraction of a millisecond): compute once per day, not per frame.
 */
export function hourTicks(
  range: TimeRange,
  timeZone: string = machineTimeZone(),
  locale?: string,
): HourTick[] {
  const ticks: HourTick[] = [];
  // The locale's clock, short enough for an hour's width: "2 PM" on a 12-hour one, "14:00" else.
  const twelve = usesTwelveHourClock(locale);
  const twelveHour = clockFormatter(timeZone, locale, { hour: 'numeric' });
  let at = { ms: range.startMs, wall: wallMs(range.startMs, timeZone) };
  if (mod(at.wall, HOUR_MS) !== 0) at = nextHourBoundary(at.ms, timeZone);
  while (at.ms < range.endMs) {
    const hour = Math.floor(mod(at.wall, DAY_MS) / HOUR_MS);
    const label = twelve ? twelveHour.format(at.ms) : `${pad2(hour)}:00`;
    ticks.push({ ms: at.ms, label, hour });
    at = nextHourBoundary(at.ms, timeZone);
  }
  return ticks;
}

const clockFormatters = new Map<string, Intl.DateTimeFormat>();

function clockFormatter(
  timeZone: string,
  locale: string | undefined,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${locale ?? ''}\u0000${timeZone}\u0000${JSON.stringify(options)}`;
  let formatter = clockFormatters.get(key);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat(locale, { timeZone, ...options });
    clockFormatters.set(key, formatter);
  }
  return formatter;
}

/** Whether the locale (the user's when undefined) writes times on a 12-hour clock. */
export function usesTwelveHourClock(locale?: string): boolean {
  const cycle = clockFormatter('UTC', locale, { hour: 'numeric' }).resolvedOptions().hourCycle;
  return cycle === 'h11' || cycle === 'h12';
}

/**
 * The clinic-local time of day in the locale's own form — the user's when no locale is given, as
 * every other time on the screens: "02:05 PM" in en-US, "14:05" in en-GB. One format everywhere.
 */
export function formatClock(ms: number, timeZone: string = machineTimeZone(), locale?: string) {
  return clockFormatter(timeZone, locale, { hour: '2-digit', minute: '2-digit' }).format(ms);
}

/**
 * A duration in UI.md's style, rounded to the minute: "45 min", "1 h 05 min", "2 h 00 min".
 * Negative durations read as "0 min": a range never runs backwards.
 */
export function formatDuration(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / MINUTE_MS));
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${pad2(minutes % 60)} min`;
}

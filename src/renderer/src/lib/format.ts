import {
  formatClock,
  formatDuration,
  parseDateKey,
  type LocalDate,
} from '../../../shared/timeline';
import { CLINIC_TIME_ZONE } from './clinic-time';

/**
 * How every screen writes dates, times, durations, sizes and counts: in the computer's time zone
 * (clinic-time.ts) and the user's locale, each form written once. Day arithmetic and clock times
 * come from src/shared/timeline (clock.ts); this module only words them.
 */

/** A moment as the screens get it: an ISO string from the service, or epoch ms. */
type Moment = string | number;

const msOf = (moment: Moment | null | undefined): number =>
  typeof moment === 'number' ? moment : moment ? Date.parse(moment) : NaN;

/** Written for an unknown or unreadable time. */
const UNKNOWN = '—';

const pad2 = (n: number) => String(n).padStart(2, '0');

/** The forms of one time zone and locale (the screens use `format`, for this computer's). */
export function createFormat({ timeZone, locale }: { timeZone: string; locale?: string }) {
  const dates = (options: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat(locale, { timeZone, ...options });
  const stampFormat = dates({ dateStyle: 'medium', timeStyle: 'short' });
  const stampSecondsFormat = dates({ dateStyle: 'medium', timeStyle: 'medium' });
  const dayFormat = dates({ dateStyle: 'medium' });
  const shortDayFormat = dates({ dateStyle: 'short' });
  const listDayFormat = dates({ day: '2-digit', month: 'short', year: 'numeric' });
  const weekdayDateFormat = dates({
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  });
  const dayTimeFormat = dates({
    day: 'numeric',
    month: 'short',
    hour: '2-digit',
    minute: '2-digit',
  });
  const clockSecondsFormat = dates({ hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const timeOfDayFormat = dates({ timeStyle: 'medium' });
  // Calendar dates (a due date, a day of the timeline) have no zone: their noon in UTC names them.
  const calendarDayFormat = new Intl.DateTimeFormat(locale, {
    dateStyle: 'medium',
    timeZone: 'UTC',
  });
  const longDateFormat = new Intl.DateTimeFormat(locale, {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const counts = new Intl.NumberFormat(locale);
  const sizes = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 });
  const noonUtc = (date: LocalDate) => Date.UTC(date.year, date.month - 1, date.day, 12);
  const known = (format: Intl.DateTimeFormat) => (moment: Moment | null | undefined) => {
    const ms = msOf(moment);
    return Number.isFinite(ms) ? format.format(ms) : UNKNOWN;
  };

  return {
    timeZone,
    /** A timestamp: "Mar 12, 2026, 2:05 PM"; "—" when there is none. */
    stamp: known(stampFormat),
    /** A timestamp to the second: "Mar 12, 2026, 2:05:09 PM". */
    stampSeconds: known(stampSecondsFormat),
    /** A day: "Mar 12, 2026". */
    day: known(dayFormat),
    /** A day in a column of them (two-digit days line up): "Mar 02, 2026". */
    listDay: known(listDayFormat),
    /** A day with its weekday: "Thu, Mar 12, 2026". */
    weekdayDate: known(weekdayDateFormat),
    /** A day and time within the year: "Mar 12, 02:05 PM" (the last sync, a delivery). */
    dayTime: known(dayTimeFormat),
    /** The time of day, as every screen writes it: "02:05 PM", "14:05" (clock.ts's form). */
    clock: (moment: Moment) => formatClock(msOf(moment), timeZone, locale),
    /** The time of day to the second: "02:05:09 PM". */
    clockSeconds: known(clockSecondsFormat),
    /** A log's time: the time to the second today, else the day and minute. */
    logTime(moment: Moment, now: number = Date.now()): string {
      const ms = msOf(moment);
      if (!Number.isFinite(ms)) return UNKNOWN;
      return shortDayFormat.format(ms) === shortDayFormat.format(now)
        ? timeOfDayFormat.format(ms)
        : dayTimeFormat.format(ms);
    },
    /** A calendar date: "Thursday, March 12, 2026" (the heading of a day). */
    longDate: (date: LocalDate) => longDateFormat.format(noonUtc(date)),
    /** A due date as the user wrote it, or as a day when it is one ("2026-03-12" → "Mar 12, 2026"). */
    dueDate(text: string): string {
      const date = parseDateKey(text);
      return date ? calendarDayFormat.format(noonUtc(date)) : text;
    },
    /** A length of time to the minute, UI.md's way: "45 min", "1 h 05 min". */
    duration: formatDuration,
    /** A recording's length: "45 s" under a minute, else "1 h 05 min"; "—" when unknown. */
    length(from: Moment, to: Moment): string {
      const ms = msOf(to) - msOf(from);
      if (!Number.isFinite(ms)) return UNKNOWN;
      return ms < 60_000 ? `${Math.max(0, Math.round(ms / 1000))} s` : formatDuration(ms);
    },
    /** A position in a recording: "2:03", "1:02:03". */
    mediaTime(seconds: number): string {
      const whole = Math.max(0, Math.floor(seconds));
      const hours = Math.floor(whole / 3600);
      const minutes = Math.floor((whole % 3600) / 60);
      return hours
        ? `${hours}:${pad2(minutes)}:${pad2(whole % 60)}`
        : `${minutes}:${pad2(whole % 60)}`;
    },
    /** A count: "12,480". */
    count: (n: number) => counts.format(n),
    /** A count of things: "1 task", "3 tasks", "1,200 recordings". */
    plural: (n: number, one: string, many = `${one}s`) =>
      `${counts.format(n)} ${n === 1 ? one : many}`,
    /** A size in decimal units, as file managers show them: "86.4 MB". */
    bytes(n: number): string {
      let value = n;
      let unit = 0;
      while (value >= 1000 && unit < SIZE_UNITS.length - 1) {
        value /= 1000;
        unit++;
      }
      return `${sizes.format(value)} ${SIZE_UNITS[unit]}`;
    },
  };
}

const SIZE_UNITS = ['B', 'kB', 'MB', 'GB'] as const;

export type Format = ReturnType<typeof createFormat>;

/** This computer's forms: its time zone, the user's locale. */
export const format: Format = createFormat({ timeZone: CLINIC_TIME_ZONE });

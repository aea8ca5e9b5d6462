import { dateKey, localDate, machineTimeZone, type LocalDate } from './clock';

/** Items of one clinic-local day, as a list groups them under a date heading. */
export interface DayGroup<T> {
  date: LocalDate;
  /** "2026-11-23". */
  key: string;
  items: T[];
}

/**
 * Groups items by the clinic-local day they start on, newest day first and, within a day, newest
 * first. Days are calendar days of the zone, so 23- and 25-hour days around a DST change hold
 * exactly their own items. Items without a time (`startMs` null) go last, in their given order,
 * under no day: the caller shows them apart.
 */
export function groupByDay<T>(
  items: readonly T[],
  startMsOf: (item: T) => number | null,
  timeZone: string = machineTimeZone(),
): { days: DayGroup<T>[]; undated: T[] } {
  const days = new Map<string, DayGroup<T> & { starts: number[] }>();
  const undated: T[] = [];
  for (const item of items) {
    const startMs = startMsOf(item);
    if (startMs === null || !Number.isFinite(startMs)) {
      undated.push(item);
      continue;
    }
    const date = localDate(startMs, timeZone);
    const key = dateKey(date);
    let day = days.get(key);
    if (!day) {
      day = { date, key, items: [], starts: [] };
      days.set(key, day);
    }
    day.items.push(item);
    day.starts.push(startMs);
  }
  return {
    days: [...days.values()]
      .sort((a, b) => (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
      .map(({ date, key, items: dayItems, starts }) => ({
        date,
        key,
        items: dayItems
          .map((item, i) => ({ item, startMs: starts[i]! }))
          .sort((a, b) => b.startMs - a.startMs)
          .map(({ item }) => item),
      })),
    undated,
  };
}

import { RECORD_TYPES, type RecordingOrder, type RecordType } from './api/values';
import type { LabelFilter } from './ipc';
import { dayRange, machineTimeZone, parseDateKey } from './timeline/clock';

/**
 * The Recordings list's filters as the screen holds them, and the query they make: the service's
 * own label filters (seed §3.3), with the date range in clinic-local days.
 */
export interface RecordingFilters {
  sort: RecordingOrder;
  descending: boolean;
  /** Record types to show; none selected shows every type. */
  types: readonly RecordType[];
  /** Part of a patient's name. */
  patient: string;
  /** The first and last clinic-local day shown ("YYYY-MM-DD"), or '' for no bound. */
  fromDate: string;
  toDate: string;
}

/** Newest first, everything: the service's own default order. */
export const DEFAULT_FILTERS: RecordingFilters = {
  sort: 'FromTime',
  descending: true,
  types: [],
  patient: '',
  fromDate: '',
  toDate: '',
};

export type FilterQuery = { ok: true; filter: LabelFilter } | { ok: false; problem: string };

/**
 * The labels.list filter for the screen's filters. Days become instants in the clinic's zone:
 * `fromTime` is the first day's local midnight, `toTime` (exclusive, as the service reads it) the
 * midnight after the last day, so both days are included whatever their length (23–25 hours).
 * Unset parts are left out, as is a type list naming every type (it filters nothing).
 */
export function labelFilterOf(
  filters: RecordingFilters,
  timeZone: string = machineTimeZone(),
): FilterQuery {
  const from = filters.fromDate === '' ? null : parseDateKey(filters.fromDate);
  const to = filters.toDate === '' ? null : parseDateKey(filters.toDate);
  if (from === undefined)
    return { ok: false, problem: `“From” is not a date: ${filters.fromDate}` };
  if (to === undefined) return { ok: false, problem: `“To” is not a date: ${filters.toDate}` };
  const fromMs = from ? dayRange(from, timeZone).startMs : null;
  const toMs = to ? dayRange(to, timeZone).endMs : null;
  if (fromMs !== null && toMs !== null && toMs <= fromMs) {
    return { ok: false, problem: 'The “To” date is before the “From” date.' };
  }
  const types = RECORD_TYPES.filter((type) => filters.types.includes(type));
  const patient = filters.patient.trim();
  return {
    ok: true,
    filter: {
      sortingProperty: filters.sort,
      isSortingDescending: filters.descending,
      ...(types.length > 0 && types.length < RECORD_TYPES.length ? { types } : {}),
      ...(patient ? { patientSearch: patient } : {}),
      ...(fromMs !== null ? { fromTime: new Date(fromMs).toISOString() } : {}),
      ...(toMs !== null ? { toTime: new Date(toMs).toISOString() } : {}),
    },
  };
}

/** Whether the filters leave any recording out (the order aside). */
export const narrowsList = (filters: RecordingFilters): boolean =>
  filters.types.length > 0 ||
  filters.patient.trim() !== '' ||
  filters.fromDate !== '' ||
  filters.toDate !== '';

/**
 * A click on a column header: the same column turns its direction around; another column starts
 * in its natural direction (newest and longest first, A→Z for words).
 */
export function sortedBy(filters: RecordingFilters, sort: RecordingOrder): RecordingFilters {
  if (filters.sort === sort) return { ...filters, descending: !filters.descending };
  return { ...filters, sort, descending: sort === 'FromTime' || sort === 'Duration' };
}

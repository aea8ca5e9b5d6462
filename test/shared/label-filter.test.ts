import { describe, expect, it } from 'vitest';
import { RECORD_TYPES } from '../../src/shared/api';
import {
  DEFAULT_FILTERS,
  labelFilterOf,
  narrowsList,
  sortedBy,
  type RecordingFilters,
} from '../../src/shared/label-filter';

const BERLIN = 'Europe/Berlin';
const filters = (change: Partial<RecordingFilters>): RecordingFilters => ({
  ...DEFAULT_FILTERS,
  ...change,
});

describe('labelFilterOf', () => {
  it('asks for everything, newest first, by default', () => {
    expect(labelFilterOf(DEFAULT_FILTERS, BERLIN)).toEqual({
      ok: true,
      filter: { sortingProperty: 'FromTime', isSortingDescending: true },
    });
  });

  it('turns clinic-local days into the service’s instants, the last day included', () => {
    const query = labelFilterOf(filters({ fromDate: '2026-06-01', toDate: '2026-06-02' }), BERLIN);
    expect(query).toMatchObject({
      ok: true,
      filter: { fromTime: '2026-05-31T22:00:00.000Z', toTime: '2026-06-02T22:00:00.000Z' },
    });
  });

  it('covers a 23-hour day whole when the clocks go forward', () => {
    const query = labelFilterOf(filters({ fromDate: '2026-03-29', toDate: '2026-03-29' }), BERLIN);
    expect(query).toMatchObject({
      ok: true,
      filter: { fromTime: '2026-03-28T23:00:00.000Z', toTime: '2026-03-29T22:00:00.000Z' },
    });
  });

  it('leaves an open end open', () => {
    const query = labelFilterOf(filters({ toDate: '2026-06-02' }), BERLIN);
    expect(query.ok && query.filter).toEqual({
      sortingProperty: 'FromTime',
      isSortingDescending: true,
      toTime: '2026-06-02T22:00:00.000Z',
    });
  });

  it('refuses a range that ends before it starts, and dates that are not dates', () => {
    expect(
      labelFilterOf(filters({ fromDate: '2026-06-02', toDate: '2026-06-01' }), BERLIN),
    ).toEqual({ ok: false, problem: 'The “To” date is before the “From” date.' });
    expect(labelFilterOf(filters({ fromDate: '2026-02-30' }), BERLIN)).toEqual({
      ok: false,
      problem: '“From” is not a date: 2026-02-30',
    });
  });

  it('sends the types in the seed’s order, and none when all are chosen', () => {
    const some = labelFilterOf(filters({ types: ['PhoneCallAudio', 'HubMic'] }), BERLIN);
    expect(some.ok && some.filter.types).toEqual(['HubMic', 'PhoneCallAudio']);
    const all = labelFilterOf(filters({ types: [...RECORD_TYPES].reverse() }), BERLIN);
    expect(all.ok && 'types' in all.filter).toBe(false);
  });

  it('trims the patient search and drops a blank one', () => {
    const named = labelFilterOf(filters({ patient: '  Maple ' }), BERLIN);
    expect(named.ok && named.filter.patientSearch).toBe('Maple');
    const blank = labelFilterOf(filters({ patient: '   ' }), BERLIN);
    expect(blank.ok && 'patientSearch' in blank.filter).toBe(false);
  });

  it('passes the sorting on', () => {
    const query = labelFilterOf(filters({ sort: 'Patient', descending: false }), BERLIN);
    expect(query.ok && query.filter).toMatchObject({
      sortingProperty: 'Patient',
      isSortingDescending: false,
    });
  });
});

describe('sortedBy', () => {
  it('turns the same column around, and starts another in its natural direction', () => {
    const byPatient = sortedBy(DEFAULT_FILTERS, 'Patient');
    expect(byPatient).toMatchObject({ sort: 'Patient', descending: false });
    expect(sortedBy(byPatient, 'Patient')).toMatchObject({ sort: 'Patient', descending: true });
    expect(sortedBy(byPatient, 'FromTime')).toMatchObject({ sort: 'FromTime', descending: true });
    expect(sortedBy(DEFAULT_FILTERS, 'FromTime')).toMatchObject({ descending: false });
    // Longest first, as newest first.
    expect(sortedBy(byPatient, 'Duration')).toMatchObject({ sort: 'Duration', descending: true });
  });
});

describe('narrowsList', () => {
  it('is true for any filter, not for the order', () => {
    expect(narrowsList(DEFAULT_FILTERS)).toBe(false);
    expect(narrowsList(filters({ sort: 'Type', descending: false }))).toBe(false);
    expect(narrowsList(filters({ types: ['HubMic'] }))).toBe(true);
    expect(narrowsList(filters({ patient: 'M' }))).toBe(true);
    expect(narrowsList(filters({ fromDate: '2026-06-01' }))).toBe(true);
  });
});

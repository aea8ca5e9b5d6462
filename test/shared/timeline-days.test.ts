import { describe, expect, it } from 'vitest';
import { groupByDay } from '../../src/shared/timeline/days';

const HOUR = 3_600_000;

describe('groupByDay', () => {
  it('groups by the clinic-local day, newest day and newest item first', () => {
    const zone = 'America/New_York';
    const items = [
      { id: 'mon-9', at: Date.parse('2026-11-23T09:00:00-05:00') },
      { id: 'sun-23', at: Date.parse('2026-11-22T23:30:00-05:00') }, // already Monday in UTC
      { id: 'mon-17', at: Date.parse('2026-11-23T17:00:00-05:00') },
    ];
    const { days } = groupByDay(items, (item) => item.at, zone);
    expect(days.map((d) => [d.key, d.items.map((i) => i.id)])).toEqual([
      ['2026-11-23', ['mon-17', 'mon-9']],
      ['2026-11-22', ['sun-23']],
    ]);
  });

  it('keeps 25- and 23-hour days whole across DST changes', () => {
    const zone = 'Europe/Berlin';
    // 2026-10-25 has 25 hours in Berlin (clocks back at 03:00); 2026-03-29 has 23.
    const autumnStart = Date.parse('2026-10-25T00:00:00+02:00');
    const autumn = [0, 12, 24.5].map((h) => ({ at: autumnStart + h * HOUR }));
    expect(groupByDay(autumn, (i) => i.at, zone).days.map((d) => [d.key, d.items.length])).toEqual([
      ['2026-10-25', 3],
    ]);
    const springStart = Date.parse('2026-03-29T00:00:00+01:00');
    const spring = [0, 22.5, 23].map((h) => ({ at: springStart + h * HOUR }));
    expect(groupByDay(spring, (i) => i.at, zone).days.map((d) => [d.key, d.items.length])).toEqual([
      ['2026-03-30', 1],
      ['2026-03-29', 2],
    ]);
  });

  it('sets apart items without a time', () => {
    const { days, undated } = groupByDay([{ at: null }, { at: 0 }], (i) => i.at, 'UTC');
    expect(undated).toEqual([{ at: null }]);
    expect(days).toHaveLength(1);
  });
});

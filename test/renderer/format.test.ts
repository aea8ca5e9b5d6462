import { describe, expect, it } from 'vitest';
import { createFormat } from '../../src/renderer/src/lib/format';

// ICU writes a narrow no-break space before AM/PM in some versions: compare with plain spaces.
const plain = (text: string) => text.replace(/\s/g, ' ');
const at = '2026-03-12T14:05:09.000Z';

describe('the one formatter', () => {
  it('writes times in the zone it is given, in the locale’s own form', () => {
    const us = createFormat({ timeZone: 'America/New_York', locale: 'en-US' });
    const gb = createFormat({ timeZone: 'Europe/London', locale: 'en-GB' });
    // New York is on summer time (UTC−4) since March 8; London is not yet (UTC+0).
    expect(
      [us.stamp(at), us.stampSeconds(at), us.clock(at), us.clockSeconds(at)].map(plain),
    ).toEqual(['Mar 12, 2026, 10:05 AM', 'Mar 12, 2026, 10:05:09 AM', '10:05 AM', '10:05:09 AM']);
    expect(
      [gb.stamp(at), gb.stampSeconds(at), gb.clock(at), gb.clockSeconds(at)].map(plain),
    ).toEqual(['12 Mar 2026, 14:05', '12 Mar 2026, 14:05:09', '14:05', '14:05:09']);
    expect([us.day(at), us.weekdayDate(at), us.dayTime(at)].map(plain)).toEqual([
      'Mar 12, 2026',
      'Thu, Mar 12, 2026',
      'Mar 12, 10:05 AM',
    ]);
    // Two-digit days, so a column of them lines up.
    expect(gb.listDay('2026-03-02T10:00:00Z')).toBe('02 Mar 2026');
    // Epoch milliseconds and ISO strings alike.
    expect(us.clock(Date.parse(at))).toBe(us.clock(at));
  });

  it('writes the day of a late evening as that day in the zone, not in UTC', () => {
    const us = createFormat({ timeZone: 'America/New_York', locale: 'en-US' });
    const lateEvening = '2026-03-13T03:30:00Z'; // 23:30 on the 12th in New York
    expect(us.day(lateEvening)).toBe('Mar 12, 2026');
    // A log time: the time alone on the same local day, else the day and minute.
    expect(plain(us.logTime(lateEvening, Date.parse('2026-03-12T15:00:00Z')))).toBe('11:30:00 PM');
    expect(plain(us.logTime(lateEvening, Date.parse('2026-03-13T15:00:00Z')))).toBe(
      'Mar 12, 11:30 PM',
    );
  });

  it('writes calendar dates (a due date, a day heading) the same in every zone', () => {
    for (const timeZone of ['Pacific/Kiritimati', 'UTC', 'Pacific/Pago_Pago']) {
      const f = createFormat({ timeZone, locale: 'en-US' });
      expect(f.dueDate('2026-03-29')).toBe('Mar 29, 2026');
      expect(f.longDate({ year: 2026, month: 3, day: 29 })).toBe('Sunday, March 29, 2026');
    }
    const f = createFormat({ timeZone: 'UTC', locale: 'en-US' });
    // A due date the user wrote in other words stays as written; so does a date that is not one.
    expect([f.dueDate('next week'), f.dueDate('2026-02-30')]).toEqual(['next week', '2026-02-30']);
  });

  it('says "—" for a time it does not have or cannot read', () => {
    const f = createFormat({ timeZone: 'UTC', locale: 'en-US' });
    expect([f.stamp(null), f.stamp(undefined), f.stamp(''), f.day('not a date')]).toEqual([
      '—',
      '—',
      '—',
      '—',
    ]);
    expect(f.length('then', 'now')).toBe('—');
  });

  it('writes durations UI.md’s way, and a recording’s length in seconds under a minute', () => {
    const f = createFormat({ timeZone: 'UTC', locale: 'en-US' });
    expect([f.duration(45 * 60_000), f.duration(65 * 60_000), f.duration(120 * 60_000)]).toEqual([
      '45 min',
      '1 h 05 min',
      '2 h 00 min',
    ]);
    expect(f.length('2026-03-12T14:05:00Z', '2026-03-12T14:05:45Z')).toBe('45 s');
    expect(f.length('2026-03-12T14:05:00Z', '2026-03-12T15:10:20Z')).toBe('1 h 05 min');
    expect([f.mediaTime(0), f.mediaTime(123.9), f.mediaTime(3723)]).toEqual([
      '0:00',
      '2:03',
      '1:02:03',
    ]);
  });

  it('writes counts and sizes in the locale’s digits', () => {
    const us = createFormat({ timeZone: 'UTC', locale: 'en-US' });
    const de = createFormat({ timeZone: 'UTC', locale: 'de-DE' });
    expect([us.count(12_480), de.count(12_480)]).toEqual(['12,480', '12.480']);
    expect([us.plural(1, 'task'), us.plural(0, 'task'), us.plural(1200, 'recording')]).toEqual([
      '1 task',
      '0 tasks',
      '1,200 recordings',
    ]);
    expect(us.plural(2, 'entry', 'entries')).toBe('2 entries');
    expect([us.bytes(999), us.bytes(86_400_000), us.bytes(1_500_000_000_000)]).toEqual([
      '999 B',
      '86.4 MB',
      '1,500 GB',
    ]);
    expect(de.bytes(86_400_000)).toBe('86,4 MB');
  });
});

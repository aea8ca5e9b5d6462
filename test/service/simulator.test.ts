// Before anything uses Date: the simulator works in the process's local time, and London has
// both daylight saving changes in the year.
process.env.TZ = 'Europe/London';

import { describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/shared/api';
import { ClipBank } from '../../src/service/audio/clip-bank';
import {
  localDayStart,
  loseUpload,
  nextLocalDay,
  simulateDay,
  type HubMinute,
  type SimulatedDay,
  type SimulatedDevice,
} from '../../src/service/hub/simulator';
import { seededRandom } from '../../src/service/random';
import { PATIENT_NAMES } from '../../src/service/demo/dialogue';
import { letterOff } from '../../src/service/demo/transcription';

const HOUR_MS = 60 * MINUTE_MS;
const bank = new ClipBank('resources');
const consultRoom: SimulatedDevice = { id: 'hub-consult-1', offAtNight: false };
const surgeryPrep: SimulatedDevice = { id: 'hub-surgery-prep', offAtNight: true };

/** Local midnight of a calendar date (month 1-12). */
const day = (year: number, month: number, date: number) =>
  localDayStart(new Date(year, month - 1, date, 12).getTime());

/** `count` consecutive local days starting at the given date. */
function days(year: number, month: number, date: number, count: number): number[] {
  const out = [day(year, month, date)];
  while (out.length < count) out.push(nextLocalDay(out[out.length - 1]!));
  return out;
}

const FOUR_WEEKS = days(2026, 11, 2, 28);
const DEVICES: SimulatedDevice[] = [
  consultRoom,
  { id: 'hub-consult-2', offAtNight: false },
  surgeryPrep,
];

let simulated: { device: SimulatedDevice; dayStart: number; sim: SimulatedDay }[] | undefined;

/** Four weeks of every device, simulated once for the whole file. */
function forEachDay(fn: (device: SimulatedDevice, dayStart: number, sim: SimulatedDay) => void) {
  simulated ??= DEVICES.flatMap((device) =>
    FOUR_WEEKS.map((dayStart) => ({ device, dayStart, sim: simulateDay(bank, device, dayStart) })),
  );
  for (const { device, dayStart, sim } of simulated) fn(device, dayStart, sim);
}

const describeMinute = (m: HubMinute) => new Date(m.minuteMs).toISOString();

describe('the test set-up', () => {
  it('runs in Europe/London time', () => {
    expect(new Date(Date.UTC(2026, 6, 1, 12)).getHours()).toBe(13);
    expect(new Date(Date.UTC(2026, 0, 1, 12)).getHours()).toBe(12);
  });
});

describe('seededRandom', () => {
  it('repeats its sequence for the same seed and differs for another', () => {
    const draw = (seed: string) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, () => random.next());
    };
    expect(draw('device/2026-11-19')).toEqual(draw('device/2026-11-19'));
    expect(draw('device/2026-11-19')).not.toEqual(draw('device/2026-11-20'));
  });

  it('draws next in [0, 1) and int in [min, max], reaching both ends', () => {
    const random = seededRandom('bounds');
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const x = random.next();
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
      const n = random.int(3, 7);
      expect(Number.isInteger(n)).toBe(true);
      seen.add(n);
    }
    expect([...seen].sort()).toEqual([3, 4, 5, 6, 7]);
  });

  it('picks every item of a list, refuses an empty one, and honours chance 0 and 1', () => {
    const random = seededRandom('pick');
    const picked = new Set(Array.from({ length: 200 }, () => random.pick(['a', 'b', 'c'])));
    expect([...picked].sort()).toEqual(['a', 'b', 'c']);
    expect(() => random.pick([])).toThrow('pick from an empty list');
    for (let i = 0; i < 100; i++) {
      expect(random.chance(0)).toBe(false);
      expect(random.chance(1)).toBe(true);
    }
  });
});

describe('simulateDay', () => {
  const thursday = day(2026, 11, 19);

  it('is a pure function of device and day', () => {
    const first = simulateDay(bank, consultRoom, thursday);
    const again = simulateDay(bank, consultRoom, thursday);
    expect(again).toEqual(first);
    expect(first.consults.length).toBeGreaterThan(0);
    const other = simulateDay(bank, { id: 'hub-consult-2', offAtNight: false }, thursday);
    expect(other).not.toEqual(first);
    expect(other.consults.map((c) => c.startMs)).not.toEqual(first.consults.map((c) => c.startMs));
    const nextDay = simulateDay(bank, consultRoom, nextLocalDay(thursday));
    expect(nextDay.consults.map((c) => c.startMs - nextLocalDay(thursday))).not.toEqual(
      first.consults.map((c) => c.startMs - thursday),
    );
  });

  it('stores only whole minutes of that day, each once and in order', () => {
    let count = 0;
    const bad: string[] = [];
    forEachDay((device, dayStart, { minutes }) => {
      const end = nextLocalDay(dayStart);
      let previous = -Infinity;
      for (const m of minutes) {
        count++;
        const ok =
          m.minuteMs % MINUTE_MS === 0 &&
          m.minuteMs >= dayStart &&
          m.minuteMs < end &&
          m.minuteMs > previous;
        if (!ok) bad.push(`${device.id} ${describeMinute(m)}`);
        previous = m.minuteMs;
      }
    });
    expect(bad).toEqual([]);
    expect(count).toBeGreaterThan(28 * 3 * 12 * 60);
  });

  it('never lets a clip cross its minute, and speechMs is the sum of its clips', () => {
    let clips = 0;
    const bad: string[] = [];
    forEachDay((device, _dayStart, { minutes }) => {
      for (const m of minutes) {
        let sum = 0;
        for (const [clip, offsetMs] of m.clips) {
          clips++;
          if (!bank.has(clip)) {
            bad.push(`${device.id} ${describeMinute(m)}: unknown clip ${clip}`);
            continue;
          }
          if (offsetMs < 0 || offsetMs + bank.durationMs(clip) > MINUTE_MS)
            bad.push(`${device.id} ${describeMinute(m)}: ${clip} at ${offsetMs} ms crosses`);
          sum += bank.durationMs(clip);
        }
        if (m.speechMs !== sum)
          bad.push(`${device.id} ${describeMinute(m)}: speechMs ${m.speechMs}, clips ${sum}`);
        if ((m.speechMs === 0) !== (m.transcript === ''))
          bad.push(`${device.id} ${describeMinute(m)}: transcript and speech disagree`);
        const lines = m.diarized === '' ? [] : m.diarized.split('\n');
        if (
          lines.length !== m.clips.length ||
          !lines.every((line) => /^Speaker \d+: \S/.test(line))
        )
          bad.push(`${device.id} ${describeMinute(m)}: diarized ${JSON.stringify(m.diarized)}`);
      }
    });
    expect(bad).toEqual([]);
    expect(clips).toBeGreaterThan(1000);
  });

  it('has no consults or speech on Sundays', () => {
    const sundays = FOUR_WEEKS.filter((d) => new Date(d).getDay() === 0);
    expect(sundays).toHaveLength(4);
    for (const device of DEVICES) {
      for (const sunday of sundays) {
        const sim = simulateDay(bank, device, sunday);
        expect(sim.consults).toEqual([]);
        expect(sim.chatter).toEqual([]);
        expect(sim.minutes.length).toBeGreaterThan(0);
        expect(sim.minutes.every((m) => m.speechMs === 0 && m.clips.length === 0)).toBe(true);
      }
    }
  });

  it('places consults in opening hours, none longer than 90 minutes, with speech in them', () => {
    let consults = 0;
    forEachDay((_device, dayStart, sim) => {
      const weekday = new Date(dayStart).getDay();
      if (weekday !== 0) expect(sim.consults.length).toBeGreaterThan(0);
      for (const c of sim.consults) {
        consults++;
        expect(c.endMs).toBeGreaterThan(c.startMs);
        expect(c.endMs - c.startMs).toBeLessThanOrEqual(90 * MINUTE_MS);
        expect(c.endMs % MINUTE_MS).toBe(0);
        expect(c.uploadLost).toBe(false);
        expect(c.scripts.length).toBeGreaterThanOrEqual(1);
        expect(new Date(c.startMs).getHours()).toBeGreaterThanOrEqual(8);
        expect(new Date(c.startMs).getHours()).toBeLessThan(weekday === 6 ? 13 : 18);
        const speech = sim.minutes.some(
          (m) => m.minuteMs >= c.startMs && m.minuteMs < c.endMs && m.speechMs > 0,
        );
        expect(speech).toBe(true);
      }
    });
    expect(consults).toBeGreaterThan(100);
  });

  it('names one patient in each consult, its own, sometimes as a recognizer mishears it', () => {
    const slips = { lowerCase: 0, letterOff: 0 };
    forEachDay((device, _dayStart, sim) => {
      for (const consult of sim.consults) {
        const heard = sim.minutes
          .filter((m) => m.minuteMs >= consult.startMs && m.minuteMs < consult.endMs)
          .map((m) => m.transcript)
          .join(' ');
        const patient = consult.patient!;
        expect(PATIENT_NAMES.map((p) => p.name)).toContain(patient);
        const others = PATIENT_NAMES.filter(
          (p) => p.name !== patient && new RegExp(`\\b${p.name}\\b`, 'i').test(heard),
        );
        expect(others, `${device.id} ${consult.startMs}`).toEqual([]);
        if (heard.includes(patient.toLowerCase())) slips.lowerCase++;
        else if (heard.includes(letterOff(patient))) slips.letterOff++;
        else expect(heard).toContain(patient);
      }
    });
    expect(slips.lowerCase).toBeGreaterThan(10);
    expect(slips.letterOff).toBeGreaterThan(10);
  });

  it('keeps a device that is off at night silent from 20:00 to 07:00', () => {
    forEachDay((device, _dayStart, { minutes }) => {
      const hours = new Set(minutes.map((m) => new Date(m.minuteMs).getHours()));
      if (device.offAtNight) {
        for (const h of [0, 1, 2, 3, 4, 5, 6, 20, 21, 22, 23]) expect(hours.has(h)).toBe(false);
        expect(hours.has(7)).toBe(true);
      } else {
        for (const h of [0, 3, 6, 20, 23]) expect(hours.has(h)).toBe(true);
      }
    });
  });

  it('marks the minutes of a consult whose upload was lost', () => {
    const sim = simulateDay(bank, consultRoom, thursday);
    const consult = sim.consults[0]!;
    loseUpload(sim, consult);
    expect(consult.uploadLost).toBe(true);
    for (const m of sim.minutes) {
      const inside = m.minuteMs >= consult.startMs && m.minuteMs < consult.endMs;
      expect(m.audioOk).toBe(!inside);
    }
  });
});

describe('daylight saving time', () => {
  it('starts a day at local midnight and ends it at the next one', () => {
    const thursday = day(2026, 11, 19);
    expect(new Date(thursday).toISOString()).toBe('2026-11-19T00:00:00.000Z');
    expect(localDayStart(thursday + 23 * HOUR_MS + 59 * MINUTE_MS)).toBe(thursday);
    expect(nextLocalDay(thursday) - thursday).toBe(24 * HOUR_MS);
  });

  it('has a 23-hour day when the clocks go forward (2026-03-29)', () => {
    const start = localDayStart(Date.parse('2026-03-29T12:00:00Z'));
    expect(new Date(start).toISOString()).toBe('2026-03-29T00:00:00.000Z');
    const end = nextLocalDay(start);
    expect(new Date(end).toISOString()).toBe('2026-03-29T23:00:00.000Z');
    expect(end - start).toBe(23 * HOUR_MS);
    expect(localDayStart(end - 1)).toBe(start);
    expect(localDayStart(end)).toBe(end);
  });

  it('has a 25-hour day when the clocks go back (2026-10-25)', () => {
    const start = localDayStart(Date.parse('2026-10-25T12:00:00Z'));
    expect(new Date(start).toISOString()).toBe('2026-10-24T23:00:00.000Z');
    const end = nextLocalDay(start);
    expect(new Date(end).toISOString()).toBe('2026-10-26T00:00:00.000Z');
    expect(end - start).toBe(25 * HOUR_MS);
    expect(localDayStart(end - 1)).toBe(start);
  });

  it.each([
    ['2026-03-29T12:00:00Z', 23],
    ['2026-10-25T12:00:00Z', 25],
  ])('simulates %s with minutes only inside its %i hours', (noon, hours) => {
    const start = localDayStart(Date.parse(noon));
    const end = nextLocalDay(start);
    for (const device of DEVICES) {
      const { minutes } = simulateDay(bank, device, start);
      expect(minutes.length).toBeGreaterThan(0);
      expect(minutes.length).toBe(new Set(minutes.map((m) => m.minuteMs)).size);
      for (const m of minutes) {
        expect(m.minuteMs % MINUTE_MS).toBe(0);
        expect(m.minuteMs).toBeGreaterThanOrEqual(start);
        expect(m.minuteMs).toBeLessThan(end);
      }
      if (!device.offAtNight) {
        // At most one outage of up to 50 minutes: nearly every minute of the day is there.
        expect(minutes.length).toBeGreaterThanOrEqual(hours * 60 - 50);
        expect(minutes.length).toBeLessThanOrEqual(hours * 60);
      } else {
        // Off from 00:00 to 07:00 local and from 20:00: thirteen hours on at most.
        expect(minutes.length).toBeLessThanOrEqual(13 * 60);
        for (const m of minutes) {
          const h = new Date(m.minuteMs).getHours();
          expect(h >= 7 && h < 20).toBe(true);
        }
      }
    }
  });

  it('simulates the working days either side of a change in full', () => {
    for (const [y, mo, d] of [
      [2026, 3, 28],
      [2026, 3, 30],
      [2026, 10, 24],
      [2026, 10, 26],
    ] as const) {
      const start = day(y, mo, d);
      const sim = simulateDay(bank, consultRoom, start);
      expect(sim.consults.length).toBeGreaterThan(0);
      expect(
        sim.minutes.every((m) => m.minuteMs >= start && m.minuteMs < nextLocalDay(start)),
      ).toBe(true);
    }
  });
});

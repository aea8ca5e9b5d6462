import { MINUTE_MS } from '../../shared/api';
import type { ClipBank } from '../audio/clip-bank';
import { recombinedVisit, type Visit } from '../demo/hospital-dialogue';
import type { HospitalPatient } from '../demo/hospital-people';
import { seededRandom } from '../random';
import {
  dayKey,
  layLines,
  localTime,
  minutesOf,
  nextLocalDay,
  type HubMinute,
  type PlacedLine,
} from './simulator';

/**
 * The scale seed's hospital (`--seed scale:N`): ten hub devices recording around the clock for
 * three years, and how many records each day holds so that the history has exactly N. Like the
 * demo's clinic days, a device's day is a pure function — of the device, the date and the plan
 * (N and the history's first day) — so its minutes are computed when asked for rather than
 * stored (src/service/hub/generated-minutes.ts): three years of ten devices are ≈ 15 M minutes.
 */

export interface HospitalDevice {
  id: string;
  displayName: string;
  serial: string;
  /** Switched off from 20:00 to 07:00 (no minutes then), as the demo's surgery prep hub. */
  offAtNight: boolean;
  /** Local hours [from, to) in which visits happen, Monday to Friday and at weekends. */
  weekdayHours: [number, number];
  weekendHours: [number, number];
  /** Its share of the day's hub visits, relative to the other devices'. */
  weight: number;
}

const device = (
  id: string,
  displayName: string,
  serial: string,
  weekdayHours: [number, number],
  weekendHours: [number, number],
  weight: number,
  offAtNight = false,
): HospitalDevice => ({ id, displayName, serial, offAtNight, weekdayHours, weekendHours, weight });

const consultRoom = (n: number, serial: string) =>
  device(`hub-consult-${n}`, `Consult Room ${n}`, serial, [8, 20], [9, 17], 12);

/** The first three are the demo clinic's devices (ids and serials), then seven more rooms. */
export const HOSPITAL_DEVICES: readonly HospitalDevice[] = [
  consultRoom(1, 'HUB-7Q4K-0193'),
  consultRoom(2, 'HUB-7Q4K-0207'),
  device('hub-surgery-prep', 'Surgery Prep', 'HUB-9X2M-0045', [7, 19], [8, 16], 6, true),
  consultRoom(3, 'HUB-7Q4K-0311'),
  consultRoom(4, 'HUB-7Q4K-0342'),
  consultRoom(5, 'HUB-7Q4K-0388'),
  consultRoom(6, 'HUB-7Q4K-0415'),
  device('hub-dental', 'Dental Suite', 'HUB-9X2M-0102', [8, 18], [9, 13], 6),
  device('hub-exotics', 'Exotics Room', 'HUB-9X2M-0128', [9, 18], [10, 14], 5),
  device('hub-ward', 'Ward', 'HUB-3C8T-0777', [0, 24], [0, 24], 9),
];

/** Three years of history, ending the day before the seed is built. */
export const HOSPITAL_DAYS = 3 * 365;
/** The share of a day's records made by the hubs (the demo clinic's week: 103 of 145). */
const HUB_SHARE = 0.7;
/** Hub records started with the device's button (HubBatch) rather than by auto mode (HubMic). */
const BUTTON_SHARE = 0.2;
/** A hub visit whose upload was lost (its conversation FAILED). */
const LOST_UPLOAD_CHANCE = 0.005;
/** A word in the corridor after a visit, and the share of those auto mode kept (FILTERED). */
const CHATTER_CHANCE = 0.4;
const CHATTER_KEPT_CHANCE = 1 / 3;

/** Weekdays are busier than Saturdays, Saturdays than Sundays (relative weights). */
const WEEKDAY_WEIGHTS = [5, 10, 10, 10, 10, 10, 7]; // Sunday first, as Date.getDay()
const WEEK_WEIGHT = WEEKDAY_WEIGHTS.reduce((sum, w) => sum + w, 0);

/** What a scale seed builds: N records over `days` local days from `firstDayMs`. */
export interface HospitalPlan {
  records: number;
  /** Local midnight of the history's first day. */
  firstDayMs: number;
  days: number;
}

/** Local midnight `offset` days after the day starting at `dayStartMs` (DST-correct). */
export function addLocalDays(dayStartMs: number, offset: number): number {
  const d = new Date(dayStartMs);
  d.setDate(d.getDate() + offset);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** The plan of a scale seed of `records` built at `now`: the HOSPITAL_DAYS before today. */
export function hospitalPlan(records: number, now: number): HospitalPlan {
  const today = new Date(now);
  today.setHours(0, 0, 0, 0);
  return {
    records,
    firstDayMs: addLocalDays(today.getTime(), -HOSPITAL_DAYS),
    days: HOSPITAL_DAYS,
  };
}

export const dayStartOf = (plan: HospitalPlan, index: number) =>
  addLocalDays(plan.firstDayMs, index);

/** The index of a day in the plan (negative before its first day; ≥ days after its last). */
export const dayIndexOf = (plan: HospitalPlan, dayStartMs: number) =>
  // Days are 23 to 25 hours long; rounding absorbs the daylight saving hour.
  Math.round((dayStartMs - plan.firstDayMs) / (24 * 60 * MINUTE_MS));

/** The summed weights of days [0, index). */
function weightBefore(plan: HospitalPlan, index: number): number {
  const firstWeekday = new Date(plan.firstDayMs).getDay();
  let sum = Math.floor(index / 7) * WEEK_WEIGHT;
  for (let i = index - (index % 7); i < index; i++) sum += WEEKDAY_WEIGHTS[(firstWeekday + i) % 7]!;
  return sum;
}

/**
 * Records on day `index`: the plan's N shared out by the days' weights, so the history's days add
 * up to exactly N. Days after the history (minutes only) get their weekday's share too.
 */
export function recordsOnDay(plan: HospitalPlan, index: number): number {
  if (index < 0) return 0;
  const total = weightBefore(plan, plan.days);
  const upTo = (i: number) => Math.floor((plan.records * weightBefore(plan, i)) / total);
  return upTo(index + 1) - upTo(index);
}

const DEVICE_WEIGHT = HOSPITAL_DEVICES.reduce((sum, d) => sum + d.weight, 0);
const weightOfDevicesBefore = (deviceIndex: number) =>
  HOSPITAL_DEVICES.slice(0, deviceIndex).reduce((sum, d) => sum + d.weight, 0);

/**
 * Hub visits planned on one device on day `index`: its weight's share of the day's hub records.
 * The shares are rounded from a point that moves from day to day (golden-ratio steps), so a
 * device whose share is below one visit a day still gets its due over a week, and the devices'
 * visits add up to the day's hub records exactly.
 */
function hubVisitsOn(plan: HospitalPlan, index: number, deviceIndex: number): number {
  const hub = Math.floor(recordsOnDay(plan, index) * HUB_SHARE);
  const phase = (index * 0.6180339887) % 1;
  const upTo = (i: number) => Math.floor((hub * weightOfDevicesBefore(i)) / DEVICE_WEIGHT + phase);
  return upTo(deviceIndex + 1) - upTo(deviceIndex);
}

/** A visit recorded by a hub: the range a conversation covers. */
interface HubVisit {
  startMs: number;
  endMs: number;
  visit: Visit;
  /** The device lost this visit's upload: processing it failed. */
  uploadLost: boolean;
  /** Started with the device's button (a HubBatch record) rather than by auto mode (HubMic). */
  byButton: boolean;
}

export interface HospitalDay {
  dayStartMs: number;
  /** Every line spoken near the device that day. */
  lines: PlacedLine[];
  /** Minutes the device did not record (switched off at night). */
  offline: Set<number>;
  visits: HubVisit[];
  /** Minutes of a word in the corridor that auto mode kept as a (FILTERED) conversation. */
  keptChatter: number[];
}

/** The day's recorded minutes in [startMs, endMs) (the whole day by default). */
export function minutesOfDay(
  day: HospitalDay,
  startMs = day.dayStartMs,
  endMs = nextLocalDay(day.dayStartMs),
): HubMinute[] {
  const from = Math.ceil(Math.max(startMs, day.dayStartMs) / MINUTE_MS) * MINUTE_MS;
  const to = Math.min(endMs, nextLocalDay(day.dayStartMs));
  const minutes = minutesOf(
    day.lines.filter((line) => line.atMs >= from && line.atMs < to),
    from,
    to,
    day.offline,
  );
  for (const visit of day.visits) {
    if (!visit.uploadLost || visit.endMs <= from || visit.startMs >= to) continue;
    for (const minute of minutes)
      if (minute.minuteMs >= visit.startMs && minute.minuteMs < visit.endMs) minute.audioOk = false;
  }
  return minutes;
}

/**
 * One device's local day: its planned visits spread over its hours (one slot each, placed at a
 * random point of the slot's first third, never overlapping), a word in the corridor after some,
 * now and then a lost upload. Visits that would run past the day's end are not made.
 */
export function simulateHospitalDay(
  bank: ClipBank,
  plan: HospitalPlan,
  patients: readonly HospitalPatient[],
  deviceIndex: number,
  dayStartMs: number,
): HospitalDay {
  const device = HOSPITAL_DEVICES[deviceIndex]!;
  const index = dayIndexOf(plan, dayStartMs);
  const seed = `earmark-scale-${plan.records}/${device.id}/${dayKey(dayStartMs)}`;
  const random = seededRandom(seed);
  // The recognizer's slips draw from their own sequence, as in the demo's days.
  const hearing = seededRandom(`${seed}/transcription`);
  const dayEndMs = nextLocalDay(dayStartMs);
  const weekday = new Date(dayStartMs).getDay();
  const [fromHour, toHour] =
    weekday === 0 || weekday === 6 ? device.weekendHours : device.weekdayHours;
  const openMs = localTime(dayStartMs, fromHour);
  const closeMs = toHour >= 24 ? dayEndMs : localTime(dayStartMs, toHour);
  // A device switched off at night records nothing after 20:00: its visits end before.
  const recordsUntil = device.offAtNight ? localTime(dayStartMs, 20) : dayEndMs;
  const count = hubVisitsOn(plan, index, deviceIndex);
  const slotMs = count > 0 ? (closeMs - openMs) / count : 0;

  const lines: PlacedLine[] = [];
  const visits: HubVisit[] = [];
  const keptChatter: number[] = [];
  let cursor = openMs;
  for (let i = 0; i < count; i++) {
    const slotStart = openMs + Math.floor(i * slotMs);
    const startMs = Math.max(
      slotStart + random.int(0, Math.floor(slotMs / 3 / 1000)) * 1000,
      cursor,
    );
    const visit = recombinedVisit(random, 'consult', random.pick(patients));
    const laid = layLines(
      bank,
      random,
      hearing,
      visit.lines,
      startMs + random.int(2_000, 20_000),
      new Map(),
      true,
    );
    const endMs = Math.ceil((laid.endMs + random.int(5_000, 30_000)) / MINUTE_MS) * MINUTE_MS;
    if (endMs > recordsUntil) break;
    lines.push(...laid.placed);
    visits.push({
      startMs: startMs - (startMs % MINUTE_MS),
      endMs,
      visit,
      uploadLost: random.chance(LOST_UPLOAD_CHANCE),
      byButton: random.chance(BUTTON_SHARE),
    });
    cursor = endMs + MINUTE_MS;
    const nextSlot = openMs + Math.floor((i + 1) * slotMs);
    if (random.chance(CHATTER_CHANCE) && nextSlot - endMs >= 6 * MINUTE_MS) {
      // A word in the corridor, mid-way to the next visit.
      const atMs = endMs + Math.floor((nextSlot - endMs) / 2);
      const word = recombinedVisit(random, 'consult', random.pick(patients)).lines.slice(0, 1);
      const laid = layLines(bank, random, hearing, word, atMs, new Map(), false);
      lines.push(...laid.placed);
      if (random.chance(CHATTER_KEPT_CHANCE)) keptChatter.push(atMs - (atMs % MINUTE_MS));
      cursor = Math.max(cursor, laid.endMs + MINUTE_MS);
    }
  }

  const offline = new Set<number>();
  if (device.offAtNight) {
    for (let m = dayStartMs; m < localTime(dayStartMs, 7); m += MINUTE_MS) offline.add(m);
    for (let m = localTime(dayStartMs, 20); m < dayEndMs; m += MINUTE_MS) offline.add(m);
  }
  return { dayStartMs, lines, offline, visits, keptChatter };
}

import { MINUTE_MS } from '../../shared/api';
import type { ClipBank } from '../audio/clip-bank';
import type { ServiceDatabase } from '../db/database';
import { readMeta, writeMeta } from '../db/database';
import type { MinuteRow } from '../db/minute-row';
import { hospitalPatients, type HospitalPatient } from '../demo/hospital-people';
import {
  HOSPITAL_DEVICES,
  dayIndexOf,
  minutesOfDay,
  simulateHospitalDay,
  type HospitalDay,
  type HospitalPlan,
} from './hospital';
import { localDayStart, nextLocalDay, type HubMinute } from './simulator';

const HOSPITAL_PLAN_KEY = 'hospital-plan';
/** Device-days kept computed: a timeline asks for a day in four 6-hour windows, and moves on. */
const KEPT_DAYS = 48;

/** A hospital plan as stored, with what building more of its days needs. */
export interface StoredHospitalPlan extends HospitalPlan {
  /** Days [0, targetDays) are to hold their records; later ones are withheld. */
  targetDays: number;
  /** Days [0, builtDays) hold them already (a seed interrupted part-way resumes from here). */
  builtDays: number;
  organizationId: string;
  /** The staff who record, in the order of the dialogue bank's STAFF. */
  staffIds: string[];
}

export const toMinuteRow = (m: HubMinute): MinuteRow => ({
  minute_ms: m.minuteMs,
  speech_ms: m.speechMs,
  transcript: m.transcript,
  diarized: m.diarized,
  clips: JSON.stringify(m.clips),
  audio_ok: Number(m.audioOk),
});

/**
 * The scale seed's hub minutes, computed when asked for rather than stored. A device's day is a
 * pure function of the hospital plan, the device and the date (simulateHospitalDay), so the
 * minutes a timeline, a preview or a conversation reads are the very ones the seed made its
 * conversations and records from. Minutes exist from the plan's first day up to now, also for
 * the days after the seed was built (the hubs keep recording); before the first day, none.
 */
export class GeneratedMinutes {
  private planText: string | undefined;
  private plan: StoredHospitalPlan | null = null;
  private patients: HospitalPatient[] | undefined;
  private readonly days = new Map<string, HospitalDay>();

  constructor(
    private readonly db: ServiceDatabase,
    private readonly clips: ClipBank,
    private readonly now: () => number,
  ) {}

  /** The stored plan, or null when this service holds no scale seed. */
  storedPlan(): StoredHospitalPlan | null {
    const text = readMeta(this.db, HOSPITAL_PLAN_KEY);
    if (text !== this.planText) {
      this.planText = text;
      this.plan = text === undefined ? null : (JSON.parse(text) as StoredHospitalPlan);
      this.days.clear();
    }
    return this.plan;
  }

  savePlan(plan: StoredHospitalPlan): void {
    writeMeta(this.db, HOSPITAL_PLAN_KEY, JSON.stringify(plan));
  }

  /** A device's day as the hospital recorded it (kept for the next few asks). */
  day(plan: HospitalPlan, deviceIndex: number, dayStartMs: number): HospitalDay {
    const key = `${deviceIndex}/${dayStartMs}`;
    let day = this.days.get(key);
    if (day) {
      this.days.delete(key); // most recently used last
    } else {
      this.patients ??= hospitalPatients();
      day = simulateHospitalDay(this.clips, plan, this.patients, deviceIndex, dayStartMs);
      if (this.days.size >= KEPT_DAYS) this.days.delete(this.days.keys().next().value!);
    }
    this.days.set(key, day);
    return day;
  }

  /** Minutes whose start lies in [startMs, endMs) and before now, oldest first. */
  minutes(deviceId: string, startMs: number, endMs: number): MinuteRow[] {
    const plan = this.storedPlan();
    const deviceIndex = HOSPITAL_DEVICES.findIndex((device) => device.id === deviceId);
    if (!plan || deviceIndex < 0) return [];
    const until = Math.min(endMs, this.now() - (this.now() % MINUTE_MS));
    const rows: MinuteRow[] = [];
    for (let day = localDayStart(startMs); day < until; day = nextLocalDay(day)) {
      if (dayIndexOf(plan, day) < 0) continue;
      for (const minute of minutesOfDay(this.day(plan, deviceIndex, day), startMs, until))
        rows.push(toMinuteRow(minute));
    }
    return rows;
  }
}

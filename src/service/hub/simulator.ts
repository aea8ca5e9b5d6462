import { MINUTE_MS } from '../../shared/api';
import type { ClipBank } from '../audio/clip-bank';
import {
  DIALOGUE_SCRIPTS,
  clipId,
  patientOfScript,
  patientsNamedIn,
  type DialogueLine,
  type DialogueScript,
} from '../demo/dialogue';
import { misheard } from '../demo/transcription';
import { seededRandom, type Random } from '../random';

/** One recorded minute of a hub device, as stored in hub_minutes. */
export interface HubMinute {
  minuteMs: number;
  speechMs: number;
  transcript: string;
  diarized: string;
  /** [clipId, offset in the minute in ms] */
  clips: [string, number][];
  audioOk: boolean;
}

/** A consult the simulator placed: the range a vet would select. */
export interface SimulatedConsult {
  startMs: number;
  endMs: number;
  scripts: string[];
  /**
   * The patient it is about: its first script's, named there; the scripts that follow are of the
   * same species with the lines naming their own patients left out, so one consult names one
   * patient (the demo's ground truth for the suggested patient).
   */
  patient: string | undefined;
  /** The device lost this consult's upload: processing it fails. */
  uploadLost: boolean;
}

export interface SimulatedDay {
  minutes: HubMinute[];
  consults: SimulatedConsult[];
  /** Lone minutes of hallway talk between consults (too little speech to keep). */
  chatter: number[];
}

export interface SimulatedDevice {
  id: string;
  /** Switched off at night (no data between 20:00 and 07:00). */
  offAtNight: boolean;
  /** In auto mode: each consult becomes a conversation and a record once it ends (HubSimulator). */
  autoRecords?: boolean;
}

const CONSULT_SCRIPTS = DIALOGUE_SCRIPTS.filter((s) => s.kind === 'consult');

/** A line of dialogue with the pre-rendered clip that speaks it. */
export interface SpokenLine {
  clip: string;
  line: DialogueLine;
}

/** A line placed in time: when it starts, how long it lasts, its diarized speaker's number. */
export interface PlacedLine extends SpokenLine {
  atMs: number;
  durationMs: number;
  /** The line as the recognizer wrote it (transcription slips on names). */
  heard: string;
  speaker: number;
}

/** A script's lines with the bank's clips that speak them. */
export const spokenLinesOf = (script: DialogueScript): SpokenLine[] =>
  script.lines.map((line, index) => ({ clip: clipId(script.id, index), line }));

/** A script without the lines that name a patient: the rest of a visit about another one. */
const namelessLinesOf = (script: DialogueScript): SpokenLine[] =>
  spokenLinesOf(script).filter(({ line }) => patientsNamedIn(line.text).length === 0);

/** The local time `hours:minutes` on the day starting at `dayStartMs`. */
export const localTime = (dayStartMs: number, hours: number, minutes = 0) => {
  const d = new Date(dayStartMs);
  d.setHours(hours, minutes, 0, 0);
  return d.getTime();
};

/** Local midnight of the day containing `ms`, in the process's time zone. */
export function localDayStart(ms: number): number {
  const d = new Date(ms);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** Local midnight of the following day (23, 24 or 25 hours later across DST changes). */
export function nextLocalDay(dayStartMs: number): number {
  const d = new Date(dayStartMs);
  d.setDate(d.getDate() + 1);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
}

/** The local date of a day, e.g. "2026-11-2": what seeds that day's random numbers. */
export const dayKey = (dayStartMs: number) => {
  const d = new Date(dayStartMs);
  return `${d.getFullYear()}-${d.getMonth() + 1}-${d.getDate()}`;
};

/**
 * Lays lines one after another from `startMs` with natural pauses, never letting a clip cross a
 * minute boundary (each minute's audio and VAD stay self-contained).
 */
export function layLines(
  bank: ClipBank,
  random: Random,
  hearing: Random,
  lines: readonly SpokenLine[],
  startMs: number,
  speakers: Map<string, number>,
  examinationPauses: boolean,
): { placed: PlacedLine[]; endMs: number } {
  const placed: PlacedLine[] = [];
  let t = startMs;
  lines.forEach(({ clip, line }, index) => {
    const durationMs = bank.durationMs(clip);
    if ((t % MINUTE_MS) + durationMs > MINUTE_MS)
      t = t - (t % MINUTE_MS) + MINUTE_MS + random.int(150, 900);
    if (!speakers.has(line.speaker)) speakers.set(line.speaker, speakers.size + 1);
    placed.push({
      atMs: t,
      clip,
      durationMs,
      line,
      heard: misheard(line.text, hearing),
      speaker: speakers.get(line.speaker) ?? 1,
    });
    t += durationMs + random.int(500, 3500);
    // The vet examines the patient in silence now and then.
    if (examinationPauses && index > 2 && random.chance(0.12)) t += random.int(60_000, 140_000);
  });
  return { placed, endMs: t };
}

/** Simulates one local day of a device: a pure function of the device id and the date. */
export function simulateDay(
  bank: ClipBank,
  device: SimulatedDevice,
  dayStartMs: number,
): SimulatedDay {
  const random = seededRandom(`${device.id}/${dayKey(dayStartMs)}`);
  // The recognizer's slips draw from their own sequence: the day's timing does not depend on them.
  const hearing = seededRandom(`${device.id}/${dayKey(dayStartMs)}/transcription`);
  const dayEndMs = nextLocalDay(dayStartMs);
  const weekday = new Date(dayStartMs).getDay();
  const lines: PlacedLine[] = [];
  const consults: SimulatedConsult[] = [];
  const chatter: number[] = [];

  if (weekday !== 0) {
    const saturday = weekday === 6;
    const openMs = localTime(dayStartMs, saturday ? 9 : 8, 30);
    const closeMs = localTime(dayStartMs, saturday ? 13 : 18);
    let t = openMs + random.int(0, 20) * MINUTE_MS;
    while (t < closeMs - 15 * MINUTE_MS) {
      const first = random.pick(CONSULT_SCRIPTS);
      const scripts = [first];
      const sameSpecies = CONSULT_SCRIPTS.filter((s) => s !== first && s.species === first.species);
      const wanted = Math.min(random.int(1, 2), sameSpecies.length);
      while (scripts.length <= wanted) {
        const more = random.pick(sameSpecies);
        if (!scripts.includes(more)) scripts.push(more);
      }
      const speakers = new Map<string, number>();
      const startMs = t;
      let cursor = t + random.int(2_000, 20_000);
      for (const script of scripts) {
        const scriptLines = script === first ? spokenLinesOf(script) : namelessLinesOf(script);
        const laid = layLines(bank, random, hearing, scriptLines, cursor, speakers, true);
        lines.push(...laid.placed);
        cursor = laid.endMs + random.int(5_000, 40_000);
      }
      const endMs = Math.ceil(cursor / MINUTE_MS) * MINUTE_MS;
      consults.push({
        startMs,
        endMs,
        scripts: scripts.map((s) => s.id),
        patient: patientOfScript(first),
        uploadLost: false,
      });
      const gapMs = random.int(10, 35) * MINUTE_MS;
      if (random.chance(0.4)) {
        // A word or two in the corridor between consults.
        const atMs = endMs + Math.floor(gapMs / 2);
        const script = random.pick(CONSULT_SCRIPTS);
        const laid = layLines(
          bank,
          random,
          hearing,
          spokenLinesOf(script).slice(0, 1),
          atMs,
          new Map(),
          false,
        );
        lines.push(...laid.placed);
        chatter.push(atMs - (atMs % MINUTE_MS));
      }
      t = endMs + gapMs;
    }
  }

  const offline = new Set<number>();
  if (device.offAtNight) {
    for (let m = dayStartMs; m < localTime(dayStartMs, 7); m += MINUTE_MS) offline.add(m);
    for (let m = localTime(dayStartMs, 20); m < dayEndMs; m += MINUTE_MS) offline.add(m);
  }
  if (random.chance(0.2)) {
    // A short outage: the device lost power or network.
    const outageStart = localTime(dayStartMs, random.int(7, 19), random.int(0, 59));
    const outageMinutes = random.int(15, 50);
    for (let i = 0; i < outageMinutes; i++) offline.add(outageStart + i * MINUTE_MS);
  }

  const minutes = minutesOf(lines, dayStartMs, dayEndMs, offline);
  return { minutes, consults: consults.filter((c) => !offline.has(c.startMs)), chatter };
}

/**
 * The minutes of [dayStartMs, dayEndMs) with the placed lines in them: each minute's speech,
 * text, diarized text and clips. Minutes in `offline` were not recorded and are left out.
 */
export function minutesOf(
  lines: readonly PlacedLine[],
  dayStartMs: number,
  dayEndMs: number,
  offline: ReadonlySet<number> = new Set(),
): HubMinute[] {
  const byMinute = new Map<number, PlacedLine[]>();
  for (const line of lines) {
    const minuteMs = line.atMs - (line.atMs % MINUTE_MS);
    const list = byMinute.get(minuteMs) ?? [];
    list.push(line);
    byMinute.set(minuteMs, list);
  }
  const minutes: HubMinute[] = [];
  for (let m = dayStartMs; m < dayEndMs; m += MINUTE_MS) {
    if (offline.has(m)) continue;
    const placed = byMinute.get(m) ?? [];
    minutes.push({
      minuteMs: m,
      speechMs: placed.reduce((sum, p) => sum + p.durationMs, 0),
      transcript: placed.map((p) => p.heard).join(' '),
      diarized: placed.map((p) => `Speaker ${p.speaker}: ${p.heard}`).join('\n'),
      clips: placed.map((p) => [p.clip, p.atMs - m]),
      audioOk: true,
    });
  }
  return minutes;
}

/** Marks a consult's minutes as lost in upload, so processing a range over it fails. */
export function loseUpload(day: SimulatedDay, consult: SimulatedConsult): void {
  consult.uploadLost = true;
  for (const minute of day.minutes) {
    if (minute.minuteMs >= consult.startMs && minute.minuteMs < consult.endMs)
      minute.audioOk = false;
  }
}

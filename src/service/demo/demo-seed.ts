import { randomUUID } from 'node:crypto';
import { MINUTE_MS, SOAP_NOTE_TYPE, type RecordType } from '../../shared/api';
import type { ClinicService } from '../app';
import type { ClipBank } from '../audio/clip-bank';
import { recipeByteLength, type AudioRecipe } from '../audio/recipe';
import type { ConversationOrigin, ConversationRow } from '../db/hub-store';
import type { LabelInput, NoteInput } from '../db/label-store';
import { HUB_SAMPLE_RATE } from '../hub/conversations';
import { AUTO_RECORD_DELAY_MS, HubSimulator } from '../hub/live-simulator';
import {
  localDayStart,
  loseUpload,
  nextLocalDay,
  simulateDay,
  spokenLinesOf,
  type SimulatedDay,
  type SpokenLine,
} from '../hub/simulator';
import { seededRandom, type Random } from '../random';
import {
  DIALOGUE_SCRIPTS,
  PATIENT_NAMES,
  patientOfScript,
  type DialogueScript,
  type ScriptKind,
} from './dialogue';
import {
  DEMO_DEVICES,
  SECONDARY_DEVICE,
  seedIdentity,
  type DemoCredentials,
} from './identity-seed';

const DAY_MS = 24 * 60 * 60 * 1000;
const HUB_HISTORY_DAYS = 7;
const LABEL_HISTORY_DAYS = 28;
/** A reviewed device's latest consults are still in hand: ACTIVE, COMPLETED, PROCESSING. */
const IN_HAND = 3;

/**
 * The device's consults that had ended (by the hubs' hand-over delay) by `now`, oldest first; the
 * live simulator hands over those that end later.
 */
const pastConsults = (days: SimulatedDay[], now: number) =>
  days
    .flatMap((day) => day.consults.map((consult) => ({ day, consult })))
    .filter(({ consult }) => consult.endMs + AUTO_RECORD_DELAY_MS <= now);

const scriptsOf = (kind: ScriptKind) => DIALOGUE_SCRIPTS.filter((s) => s.kind === kind);

export const transcriptOf = (script: DialogueScript) =>
  script.lines.map((l) => `${l.speaker}: ${l.text}`).join('\n');

/** Lines spoken one after another with short pauses, as a WAV recipe. */
export function recipeOfLines(
  clips: ClipBank,
  lines: readonly SpokenLine[],
  random: Random,
): { recipe: AudioRecipe; durationMs: number } {
  const placed: [string, number][] = [];
  let at = Math.round(0.5 * HUB_SAMPLE_RATE);
  lines.forEach(({ clip }) => {
    placed.push([clip, at]);
    at += clips.sampleCount(clip) + random.int(300, 1500) * (HUB_SAMPLE_RATE / 1000);
  });
  return {
    recipe: { sampleRate: HUB_SAMPLE_RATE, samples: at, clips: placed },
    durationMs: Math.ceil((at * 1000) / HUB_SAMPLE_RATE),
  };
}

/** A plausible SOAP note for a visit. */
function soapOf(script: DialogueScript, patient: string): string {
  return [
    `S: ${patient} (${script.species}) presented for ${script.reason.toLowerCase()}. History as discussed with the owner.`,
    'O: Bright, alert and responsive. Vital signs within normal limits unless noted in the transcript.',
    `A: ${script.reason}.`,
    'P: Treatment and follow-up as agreed with the owner; recheck if signs persist.',
  ].join('\n');
}

/** An earlier transcript version: what the first pass misheard, before regeneration. */
const firstDraftOf = (transcript: string) =>
  transcript
    .split('\n')
    .map((line, i, lines) =>
      i % 4 === 2 || i === lines.length - 1
        ? line.replace(/\b(\w+)([.?!])$/, '[inaudible]$2')
        : line,
    )
    .join('\n');

export interface LabelPlan {
  type: RecordType;
  kind: ScriptKind | null;
  friendlyName: string;
  deviceSerial: string;
}

const NON_HUB_LABELS: { weight: number; plan: LabelPlan }[] = [
  {
    weight: 10,
    plan: {
      type: 'ClinicConversation',
      kind: 'consult',
      friendlyName: 'Exam Room iPad',
      deviceSerial: 'IPAD-44F1',
    },
  },
  {
    weight: 4,
    plan: {
      type: 'DictationAudio',
      kind: 'dictation',
      friendlyName: "Dr Marsh's iPhone",
      deviceSerial: 'IPH-2291',
    },
  },
  {
    weight: 3,
    plan: {
      type: 'PhoneCallAudio',
      kind: 'phone',
      friendlyName: 'Reception line',
      deviceSerial: 'PBX-0001',
    },
  },
  {
    weight: 1,
    plan: {
      type: 'ButtonRecording',
      kind: 'button',
      friendlyName: 'Prep Room Button',
      deviceSerial: 'BTN-0711',
    },
  },
  {
    weight: 1,
    plan: {
      type: 'AudioButtonRecording',
      kind: 'button',
      friendlyName: 'Kennels Button',
      deviceSerial: 'BTN-0712',
    },
  },
  {
    weight: 2,
    plan: { type: 'AggregateLabel', kind: null, friendlyName: 'Medical record', deviceSerial: '' },
  },
];

/** A record made by a phone, an iPad or a button, or a medical record, in the demo's proportions. */
export function pickPlan(random: Random): LabelPlan {
  const total = NON_HUB_LABELS.reduce((sum, p) => sum + p.weight, 0);
  let roll = random.next() * total;
  for (const entry of NON_HUB_LABELS) {
    roll -= entry.weight;
    if (roll < 0) return entry.plan;
  }
  return NON_HUB_LABELS[0]!.plan;
}

/**
 * A record's notes in the demo's proportions: for a recording, its transcript (a
 * NotesTranscript one time in eight), a quarter of them after a first draft; a SOAP note on half
 * the consults and dictations and on every medical record. `pending`: the final transcript is
 * still being written ("{}").
 */
export function notesOfRecord(
  random: Random,
  plan: LabelPlan,
  words: { transcript: string; soap: () => string; doneMs: number; pending: () => boolean },
): NoteInput[] {
  const { transcript, doneMs } = words;
  const notes: NoteInput[] = [];
  if (plan.kind) {
    const type = random.chance(0.12) ? 'NotesTranscript' : 'Transcript';
    if (random.chance(0.25))
      notes.push({ type, content: firstDraftOf(transcript), createdMs: doneMs, timeMs: doneMs });
    const finalMs = doneMs + random.int(2, 30) * MINUTE_MS;
    notes.push({
      type,
      content: words.pending() ? '{}' : transcript,
      createdMs: finalMs,
      timeMs: finalMs,
    });
  }
  if (plan.kind === 'consult' || plan.kind === 'dictation' || plan.type === 'AggregateLabel') {
    if (plan.type === 'AggregateLabel' || random.chance(0.5)) {
      notes.push({
        type: SOAP_NOTE_TYPE,
        content: words.soap(),
        createdMs: doneMs + MINUTE_MS,
        timeMs: doneMs + MINUTE_MS,
      });
    }
  }
  return notes;
}

interface SeedContext {
  service: ClinicService;
  random: Random;
  organizationId: string;
  staffIds: string[];
  patients: Map<string, string>;
  now: number;
}

function labelFor(
  ctx: SeedContext,
  plan: LabelPlan,
  fromMs: number,
  processing: boolean,
): LabelInput {
  const { service, random } = ctx;
  const script = random.pick(plan.kind ? scriptsOf(plan.kind) : scriptsOf('consult'));
  const patientName = patientOfScript(script);
  const patientId =
    plan.kind === 'button' && random.chance(0.5)
      ? null
      : ((patientName && ctx.patients.get(patientName)) ?? null);
  const transcript = transcriptOf(script);
  let audio: LabelInput['audio'];
  let toMs = fromMs + random.int(5, 20) * MINUTE_MS;
  if (plan.type === 'PhoneCallAudio') {
    const call = service.clips.manifest.calls[script.id];
    const file = service.clips.callFile(script.id);
    if (call && file) {
      toMs = fromMs + call.durationMs;
      audio = {
        content_type: 'audio/mp4',
        byte_length: service.clips.fileSize(file),
        source_kind: 'file',
        source: file,
      };
    }
  } else if (plan.kind) {
    const { recipe, durationMs } = recipeOfLines(service.clips, spokenLinesOf(script), random);
    toMs = fromMs + durationMs;
    audio = {
      content_type: 'audio/wav',
      byte_length: recipeByteLength(recipe),
      source_kind: 'recipe',
      source: JSON.stringify(recipe),
    };
  }
  const doneMs = toMs + random.int(1, 10) * MINUTE_MS;
  const notes = notesOfRecord(random, plan, {
    transcript,
    soap: () => soapOf(script, patientName ?? 'The patient'),
    doneMs,
    pending: () => processing,
  });
  return {
    organizationId: ctx.organizationId,
    type: plan.type,
    fromMs,
    toMs,
    patientId,
    userId: random.pick(ctx.staffIds),
    friendlyName: plan.friendlyName,
    deviceSerial: plan.deviceSerial,
    notes,
    audio: random.chance(0.06) && plan.type !== 'PhoneCallAudio' ? undefined : audio,
  };
}

/** Records made by phones, iPads and buttons over the last four weeks, in clinic hours. */
function seedRecords(ctx: SeedContext): void {
  const { service, random, now } = ctx;
  let processingLeft = 3;
  for (
    let day = localDayStart(now - LABEL_HISTORY_DAYS * DAY_MS);
    day < now;
    day = nextLocalDay(day)
  ) {
    if (new Date(day).getDay() === 0) continue;
    const count = random.int(5, 9);
    for (let i = 0; i < count; i++) {
      const fromMs =
        day + random.int(8 * 60 + 30, 17 * 60 + 30) * MINUTE_MS + random.int(0, 59_000);
      if (fromMs > now - 30 * MINUTE_MS) continue;
      const plan = pickPlan(random);
      // The latest few transcripts are still being generated (content "{}").
      const processing = plan.kind !== null && fromMs > now - 2 * DAY_MS && processingLeft-- > 0;
      service.labels.create(labelFor(ctx, plan, fromMs, processing));
    }
  }
}

/** A second patient of a name the dialogue uses, of another species: two clinic patients share it. */
const DEMO_NAMESAKE = { name: 'Teddy', species: 'cat' } as const;

/**
 * The namesake's records: two combined medical records with a SOAP note that names it and its
 * species, so the clinic knows two patients called Teddy (a dog and a cat) and a transcript that
 * names Teddy must be told apart by what else it says.
 */
function seedNamesake(ctx: SeedContext): void {
  const { service, now } = ctx;
  const script = DIALOGUE_SCRIPTS.find((s) => s.id === 'consult-dental')!;
  const patientId = service.labels.createPatient(
    ctx.organizationId,
    DEMO_NAMESAKE.name,
    DEMO_NAMESAKE.species,
  );
  for (const daysAgo of [9, 3]) {
    const fromMs = localDayStart(now - daysAgo * DAY_MS) + (10 * 60 + 15) * MINUTE_MS;
    const writtenMs = fromMs + 40 * MINUTE_MS;
    service.labels.create({
      organizationId: ctx.organizationId,
      type: 'AggregateLabel',
      fromMs,
      toMs: fromMs + 20 * MINUTE_MS,
      patientId,
      userId: ctx.random.pick(ctx.staffIds),
      friendlyName: 'Medical record',
      deviceSerial: '',
      notes: [
        {
          type: SOAP_NOTE_TYPE,
          content: soapOf({ ...script, species: DEMO_NAMESAKE.species }, DEMO_NAMESAKE.name),
          createdMs: writtenMs,
          timeMs: writtenMs,
        },
      ],
    });
  }
}

interface DeviceDays {
  deviceId: string;
  organizationId: string;
  days: SimulatedDay[];
}

/** A week of per-minute hub data ending now, and conversations drawn from it in every status. */
function seedHub(ctx: SeedContext, devices: DeviceDays[]): void {
  const { service, random, now } = ctx;
  const conversation = (
    deviceId: string,
    organizationId: string,
    startMs: number,
    endMs: number,
    status: ConversationRow['status'],
    origin: ConversationOrigin,
    extra: Partial<ConversationRow> = {},
  ) => {
    const minutes = service.hub.minutes(deviceId, startMs, endMs);
    const row: ConversationRow = {
      id: randomUUID(),
      organization_id: organizationId,
      device_id: deviceId,
      start_ms: startMs,
      end_ms: endMs,
      status,
      speech_minute_count: minutes.filter((m) => m.speech_ms > 0).length,
      origin,
      not_importable_reason: '',
      transcript_text: '',
      label_id: null,
      created_ms: endMs + random.int(1, 5) * MINUTE_MS,
      completed_ms: null,
      next_step_ms: null,
      ...extra,
    };
    service.hub.insertConversation(row);
    return row;
  };

  for (const { deviceId, organizationId, days } of devices) {
    if (deviceId === DEMO_DEVICES[2].id) continue; // surgery prep: recorded, never reviewed
    const past = pastConsults(days, now).map(({ consult }) => consult);
    const inHand = past.slice(-IN_HAND);
    const inHandStatuses = [
      { status: 'PROCESSING', extra: { completed_ms: now, next_step_ms: now + 45 * MINUTE_MS } },
      { status: 'COMPLETED', extra: { completed_ms: now, next_step_ms: now + 20 * MINUTE_MS } },
      { status: 'ACTIVE', extra: {} },
    ] as const;
    inHand.forEach((consult, i) => {
      const { status, extra } = inHandStatuses[i + IN_HAND - inHand.length]!;
      conversation(deviceId, organizationId, consult.startMs, consult.endMs, status, 'auto', extra);
    });
    const historyEndMs = inHand[0]?.startMs ?? now;
    for (const consult of past.slice(0, -IN_HAND)) {
      if (!consult.uploadLost && !random.chance(0.4)) continue;
      const origin = random.chance(0.2) ? 'button' : 'auto';
      const row = conversation(
        deviceId,
        organizationId,
        consult.startMs,
        consult.endMs,
        'PROCESSING',
        origin,
      );
      service.conversations.finishProcessing(row, row.created_ms + 3 * MINUTE_MS);
    }
    for (const chatterMs of days.flatMap((day) => day.chatter)) {
      if (chatterMs + 3 * MINUTE_MS > historyEndMs || !random.chance(0.12)) continue;
      const row = conversation(
        deviceId,
        organizationId,
        chatterMs - 2 * MINUTE_MS,
        chatterMs + 3 * MINUTE_MS,
        'PROCESSING',
        'auto',
      );
      service.conversations.finishProcessing(row, row.created_ms + MINUTE_MS);
    }
  }
}

/**
 * Simulates and stores a week of minutes. With `loseAnUpload`, the latest consult before those in
 * hand lost its upload, so the demo has a FAILED conversation whatever the day or hour.
 */
function simulateHistory(
  service: ClinicService,
  now: number,
  deviceId: string,
  offAtNight: boolean,
  loseAnUpload: boolean,
): SimulatedDay[] {
  const days: SimulatedDay[] = [];
  const endMs = now - (now % MINUTE_MS);
  for (
    let day = localDayStart(now - HUB_HISTORY_DAYS * DAY_MS);
    day < endMs;
    day = nextLocalDay(day)
  ) {
    days.push(simulateDay(service.clips, { id: deviceId, offAtNight }, day));
  }
  if (loseAnUpload) {
    const lost = pastConsults(days, now).slice(0, -IN_HAND).at(-1);
    if (lost) loseUpload(lost.day, lost.consult);
  }
  for (const day of days) {
    day.minutes = day.minutes.filter((m) => m.minuteMs < endMs);
    service.hub.insertMinutes(deviceId, day.minutes);
  }
  return days;
}

/** Builds the demo clinic. Deterministic for a given `now` (bar random keys and ids). */
export function seedDemo(service: ClinicService, now: number): DemoCredentials {
  return service.db.transaction(() => {
    const { credentials, staffIds } = seedIdentity(service, now);
    const random = seededRandom('earmark-demo');
    const patients = new Map<string, string>();
    for (const patient of PATIENT_NAMES) {
      patients.set(
        patient.name,
        service.labels.createPatient(
          credentials.primary.organizationId,
          patient.name,
          patient.species,
        ),
      );
    }
    const ctx: SeedContext = {
      service,
      random,
      organizationId: credentials.primary.organizationId,
      staffIds,
      patients,
      now,
    };
    seedRecords(ctx);
    seedNamesake(ctx);

    const devices: DeviceDays[] = [
      ...DEMO_DEVICES.map((d, i) => ({
        deviceId: d.id,
        organizationId: credentials.primary.organizationId,
        days: simulateHistory(service, now, d.id, d.offAtNight, i === 1),
      })),
      {
        deviceId: SECONDARY_DEVICE.id,
        organizationId: credentials.secondary.organizationId,
        days: simulateHistory(service, now, SECONDARY_DEVICE.id, false, false),
      },
    ];
    seedHub(ctx, devices);
    // The reviewed rooms' hubs are in auto mode: the consults that end from now on become
    // records as the day goes on (those before are the history above).
    HubSimulator.register(
      service.db,
      [...DEMO_DEVICES, SECONDARY_DEVICE].map((d) => ({
        id: d.id,
        offAtNight: d.offAtNight,
        autoRecords: d.id !== DEMO_DEVICES[2].id,
      })),
      now,
    );
    return credentials;
  })();
}

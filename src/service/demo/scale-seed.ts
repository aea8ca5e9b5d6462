import { MINUTE_MS } from '../../shared/api';
import type { ClinicService } from '../app';
import { recipeByteLength, type AudioRecipe } from '../audio/recipe';
import type { ConversationRow } from '../db/hub-store';
import type { LabelInput } from '../db/label-store';
import { processingOutcome } from '../hub/conversations';
import { GeneratedMinutes, toMinuteRow, type StoredHospitalPlan } from '../hub/generated-minutes';
import {
  HOSPITAL_DEVICES,
  dayStartOf,
  hospitalPlan,
  minutesOfDay,
  recordsOnDay,
  simulateHospitalDay,
  type HospitalPlan,
} from '../hub/hospital';
import { dayKey } from '../hub/simulator';
import { seededRandom, type Random } from '../random';
import { notesOfRecord, pickPlan, recipeOfLines } from './demo-seed';
import { recombinedVisit, soapOfVisit, transcriptOfVisit } from './hospital-dialogue';
import { hospitalPatients, IdSource, type HospitalPatient } from './hospital-people';
import { seedIdentity, type DemoCredentials } from './identity-seed';

/**
 * `--seed scale:N`: a ten-room hospital's three years (src/service/hub/hospital.ts) holding
 * exactly N records — hub records made from the hubs' visits, with their conversations, and
 * records of phones, iPads and buttons, in the demo clinic's proportions — for benchmarks.
 * Deterministic: the same N on the same day gives the same records, notes, conversations,
 * patients and minutes, ids included (each day draws from its own random sequence, seeded by N
 * and the date). Only the identity (organizations, users, keys) is random, as in the demo:
 * keys are secrets. Rows are written a day at a time in transactions of about 10,000 rows, so
 * memory stays bounded whatever N.
 */

/** Rows (records, notes, conversations) per transaction, at least. */
const ROWS_PER_TRANSACTION = 10_000;
/** The newest days' records carry audio (a WAV recipe); older ones none (it would be ~1 KB each). */
const DAYS_WITH_AUDIO = 7;
/** On the history's last day some transcripts are still being written ("{}"): this share. */
const PENDING_TRANSCRIPT_CHANCE = 0.02;
/** Hub records the staff have assigned a patient to (the hub cannot know whom it heard). */
const HUB_ASSIGNED_CHANCE = 0.6;

export interface ScaleSeedOptions {
  /**
   * The history's last days left without records, to be added later one at a time with
   * appendWithheldDay (a benchmark's "a day's new records"). The hubs' minutes of those days
   * exist either way.
   */
  withheldDays?: number;
}

type SeedDeps = Pick<ClinicService, 'db' | 'labels' | 'hub' | 'clips'>;

interface DayContext {
  deps: SeedDeps;
  plan: StoredHospitalPlan;
  patients: readonly HospitalPatient[];
}

/** A day's own random numbers and ids: the day is the same whenever it is built. */
interface DayDraw {
  random: Random;
  ids: IdSource;
}

const wavAudio = (recipe: AudioRecipe): NonNullable<LabelInput['audio']> => ({
  content_type: 'audio/wav',
  byte_length: recipeByteLength(recipe),
  source_kind: 'recipe',
  source: JSON.stringify(recipe),
});

/** A day's hub visits: conversations, and for each one processed, its record. */
function seedHubVisits(ctx: DayContext, index: number, draw: DayDraw, withAudio: boolean) {
  const { deps, plan, patients } = ctx;
  const { random, ids } = draw;
  let records = 0;
  let rows = 0;
  const dayStartMs = dayStartOf(plan, index);
  HOSPITAL_DEVICES.forEach((device, deviceIndex) => {
    const day = simulateHospitalDay(deps.clips, plan, patients, deviceIndex, dayStartMs);
    const minutesIn = (startMs: number, endMs: number) =>
      minutesOfDay(day, startMs, endMs).map(toMinuteRow);
    const conversation = (
      startMs: number,
      endMs: number,
      byButton: boolean,
      patientId: string | null,
    ) => {
      const minutes = minutesIn(startMs, endMs);
      const createdMs = endMs + random.int(1, 5) * MINUTE_MS;
      const row: ConversationRow = {
        id: ids.uuid(),
        organization_id: plan.organizationId,
        device_id: device.id,
        start_ms: startMs,
        end_ms: endMs,
        status: 'UPLOADED',
        speech_minute_count: minutes.filter((m) => m.speech_ms > 0).length,
        origin: byButton ? 'button' : 'auto',
        not_importable_reason: '',
        transcript_text: '',
        label_id: null,
        created_ms: createdMs,
        completed_ms: null,
        next_step_ms: null,
      };
      const outcome = processingOutcome(minutes, startMs, endMs);
      const doneMs = createdMs + random.int(2, 6) * MINUTE_MS;
      if (outcome.status !== 'UPLOADED') {
        row.status = outcome.status;
        row.not_importable_reason = outcome.reason;
      } else {
        row.label_id = deps.labels.create({
          id: ids.timeOrdered(doneMs),
          organizationId: plan.organizationId,
          type: byButton ? 'HubBatch' : 'HubMic',
          fromMs: startMs,
          toMs: endMs,
          patientId,
          friendlyName: device.displayName,
          deviceSerial: device.serial,
          notes: [
            { type: 'Transcript', content: outcome.transcript, createdMs: doneMs, timeMs: doneMs },
          ],
          audio: withAudio ? wavAudio(outcome.recipe) : undefined,
        });
        row.transcript_text = outcome.transcript;
        records++;
        rows += 2;
      }
      deps.hub.insertConversation(row);
      rows++;
    };
    for (const visit of day.visits) {
      const assigned = random.chance(HUB_ASSIGNED_CHANCE);
      conversation(
        visit.startMs,
        visit.endMs,
        visit.byButton,
        assigned ? visit.visit.patient.id : null,
      );
    }
    for (const chatterMs of day.keptChatter)
      conversation(chatterMs - 2 * MINUTE_MS, chatterMs + 3 * MINUTE_MS, false, null);
  });
  return { records, rows };
}

/** One record of a phone, an iPad or a button, or a medical record: the demo's labelFor, varied. */
function otherRecord(
  ctx: DayContext,
  index: number,
  { random, ids }: DayDraw,
  withAudio: boolean,
): LabelInput {
  const { plan, patients, deps } = ctx;
  const kinds = pickPlan(random);
  const patient = random.pick(patients);
  const visit = recombinedVisit(random, kinds.kind ?? 'consult', patient);
  const dayStartMs = dayStartOf(plan, index);
  const fromMs =
    dayStartMs + random.int(7 * 60, 21 * 60 - 1) * MINUTE_MS + random.int(0, 59) * 1000;
  const spoken = recipeOfLines(deps.clips, visit.lines, random);
  const toMs = kinds.kind ? fromMs + spoken.durationMs : fromMs + random.int(5, 20) * MINUTE_MS;
  const doneMs = toMs + random.int(1, 10) * MINUTE_MS;
  const notes = notesOfRecord(random, kinds, {
    transcript: transcriptOfVisit(visit),
    soap: () => soapOfVisit(visit),
    doneMs,
    // On the history's last day some transcripts are still being written.
    pending: () => index === plan.days - 1 && random.chance(PENDING_TRANSCRIPT_CHANCE),
  });
  return {
    id: ids.timeOrdered(doneMs),
    organizationId: plan.organizationId,
    type: kinds.type,
    fromMs,
    toMs,
    patientId: kinds.kind === 'button' && random.chance(0.5) ? null : patient.id,
    userId: random.pick(plan.staffIds),
    friendlyName: kinds.friendlyName,
    deviceSerial: kinds.deviceSerial,
    notes,
    audio: withAudio && kinds.kind ? wavAudio(spoken.recipe) : undefined,
  };
}

/** Day `index` of the plan, whole: a pure function of the plan and the date. Returns its rows. */
function seedDay(ctx: DayContext, index: number): number {
  const { plan, deps } = ctx;
  const name = `earmark-scale-${plan.records}/records/${dayKey(dayStartOf(plan, index))}`;
  const draw: DayDraw = { random: seededRandom(name), ids: new IdSource(name) };
  const withAudio = index >= plan.days - DAYS_WITH_AUDIO;
  const hub = seedHubVisits(ctx, index, draw, withAudio);
  let rows = hub.rows;
  // The rest of the day's records, whatever the hubs made, so the history holds exactly N.
  for (let i = hub.records; i < recordsOnDay(plan, index); i++) {
    const label = otherRecord(ctx, index, draw, withAudio);
    deps.labels.create(label);
    rows += 1 + (label.notes?.length ?? 0);
  }
  return rows;
}

const generatedOf = (deps: SeedDeps) =>
  deps.hub.generated ?? new GeneratedMinutes(deps.db, deps.clips, Date.now);

/**
 * The scale seed's first step, in one transaction: organizations, staff and keys, the ten hub
 * devices, the patients and the plan. The days follow with buildScaleSeed.
 */
export function startScaleSeed(
  service: ClinicService,
  count: number,
  now: number,
  options: ScaleSeedOptions = {},
): DemoCredentials {
  const plan: HospitalPlan = hospitalPlan(count, now);
  return service.db.transaction(() => {
    const { credentials, staffIds } = seedIdentity(service, now, HOSPITAL_DEVICES);
    const organizationId = credentials.primary.organizationId;
    for (const patient of hospitalPatients())
      service.labels.createPatient(organizationId, patient.name, patient.species, patient.id);
    generatedOf(service).savePlan({
      ...plan,
      targetDays: plan.days - Math.min(plan.days, options.withheldDays ?? 0),
      builtDays: 0,
      organizationId,
      staffIds,
    });
    return credentials;
  })();
}

/**
 * Builds the days of the stored plan not built yet, in transactions of at least
 * ROWS_PER_TRANSACTION rows, each recording how far the seed got: a seed stopped part-way
 * resumes where it stopped (the sandbox calls this at every start; with nothing left, it does
 * nothing). Returns the days it built.
 */
export function buildScaleSeed(deps: SeedDeps): number {
  const generated = generatedOf(deps);
  const plan = generated.storedPlan();
  if (!plan) return 0;
  const ctx: DayContext = { deps, plan, patients: hospitalPatients() };
  let index = plan.builtDays;
  while (index < plan.targetDays) {
    deps.db.transaction(() => {
      let rows = 0;
      while (index < plan.targetDays && rows < ROWS_PER_TRANSACTION) rows += seedDay(ctx, index++);
      generated.savePlan({ ...plan, builtDays: index });
    })();
  }
  return index - plan.builtDays;
}

/** The whole scale seed at once (tests and tools; the sandbox runs its two steps). */
export function seedScale(
  service: ClinicService,
  count: number,
  now: number,
  options: ScaleSeedOptions = {},
): DemoCredentials {
  const credentials = startScaleSeed(service, count, now, options);
  buildScaleSeed(service);
  return credentials;
}

/**
 * Builds the first withheld day of a built scale seed (see ScaleSeedOptions), exactly as the
 * seed would have built it; returns how many records it added. Only the stores are used, so it
 * may run beside a running service on the same database (a benchmark's "a day's new records").
 */
export function appendWithheldDay(deps: SeedDeps): number {
  const generated = generatedOf(deps);
  const plan = generated.storedPlan();
  if (!plan) throw new Error('This service holds no scale seed.');
  if (plan.builtDays < plan.targetDays) throw new Error('The scale seed is not built yet.');
  if (plan.targetDays >= plan.days) throw new Error('The scale seed has no withheld day left.');
  const index = plan.builtDays;
  deps.db.transaction(() => {
    seedDay({ deps, plan, patients: hospitalPatients() }, index);
    generated.savePlan({ ...plan, targetDays: index + 1, builtDays: index + 1 });
  })();
  return recordsOnDay(plan, index);
}

import { randomUUID } from 'node:crypto';
import {
  CONVERSATION_MAX_RANGE_MS,
  MINUTE_MS,
  type Conversation,
  type CreateConversationResponse,
  type Preview,
  type TimelineMinute,
} from '../../shared/api';
import type { AudioRecipe } from '../audio/recipe';
import { recipeByteLength } from '../audio/recipe';
import type { ServiceDatabase } from '../db/database';
import type { ConversationOrigin, ConversationRow, DeviceRow, HubStore } from '../db/hub-store';
import type { MinuteRow } from '../db/minute-row';
import type { LabelStore } from '../db/label-store';
import type { EventLog } from '../events/event-log';

/** Below this many speech minutes a conversation is FILTERED (excluded), not turned into a record. */
export const MIN_SPEECH_MINUTES = 2;
/** The audio sample rate of hub recordings (the demo speech's rate). */
export const HUB_SAMPLE_RATE = 8000;
/** setTimeout cannot wait longer; a later step is simply re-armed when this one fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface HubDeps {
  db: ServiceDatabase;
  hub: HubStore;
  labels: LabelStore;
  events: EventLog;
  now: () => number;
  /** How long complete takes to reach a terminal state. */
  processingMs: number;
}

/**
 * A range in words for messages people read: "10:51–11:08 UTC on 2026-11-23" (the service knows
 * no clinic's time zone, so it names its own), with both dates when it spans midnight.
 */
export function describeRange(startMs: number, endMs: number): string {
  const [startDay, startTime] = utcParts(startMs);
  const [endDay, endTime] = utcParts(endMs);
  return startDay === endDay
    ? `${startTime}–${endTime} UTC on ${startDay}`
    : `${startTime} UTC on ${startDay} to ${endTime} UTC on ${endDay}`;
}

/** [YYYY-MM-DD, HH:MM] in UTC. */
function utcParts(ms: number): [string, string] {
  const iso = new Date(ms).toISOString();
  return [iso.slice(0, 10), iso.slice(11, 16)];
}

/**
 * The conversation with the reference service's extensions (its range and, once UPLOADED, its
 * label), unless the service was started to send exactly the seed's fields.
 */
export const conversationView = (row: ConversationRow, withRanges: boolean): Conversation =>
  withRanges
    ? { ...toConversation(row), startMs: row.start_ms, endMs: row.end_ms, labelId: row.label_id }
    : toConversation(row);

/** The seed's conversation view of a stored row (§2.5); transcriptState is ours (see the contract). */
function toConversation(row: ConversationRow): Conversation {
  const base = {
    conversationId: row.id,
    deviceId: row.device_id,
    status: row.status,
    speechMinuteCount: row.speech_minute_count,
  };
  switch (row.status) {
    case 'ACTIVE':
      return {
        ...base,
        transcriptState: 'PENDING',
        isImportable: false,
        notImportableReason: 'The conversation is still active; complete it to process it.',
        transcriptText: '',
      };
    case 'COMPLETED':
    case 'PROCESSING':
      return {
        ...base,
        transcriptState: 'PROCESSING',
        isImportable: false,
        notImportableReason: 'The conversation is being processed.',
        transcriptText: '',
      };
    case 'UPLOADED':
      return {
        ...base,
        transcriptState: 'READY',
        isImportable: true,
        notImportableReason: '',
        transcriptText: row.transcript_text,
      };
    case 'FILTERED':
      return {
        ...base,
        transcriptState: 'NONE',
        isImportable: false,
        notImportableReason: row.not_importable_reason,
        transcriptText: '',
      };
    case 'FAILED':
      return {
        ...base,
        transcriptState: 'FAILED',
        isImportable: false,
        notImportableReason: row.not_importable_reason,
        transcriptText: '',
      };
  }
}

export const toTimelineMinute = (row: MinuteRow): TimelineMinute => ({
  minuteStartMs: row.minute_ms,
  vadIsSilent: row.speech_ms === 0,
  vadSpeechDurationMs: row.speech_ms,
  transcriptText: row.transcript,
  diarizedTranscriptText: row.diarized,
});

export function previewOf(minutes: readonly MinuteRow[]): Preview {
  const speechMinutes = minutes.filter((m) => m.speech_ms > 0).length;
  return {
    totalMinutes: minutes.length,
    speechMinutes,
    silentMinutes: minutes.length - speechMinutes,
  };
}

/** The audio of [startMs, endMs) of a device: its recorded clips in place, silence elsewhere. */
function recipeOfRange(minutes: readonly MinuteRow[], startMs: number, endMs: number): AudioRecipe {
  const samplesPerMs = HUB_SAMPLE_RATE / 1000;
  const clips: [string, number][] = [];
  for (const minute of minutes) {
    for (const [clip, offsetMs] of JSON.parse(minute.clips) as [string, number][]) {
      clips.push([clip, Math.round((minute.minute_ms - startMs + offsetMs) * samplesPerMs)]);
    }
  }
  return {
    sampleRate: HUB_SAMPLE_RATE,
    samples: Math.round((endMs - startMs) * samplesPerMs),
    clips,
  };
}

type ProcessingOutcome =
  | { status: 'UPLOADED'; transcript: string; recipe: AudioRecipe }
  | { status: 'FILTERED' | 'FAILED'; reason: string };

/** What processing makes of a conversation's minutes. */
export function processingOutcome(
  minutes: readonly MinuteRow[],
  startMs: number,
  endMs: number,
): ProcessingOutcome {
  const lost = minutes.filter((m) => m.audio_ok === 0);
  if (lost.length > 0) {
    return {
      status: 'FAILED',
      reason: `Audio of ${lost.length} minute${lost.length === 1 ? '' : 's'} (${describeRange(lost[0]!.minute_ms, lost.at(-1)!.minute_ms + MINUTE_MS)}) did not finish uploading from the device.`,
    };
  }
  const speechMinutes = minutes.filter((m) => m.speech_ms > 0).length;
  if (speechMinutes < MIN_SPEECH_MINUTES) {
    return {
      status: 'FILTERED',
      reason: `Excluded: too little speech (${speechMinutes} speech minute${speechMinutes === 1 ? '' : 's'}; at least ${MIN_SPEECH_MINUTES} are needed).`,
    };
  }
  const transcript = minutes
    .map((m) => m.diarized)
    .filter((text) => text !== '')
    .join('\n');
  return { status: 'UPLOADED', transcript, recipe: recipeOfRange(minutes, startMs, endMs) };
}

/**
 * Hub conversations: create, complete and the processing state machine
 *   ACTIVE --complete--> COMPLETED --(half the processing time)--> PROCESSING --> UPLOADED | FILTERED | FAILED
 * Steps are persisted (next_step_ms), so a restarted service finishes what it had started.
 */
export class ConversationService {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly deps: HubDeps) {}

  /** Checks a create request; returns the refusal message, if any. */
  private refusal(
    device: DeviceRow,
    startMs: number,
    endMs: number,
    minutes: MinuteRow[],
  ): string | undefined {
    if (endMs <= startMs) return 'endMs must be later than startMs.';
    const minutesLong = Math.ceil((endMs - startMs) / MINUTE_MS);
    if (endMs - startMs > CONVERSATION_MAX_RANGE_MS) {
      return `The range is ${minutesLong} minutes long; a conversation can span at most 90 minutes.`;
    }
    if (minutes.length === 0) {
      return `No audio was recorded on ${device.display_name} in ${describeRange(startMs, endMs)}.`;
    }
    const overlap = this.deps.hub.overlapping(device.id, startMs, endMs);
    if (overlap) {
      return `The range overlaps another conversation on this device, ${describeRange(overlap.start_ms, overlap.end_ms)} (conversation ${overlap.id}).`;
    }
    return undefined;
  }

  create(
    device: DeviceRow,
    startMs: number,
    endMs: number,
    origin: ConversationOrigin = 'api',
  ): CreateConversationResponse {
    const { db, hub, events, now } = this.deps;
    return db.transaction((): CreateConversationResponse => {
      const minutes = endMs > startMs ? hub.minutes(device.id, startMs, endMs) : [];
      const message = this.refusal(device, startMs, endMs, minutes);
      if (message) return { success: false, message };
      const id = randomUUID();
      hub.insertConversation({
        id,
        organization_id: device.organization_id,
        device_id: device.id,
        start_ms: startMs,
        end_ms: endMs,
        status: 'ACTIVE',
        speech_minute_count: previewOf(minutes).speechMinutes,
        origin,
        not_importable_reason: '',
        transcript_text: '',
        label_id: null,
        created_ms: now(),
        completed_ms: null,
        next_step_ms: null,
      });
      events.append(device.organization_id, 'conversation_created', {
        conversationId: id,
        deviceId: device.id,
      });
      return { success: true, conversation: { conversationId: id } };
    })();
  }

  /** ACTIVE → COMPLETED and processing scheduled; idempotent for every later status. */
  complete(row: ConversationRow): void {
    if (row.status !== 'ACTIVE') return;
    const now = this.deps.now();
    this.deps.hub.updateConversation(row.id, {
      status: 'COMPLETED',
      completed_ms: now,
      next_step_ms: now + Math.floor(this.deps.processingMs / 2),
    });
    this.schedule();
  }

  /** Moves every due conversation one step on. */
  runDueSteps(): void {
    const { db, hub, now } = this.deps;
    for (const row of hub.dueConversations(now())) {
      db.transaction(() => this.step(row))();
    }
  }

  private step(row: ConversationRow): void {
    const { hub, processingMs, now } = this.deps;
    if (row.status === 'COMPLETED') {
      hub.updateConversation(row.id, {
        status: 'PROCESSING',
        next_step_ms: (row.completed_ms ?? now()) + processingMs,
      });
      return;
    }
    if (row.status !== 'PROCESSING') {
      hub.updateConversation(row.id, { next_step_ms: null });
      return;
    }
    this.finishProcessing(row, now());
  }

  /** Ends processing: a label for UPLOADED, the reason for FILTERED or FAILED, then the event. */
  finishProcessing(row: ConversationRow, atMs: number): void {
    const { hub, labels, events } = this.deps;
    const device = hub.device(row.device_id);
    const outcome = processingOutcome(
      hub.minutes(row.device_id, row.start_ms, row.end_ms),
      row.start_ms,
      row.end_ms,
    );
    if (outcome.status === 'UPLOADED' && device) {
      const labelId = labels.create({
        organizationId: row.organization_id,
        type: row.origin === 'button' ? 'HubBatch' : 'HubMic',
        fromMs: row.start_ms,
        toMs: row.end_ms,
        friendlyName: device.display_name,
        deviceSerial: device.serial,
        notes: [{ type: 'Transcript', content: outcome.transcript, createdMs: atMs, timeMs: atMs }],
        audio: {
          content_type: 'audio/wav',
          byte_length: recipeByteLength(outcome.recipe),
          source_kind: 'recipe',
          source: JSON.stringify(outcome.recipe),
        },
      });
      hub.updateConversation(row.id, {
        status: 'UPLOADED',
        transcript_text: outcome.transcript,
        label_id: labelId,
        next_step_ms: null,
      });
      events.append(row.organization_id, 'new_label', { labelId });
    } else {
      const reason =
        outcome.status === 'UPLOADED' ? 'The device no longer exists.' : outcome.reason;
      const status = outcome.status === 'FILTERED' ? 'FILTERED' : 'FAILED';
      hub.updateConversation(row.id, { status, not_importable_reason: reason, next_step_ms: null });
    }
    events.append(row.organization_id, 'conversation_completed', {
      conversationId: row.id,
      deviceId: row.device_id,
    });
  }

  /** Arms one timer for the earliest due step. */
  schedule(): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const due = this.deps.hub.nextDueMs();
    if (due === undefined) return;
    this.timer = setTimeout(
      () => {
        this.runDueSteps();
        this.schedule();
      },
      Math.min(MAX_TIMER_MS, Math.max(0, due - this.deps.now())),
    );
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

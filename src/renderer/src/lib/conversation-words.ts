import type { ConversationStatus } from '../../../shared/api';
import type { ConversationSummary } from '../../../shared/ipc';
import type { ConversationBand } from '../../../shared/timeline';
import { format } from './format';
import { spokenLines } from '../../../shared/record/spoken-lines';

/**
 * The interface's words for the service's terms (UI.md "Words"): "conversation" for a hub
 * conversation, "recording" for a label, FILTERED as an intentional exclusion, never a failure.
 * The service's own term stays visible beside these in detail views, for support calls.
 */

export interface StatusWords {
  /** A word or two for badges and filters. */
  label: string;
  /** The status explained in plain words, for the detail panel. */
  explanation: string;
}

export const STATUS_WORDS: Record<ConversationStatus, StatusWords> = {
  ACTIVE: {
    label: 'Active',
    explanation:
      'Still open. Complete it when the consult is over and the service will process it into a recording.',
  },
  COMPLETED: {
    label: 'Completed',
    explanation: 'Completed and waiting its turn to be processed into a recording.',
  },
  PROCESSING: {
    label: 'Processing',
    explanation:
      'The service is transcribing the speech and assembling the audio into a recording.',
  },
  UPLOADED: {
    label: 'Uploaded',
    explanation: 'Processed: the service turned it into a recording with its transcript.',
  },
  FAILED: {
    label: 'Failed',
    explanation: 'The service could not process it into a recording. Its reason is below.',
  },
  FILTERED: {
    label: 'Excluded',
    explanation:
      'Excluded — too little speech. The service keeps conversations like this out of the recordings on purpose; nothing went wrong.',
  },
};

/** The order the status filter offers them in: the way a conversation moves. */
export const STATUS_ORDER: readonly ConversationStatus[] = [
  'ACTIVE',
  'COMPLETED',
  'PROCESSING',
  'UPLOADED',
  'FILTERED',
  'FAILED',
];

export const statusLabel = (status: string): string =>
  STATUS_WORDS[status as ConversationStatus]?.label ?? status;

/**
 * transcriptState is open in the seed (§2.5); these are the reference service's values. Any other
 * value is shown as the service sent it.
 */
const TRANSCRIPT_STATE_WORDS: Record<string, string> = {
  PENDING: 'Not yet transcribed',
  PROCESSING: 'Being transcribed',
  READY: 'Transcript ready',
  NONE: 'No transcript',
  FAILED: 'Transcription failed',
};

export const transcriptStateLabel = (state: string): string =>
  TRANSCRIPT_STATE_WORDS[state] ?? state;

export { RECORD_TYPE_WORDS, recordTypeLabel } from '../../../shared/record/record-kinds';

/** When a conversation was, "10:43–10:54"; '' when its time is not known. */
export const conversationTime = (s: ConversationSummary): string =>
  s.startMs === null || s.endMs === null
    ? ''
    : `${format.clock(s.startMs)}–${format.clock(s.endMs)}`;

/** When it was recorded, in full: "Fri, Nov 20, 2026 · 10:43–10:54 · 11 min"; null when not known. */
export const recordedText = (s: ConversationSummary): string | null =>
  s.startMs === null || s.endMs === null
    ? null
    : `${format.weekdayDate(s.startMs)} · ${conversationTime(s)} · ${format.duration(s.endMs - s.startMs)}`;

/** The first line of its transcript without its speaker, or what stands in for it. */
export function firstLine(s: ConversationSummary): string {
  const line = s.conversation.transcriptText.split('\n').find((l) => l.trim() !== '');
  return line
    ? line.replace(/^[^:]{1,40}:\s*/, '').trim()
    : transcriptStateLabel(s.conversation.transcriptState);
}

/** A stretch of a transcript said by one speaker (null: lines with no speaker label). */
export interface SpeakerTurn {
  speaker: string | null;
  lines: string[];
}

/**
 * A transcript's text as turns, speaker by speaker: "Label: words" lines give the speaker, and
 * consecutive lines of one speaker form one turn. Blank lines are dropped. Plain text only: the
 * caller renders it as text, never as markup.
 */
export function speakerTurns(text: string): SpeakerTurn[] {
  const turns: SpeakerTurn[] = [];
  for (const { speaker, text: words } of spokenLines(text)) {
    const last = turns.at(-1);
    if (last && last.speaker === speaker) last.lines.push(words);
    else turns.push({ speaker, lines: [words] });
  }
  return turns;
}

/** A known conversation's time on the timeline: "10:51–11:08". */
export const bandTime = (band: ConversationBand): string =>
  `${format.clock(band.startMs)}–${format.clock(band.endMs)}`;

/** A known conversation in words: "10:51–11:08 conversation · Uploaded". */
export const bandText = (band: ConversationBand): string =>
  `${bandTime(band)} conversation · ${band.status ? statusLabel(band.status) : 'status not known yet'}`;

import type { TimelineMinute } from '../api/conversations';
import { parseSpokenLine } from '../record/spoken-lines';
import type { TimeRange } from './range';

/** One line of a range's transcript, speaker by speaker when the service diarized it. */
export interface TranscriptLine {
  readonly minuteStartMs: number;
  /** "Speaker 1", "Vet"…; null when the line carries no speaker (plain transcriptText). */
  readonly speaker: string | null;
  readonly text: string;
}

/**
 * The transcript of [startMs, endMs), one entry per line in time order: diarizedTranscriptText is
 * preferred (seed §2.5) and its "Label: text" lines give the speaker; otherwise transcriptText,
 * with no speaker. Empty minutes and blank lines are skipped; a minute given twice counts once.
 */
export function rangeTranscript(
  minutes: readonly TimelineMinute[],
  range: TimeRange,
): TranscriptLine[] {
  const inRange = new Map<number, TimelineMinute>();
  for (const minute of minutes) {
    if (minute.minuteStartMs >= range.startMs && minute.minuteStartMs < range.endMs) {
      inRange.set(minute.minuteStartMs, minute);
    }
  }
  const lines: TranscriptLine[] = [];
  for (const minuteStartMs of [...inRange.keys()].sort((a, b) => a - b)) {
    const minute = inRange.get(minuteStartMs);
    if (minute === undefined) continue;
    const diarized = minute.diarizedTranscriptText.trim() !== '';
    const text = diarized ? minute.diarizedTranscriptText : minute.transcriptText;
    for (const raw of text.split(/\r?\n/)) {
      const line = parseSpokenLine(raw, diarized);
      if (line) lines.push({ minuteStartMs, ...line });
    }
  }
  return lines;
}

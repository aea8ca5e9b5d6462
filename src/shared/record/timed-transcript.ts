import { alignLines } from '../speakers/align';
import { machineTimeZone } from '../timeline/clock';
import type { TranscriptLine } from '../timeline/transcript';
import type { SpokenLine } from './spoken-lines';

/**
 * A hub record's transcript in step with its audio: each line at the clock time of the device
 * minute it was said in (the per-minute timeline), and its offset into the record's audio.
 * Other records have no per-line times and get none invented.
 */
export interface TimedLine {
  /** The clock time of the minute the line was said in (epoch ms). */
  clockMs: number;
  /** Where that is in the record's audio (ms from its first sample; never negative). */
  offsetMs: number;
  speaker: string | null;
  text: string;
}

/** Lines of the record's range, from `rangeTranscript` of its device's minutes. */
export const timedLines = (lines: readonly TranscriptLine[], recordStartMs: number): TimedLine[] =>
  lines.map((line) => ({
    clockMs: line.minuteStartMs,
    offsetMs: Math.max(0, line.minuteStartMs - recordStartMs),
    speaker: line.speaker,
    text: line.text,
  }));

/**
 * A transcript version's lines, each at the time of the device minute its words were said in.
 * The minutes' lines are matched to the version's by their words (a regenerated version may
 * number its speakers anew or write words differently); a line not found takes the time of the
 * line before it (the first lines, of the first line found). The speakers and words are the
 * version's, so names given on it apply line by line. Null when no line is found at all.
 */
export function versionTimedLines(
  version: readonly SpokenLine[],
  minutes: readonly TranscriptLine[],
  recordStartMs: number,
): TimedLine[] | null {
  const timed = timedLines(minutes, recordStartMs);
  const pairs = alignLines(minutes, version);
  const firstFound = pairs.find((index) => index !== null);
  if (firstFound === undefined || firstFound === null) return null;
  let at = timed[firstFound]!;
  return version.map((line, index) => {
    const found = pairs[index];
    if (found !== null && found !== undefined) at = timed[found]!;
    return { clockMs: at.clockMs, offsetMs: at.offsetMs, speaker: line.speaker, text: line.text };
  });
}

/**
 * The line being played at `positionMs`: the last whose offset is at or before it (lines of one
 * minute share it: the first of them), or -1 before the first line.
 */
export function lineAt(lines: readonly TimedLine[], positionMs: number): number {
  let low = 0;
  let high = lines.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (lines[middle]!.offsetMs <= positionMs) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  // Several lines of one minute start together: the first of them is where that minute begins.
  while (found > 0 && lines[found - 1]!.offsetMs === lines[found]!.offsetMs) found--;
  return found;
}

/**
 * The lines as a plain-text transcript for a file: each line with its clock time (24-hour, in
 * `timeZone`) and its speaker where known, e.g. "10:43  Vet: How is Bella today?".
 */
export function timedTranscriptText(
  lines: readonly TimedLine[],
  timeZone: string = machineTimeZone(),
): string {
  const clock = new Intl.DateTimeFormat('en-GB', {
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZone,
  });
  return lines
    .map(
      (line) =>
        `${clock.format(line.clockMs)}  ${line.speaker ? `${line.speaker}: ` : ''}${line.text}\n`,
    )
    .join('');
}

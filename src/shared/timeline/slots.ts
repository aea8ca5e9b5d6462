import type { Preview, TimelineMinute } from '../api/conversations';
import { MINUTE_MS } from '../api/values';
import { ceilToMinute, minuteCount, type TimeRange } from './range';

/** The three looks of a minute (UI.md): speech, silence, and no recording at all. */
type SlotState = 'speech' | 'silence' | 'no-data';

/** One minute of the day as the timeline draws it. */
export interface Slot {
  readonly minuteStartMs: number;
  readonly state: SlotState;
  /** Speech in the minute, 0–60,000 ms: the bar's height. 0 when there is no data. */
  readonly speechMs: number;
  /** The service's minute, when it recorded one. */
  readonly minute?: TimelineMinute | undefined;
}

/**
 * One slot per minute of the range, in order. A minute the service returned is speech unless
 * vadIsSilent; a minute it did not return (device off, outage, not fetched yet) is no-data, drawn
 * differently from silence. Runs on every redraw, so it is a single pass over each input (no
 * sorting, no maps): the minutes may come in any order, from windows fetched in parallel; if one
 * minute comes twice the later copy wins. Minutes outside the range are ignored.
 */
export function minuteSlots(range: TimeRange, minutes: readonly TimelineMinute[]): Slot[] {
  const first = ceilToMinute(range.startMs);
  const count = minuteCount(range);
  const byIndex = new Array<TimelineMinute | undefined>(count).fill(undefined);
  for (const minute of minutes) {
    const index = Math.floor((minute.minuteStartMs - first) / MINUTE_MS);
    if (index >= 0 && index < count) byIndex[index] = minute;
  }
  const slots = new Array<Slot>(count);
  for (let index = 0; index < count; index++) {
    const minute = byIndex[index];
    const minuteStartMs = first + index * MINUTE_MS;
    slots[index] =
      minute === undefined
        ? { minuteStartMs, state: 'no-data', speechMs: 0, minute: undefined }
        : {
            minuteStartMs,
            state: minute.vadIsSilent ? 'silence' : 'speech',
            speechMs: Math.min(Math.max(minute.vadSpeechDurationMs, 0), MINUTE_MS),
            minute,
          };
  }
  return slots;
}

/**
 * The live totals of a selection, defined exactly as the service's create/preview: the RECORDED
 * minutes whose start lies in [startMs, endMs), speech (vadIsSilent false) or silent. Minutes with
 * no data count for nothing, so total can be less than the selection's length, as in the preview.
 * Takes slots or raw minutes; a minute given twice counts once (the later copy).
 */
export function selectionTotals(
  items: readonly (Slot | TimelineMinute)[],
  range: TimeRange,
): Preview {
  const speechAt = new Map<number, boolean>();
  for (const item of items) {
    let speech: boolean;
    if ('state' in item) {
      if (item.state === 'no-data') continue;
      speech = item.state === 'speech';
    } else {
      speech = !item.vadIsSilent;
    }
    if (item.minuteStartMs >= range.startMs && item.minuteStartMs < range.endMs) {
      speechAt.set(item.minuteStartMs, speech);
    }
  }
  let speechMinutes = 0;
  for (const speech of speechAt.values()) if (speech) speechMinutes++;
  return {
    totalMinutes: speechAt.size,
    speechMinutes,
    silentMinutes: speechAt.size - speechMinutes,
  };
}

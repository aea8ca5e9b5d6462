import type { Label } from '../../shared/api';
import { spokenLines } from '../../shared/record/spoken-lines';
import { versionTimedLines, type TimedLine } from '../../shared/record/timed-transcript';
import { rangeTranscript } from '../../shared/timeline';
import { currentTranscript, isProcessingContent } from '../../shared/transcript';
import type { Hub } from '../hub/hub';

/** Records cut from a hub's day of audio: the device's per-minute timeline dates their lines. */
const HUB_RECORD_TYPES: readonly string[] = ['HubMic', 'HubBatch'];
/** The longest record whose minutes are read (a day's view, as hub.minutes allows). */
const MAX_RECORD_MS = 26 * 3_600_000;
const MINUTE_MS = 60_000;

/**
 * A hub record's transcript in step with its audio: the lines of its current transcript version,
 * each at the clock time of the device minute its words were said in — the record's device (by
 * serial) and its minutes over the record's range, read through the hub's offline policy (so a
 * day seen before works offline), diarized text preferred, matched to the version's lines by
 * their words (a regenerated version keeps its own speakers and words, so names given on it
 * apply line by line). Other records, and a transcript still being written, have no per-line
 * times: null, and nothing is invented.
 */
export class TimedTranscripts {
  constructor(private readonly hub: Pick<Hub, 'devices' | 'minutes'>) {}

  async of(label: Label): Promise<TimedLine[] | null> {
    const startMs = Date.parse(label.fromTime);
    const endMs = Date.parse(label.toTime);
    if (!HUB_RECORD_TYPES.includes(label.type) || !(endMs > startMs)) return null;
    if (endMs - startMs > MAX_RECORD_MS) return null;
    const note = currentTranscript(label.ownedPatientNotes);
    if (!note || isProcessingContent(note.content)) return null;
    const devices = await this.hub.devices();
    const device = devices.value.find((d) => d.serial === label.deviceSerial);
    if (!device) return null;
    // Whole minutes: a record that starts mid-minute was said in that minute too.
    const range = { startMs: startMs - (startMs % MINUTE_MS), endMs };
    const day = await this.hub.minutes({ deviceId: device.value, ...range });
    const version = spokenLines(note.content);
    if (version.length === 0) return null;
    return versionTimedLines(version, rangeTranscript(day.value.minutes, range), startMs);
  }
}

import { TRANSCRIPT_NOTE_TYPES } from '../../shared/api';
import type { ClipBank } from '../audio/clip-bank';
import { localDayStart, simulateDay } from '../hub/simulator';
import { transcriptOf } from './demo-seed';
import { DIALOGUE_SCRIPTS, patientOfScript } from './dialogue';
import { DEMO_DEVICES, SECONDARY_DEVICE } from './identity-seed';

/** Who a demo record is about, as the demo made it: a name and a species. */
export interface DemoPatient {
  name: string;
  species: string;
}

export interface DemoRecord {
  type: string;
  fromMs: number;
  deviceSerial: string;
  /** Every note's content (a transcript version is one of them). */
  notes: readonly { type: string; content: string }[];
}

const DEVICES = [...DEMO_DEVICES, SECONDARY_DEVICE];

/**
 * The patient a demo record talks about, from how the demo built it (the suggested-patient
 * benchmark's ground truth): a hub record is a simulated consult (the device's day is a pure
 * function of the device and the date), whose first script names its patient; another record is
 * one script of the dialogue bank, spoken whole. Null when the record names no patient (a memo)
 * or is not the demo's.
 */
export function demoPatientOf(clips: ClipBank, record: DemoRecord): DemoPatient | null {
  const transcriptTypes: readonly string[] = TRANSCRIPT_NOTE_TYPES;
  if (record.type === 'HubMic' || record.type === 'HubBatch') {
    const device = DEVICES.find((d) => d.serial === record.deviceSerial);
    if (!device) return null;
    const consult = simulateDay(clips, device, localDayStart(record.fromMs)).consults.find(
      (c) => c.startMs === record.fromMs,
    );
    const script = DIALOGUE_SCRIPTS.find((s) => s.id === consult?.scripts[0]);
    return consult?.patient && script ? { name: consult.patient, species: script.species } : null;
  }
  const transcripts = record.notes.filter((n) => transcriptTypes.includes(n.type));
  const script = DIALOGUE_SCRIPTS.find((s) =>
    transcripts.some((n) => n.content === transcriptOf(s)),
  );
  const name = script && patientOfScript(script);
  return script && name ? { name, species: script.species } : null;
}

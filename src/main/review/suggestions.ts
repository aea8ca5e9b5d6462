import { TRANSCRIPT_NOTE_TYPES } from '../../shared/api';
import { noteKinds } from '../../shared/record/notes';
import {
  matchPatients,
  type PatientMatch,
  type Vocabulary,
} from '../../shared/review/patient-match';
import { isProcessingContent } from '../../shared/transcript';
import type { Cache } from '../cache';
import { AppError } from '../base/errors';
import { englishVocabulary } from './vocabulary';

export interface SuggestionsDeps {
  cache(): Promise<Cache>;
  vocabulary?: () => Vocabulary;
}

/** Every known patient, however many: the matcher reads each name once. */
const ALL_PATIENTS = 1_000_000;
const NONE: PatientMatch = { suggestions: [], first: null };

/**
 * The suggested patient of a cached record without one (src/shared/review/patient-match.ts):
 * its current transcript and other current notes against the clinic's known patients (those on
 * its cached records). Patients of a shared name are told apart with what their own records
 * say (species) and where they were last seen (the record's room), read only when needed.
 */
export class PatientSuggestions {
  private readonly vocabulary: () => Vocabulary;

  constructor(private readonly deps: SuggestionsDeps) {
    this.vocabulary = deps.vocabulary ?? englishVocabulary;
  }

  async suggest(labelId: string): Promise<PatientMatch> {
    const { read } = await this.deps.cache();
    const label = await read.label(labelId);
    if (!label) throw new AppError('not_found', 'This recording is not on this computer yet.');
    if (label.patient) return NONE;
    const kinds = noteKinds(label.ownedPatientNotes ?? []);
    const textOf = (transcript: boolean) =>
      kinds
        .filter((kind) => (kind.types === TRANSCRIPT_NOTE_TYPES) === transcript)
        .map((kind) => kind.current.content)
        .filter((content) => !isProcessingContent(content))
        .join('\n');
    const recordText = { transcript: textOf(true), note: textOf(false) };
    const patients = await read.patients('', ALL_PATIENTS);
    const match = matchPatients(recordText, patients, this.vocabulary());
    const shared = match.suggestions.filter((s) => s.sharedWith > 0).map((s) => s.patientId);
    if (shared.length === 0) return match;
    const names = new Set(patients.filter((p) => shared.includes(p.id)).map((p) => p.name));
    const evidence = await read.patientEvidence({
      patientIds: patients.filter((p) => names.has(p.name)).map((p) => p.id),
      deviceSerial: label.deviceSerial,
      beforeMs: Date.parse(label.fromTime),
    });
    return matchPatients(
      recordText,
      patients.map((p) => ({ ...p, ...evidence[p.id] })),
      this.vocabulary(),
    );
  }
}

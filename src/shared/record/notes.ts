import { SOAP_NOTE_TYPE, TRANSCRIPT_NOTE_TYPES } from '../api/values';
import { noteVersions, type NoteVersion } from '../transcript';

/**
 * A record's notes by type, each at its current version (seed §2.3's rule applied per type).
 * Transcript and NotesTranscript are one kind — the transcript — as the seed reads them; every
 * other type (SOAP, and types this app does not know) is its own, so nothing is dropped.
 */
export interface NoteKind<N extends NoteVersion> {
  /** The types this kind covers: both transcript types, or one other type. */
  types: readonly string[];
  /** Every version, newest first; the first is the current one. */
  versions: N[];
  current: N;
}

/** The order a record shows its notes in: the transcript, the SOAP note, then the rest by name. */
function rank(types: readonly string[]): [number, string] {
  if (types === TRANSCRIPT_NOTE_TYPES) return [0, ''];
  const type = types[0] ?? '';
  return [type === SOAP_NOTE_TYPE ? 1 : 2, type.toLowerCase()];
}

export function noteKinds<N extends NoteVersion>(
  notes: readonly N[] | null | undefined,
): NoteKind<N>[] {
  const groups = new Map<string, readonly string[]>();
  for (const { type } of notes ?? []) {
    const isTranscript = (TRANSCRIPT_NOTE_TYPES as readonly string[]).includes(type);
    const key = isTranscript ? '\u0000transcript' : type;
    if (!groups.has(key)) groups.set(key, isTranscript ? TRANSCRIPT_NOTE_TYPES : [type]);
  }
  return [...groups.values()]
    .map((types) => {
      const versions = noteVersions(notes, types);
      return { types, versions, current: versions[0]! };
    })
    .sort((a, b) => {
      const [rankA, nameA] = rank(a.types);
      const [rankB, nameB] = rank(b.types);
      return rankA - rankB || nameA.localeCompare(nameB);
    });
}

import { TRANSCRIPT_NOTE_TYPES } from './api/values';

/**
 * The current-note rule of seed §2.3. Notes are an append-only version history in no guaranteed
 * order: the current note of a type is the one with the greatest createdAt, or time when createdAt
 * is absent. Timestamps compare as instants (ISO 8601 with any offset), not as text.
 */

/** What the rule reads of a note; the client's Note and a cached note both fit. */
export interface NoteVersion {
  type: string;
  createdAt?: string | null;
  time?: string | null;
}

/** When the version was made: createdAt, else time; -Infinity when neither can be read. */
function versionMs(note: NoteVersion): number {
  for (const stamp of [note.createdAt, note.time]) {
    const ms = stamp ? Date.parse(stamp) : Number.NaN;
    if (!Number.isNaN(ms)) return ms;
  }
  return Number.NEGATIVE_INFINITY;
}

/**
 * The current note among those of `types`, or undefined when there is none.
 * Ties (equal timestamps, or none readable) go to the later note in array order: a service that
 * appends versions lists the newer one last, and a fixed rule keeps the answer stable.
 */
export function currentNote<N extends NoteVersion>(
  notes: readonly N[] | null | undefined,
  types: string | readonly string[],
): N | undefined {
  const wanted = typeof types === 'string' ? [types] : types;
  let current: N | undefined;
  let currentMs = Number.NEGATIVE_INFINITY;
  for (const note of notes ?? []) {
    if (!wanted.includes(note.type)) continue;
    const ms = versionMs(note);
    if (current === undefined || ms >= currentMs) {
      current = note;
      currentMs = ms;
    }
  }
  return current;
}

/**
 * Every version of the notes of `types`, newest first by the same rule (the first is the
 * current one; ties go to the later note in array order).
 */
export function noteVersions<N extends NoteVersion>(
  notes: readonly N[] | null | undefined,
  types: string | readonly string[],
): N[] {
  const wanted = typeof types === 'string' ? [types] : types;
  return (notes ?? [])
    .map((note, index) => ({ note, index, ms: versionMs(note) }))
    .filter(({ note }) => wanted.includes(note.type))
    .sort((a, b) => (a.ms === b.ms ? b.index - a.index : b.ms > a.ms ? 1 : -1))
    .map(({ note }) => note);
}

/** The transcript: the newest note across Transcript and NotesTranscript. */
export const currentTranscript = <N extends NoteVersion>(
  notes: readonly N[] | null | undefined,
): N | undefined => currentNote(notes, TRANSCRIPT_NOTE_TYPES);

/** A note still being generated: its content is empty or "{}". */
export const isProcessingContent = (content: string | null | undefined): boolean => {
  const trimmed = content?.trim() ?? '';
  return trimmed === '' || trimmed === '{}';
};

/** Every transcript version (Transcript and NotesTranscript), newest first. */
export const transcriptVersions = <N extends NoteVersion>(
  notes: readonly N[] | null | undefined,
): N[] => noteVersions(notes, TRANSCRIPT_NOTE_TYPES);

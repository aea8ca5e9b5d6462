import type { Note } from '../../shared/api';
import { TRANSCRIPT_NOTE_TYPES } from '../../shared/api/values';
import { currentNote } from '../../shared/transcript';
import type { ServiceContext } from '../http/context';
import { conflict, notFound } from '../http/problems';
import { revisedNoteContent } from './revision';

/**
 * Appends a new version of one of a record's notes, as the real service does when it
 * reprocesses a record (seed §2.3: notes are append-only; the old versions stay), and logs
 * label_updated in the same transaction. Without `content` the new version is a revision of the
 * current note of that type (a transcript's current note is the newest across both transcript
 * types, so a record that keeps it under NotesTranscript is revised from there).
 */
export function regenerateNote(
  { db, labels, events, now }: Pick<ServiceContext, 'db' | 'labels' | 'events' | 'now'>,
  labelId: string,
  type: string,
  content?: string,
): Note {
  return db.transaction((): Note => {
    const label = labels.get(labelId);
    const organizationId = labels.organizationOf(labelId);
    if (!label || organizationId === undefined) throw notFound(`No label ${labelId}.`);
    const notes = label.ownedPatientNotes ?? [];
    const family = (TRANSCRIPT_NOTE_TYPES as readonly string[]).includes(type)
      ? TRANSCRIPT_NOTE_TYPES
      : [type];
    const current = currentNote(notes, family);
    if (content === undefined && !current)
      throw conflict(
        `Label ${labelId} has no ${type} note to revise; send the new version's content.`,
      );
    // Newer than every version, even one the seed dated a little ahead of this clock.
    const newestMs = Math.max(
      0,
      ...notes.map((note) => Date.parse(note.createdAt)).filter((ms) => !Number.isNaN(ms)),
    );
    const createdMs = Math.max(now(), newestMs + 1);
    const note = {
      type,
      content: content ?? revisedNoteContent(current!.content),
      createdMs,
      timeMs: createdMs,
    };
    labels.addNote(labelId, note);
    events.append(organizationId, 'label_updated', { labelId });
    const iso = new Date(createdMs).toISOString();
    return { type, content: note.content, createdAt: iso, time: iso };
  })();
}

import { parseSpokenLine } from '../record/spoken-lines';
import type { ParsedNote } from '../record/soap';
import { nameLines, type SpeakerOverlay } from './overlay';

/**
 * Every output of a transcript carries the names: Copy, the exported .txt, the version diff
 * (each version with its own overlay), and — where a note refers to a speaker by a generic
 * diarization label — the clinical note's text.
 */

/**
 * The transcript note's text with the overlay applied: a line whose speaker is named, or that
 * was moved to another speaker, reads "Name: words"; every other line stays exactly as written.
 */
export function namedTranscriptText(content: string, overlay: SpeakerOverlay): string {
  if (overlay.names.length === 0 && overlay.moves.length === 0) return content;
  const raw = content.split('\n');
  const parsed = raw.map((line) => parseSpokenLine(line));
  const named = nameLines(
    parsed.flatMap((line) => line ?? []),
    overlay,
  );
  let index = 0;
  return raw
    .map((line, k) => {
      const spoken = parsed[k];
      if (!spoken) return line;
      const shown = named[index++]!;
      if (shown.speaker === spoken.speaker) return line;
      return `${shown.speaker}: ${shown.text}${line.endsWith('\r') ? '\r' : ''}`;
    })
    .join('\n');
}

/** A diarization's own label ("Speaker 2"): a note may name a speaker only this way. */
const GENERIC_LABEL = /^Speaker \d+$/;

/**
 * Text that mentions generic labels ("Speaker 2 reports vomiting") with the names given to
 * them. Role labels ("Vet", "Owner") are ordinary words in a note and are left alone.
 */
function nameSpeakersInText(text: string, overlay: SpeakerOverlay): string {
  const names = new Map(
    overlay.names.filter(({ label }) => GENERIC_LABEL.test(label)).map((n) => [n.label, n.name]),
  );
  if (names.size === 0) return text;
  return text.replace(/\bSpeaker \d+\b/g, (label) => names.get(label) ?? label);
}

/** A clinical note's sections (or text) with `nameSpeakersInText` applied. */
export function nameSpeakersInNote(note: ParsedNote, overlay: SpeakerOverlay): ParsedNote {
  if (note.kind === 'processing') return note;
  if (note.kind === 'text') return { kind: 'text', text: nameSpeakersInText(note.text, overlay) };
  return {
    kind: 'sections',
    sections: note.sections.map((section) => ({
      ...section,
      text: nameSpeakersInText(section.text, overlay),
    })),
  };
}

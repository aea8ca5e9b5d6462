/**
 * A transcript's lines as the service writes them: "Speaker 1: words" (hub diarization), "Vet:
 * words" (other records), or words with no speaker. One parser for every place that reads them
 * (the record's transcript, a range's minutes, a conversation's turns), so a line is the same
 * line everywhere — the speaker names (src/shared/speakers) are keyed by its position.
 */
export interface SpokenLine {
  /** The speaker's label as written ("Speaker 1", "Vet"); null when the line has none. */
  speaker: string | null;
  text: string;
}

// A short label starting with a letter, a colon, the words.
const SPEAKER_LINE = /^([\p{L}][\p{L}\p{N} ._'’-]{0,39}?)\s*:\s*(.*)$/u;

/**
 * One line of text: its speaker and words; null for a line that holds no words (blank, or a
 * label with nothing after it). `labelled: false` reads the line as words only (a transcript
 * that is not diarized).
 */
export function parseSpokenLine(raw: string, labelled = true): SpokenLine | null {
  const line = raw.trim();
  if (line === '') return null;
  const match = labelled ? SPEAKER_LINE.exec(line) : null;
  if (!match) return { speaker: null, text: line };
  const text = (match[2] ?? '').trim();
  return text === '' ? null : { speaker: match[1] ?? null, text };
}

/** Every line of a transcript that holds words, in order. */
export function spokenLines(content: string): SpokenLine[] {
  return content.split(/\r?\n/).flatMap((raw) => parseSpokenLine(raw) ?? []);
}

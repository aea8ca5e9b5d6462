import type { SpokenLine } from '../record/spoken-lines';

/**
 * Who said it: the names a user gives a transcript's speakers, as an overlay on one transcript
 * version — never a rewrite of the note (the service's notes are append-only and Earmark cannot
 * write them). Names are keyed by the raw speaker labels of that version ("Speaker 1", "Vet"),
 * and a line the diarization gave the wrong speaker is moved by its position in that version.
 * A newer version gets the names that still fit through the carry-over rule (carry-over.ts).
 */

export const SPEAKER_ROLES = ['vet', 'nurse', 'owner', 'other'] as const;
export type SpeakerRole = (typeof SPEAKER_ROLES)[number];

/** The longest name kept (longer input is cut). */
const MAX_SPEAKER_NAME = 80;
/** The longest raw label a transcript line can carry (spoken-lines.ts reads up to 40). */
export const MAX_SPEAKER_LABEL = 40;
/** The most lines a transcript version is expected to hold (a 90-minute consult has ~1,500). */
export const MAX_TRANSCRIPT_LINES = 20_000;
/** The most speakers named in one version. */
export const MAX_NAMED_SPEAKERS = 50;

/** A raw label's name, with an optional role shown beside it. */
export interface SpeakerName {
  label: string;
  name: string;
  role: SpeakerRole | null;
}

/** Line `line` (its position among the version's spoken lines) was said by `label`. */
export interface LineMove {
  line: number;
  label: string;
}

export interface SpeakerOverlay {
  names: readonly SpeakerName[];
  moves: readonly LineMove[];
}

export const EMPTY_OVERLAY: SpeakerOverlay = { names: [], moves: [] };

export const ROLE_WORDS: Record<SpeakerRole, string> = {
  vet: 'Vet',
  nurse: 'Nurse',
  owner: 'Owner',
  other: 'Other',
};

/** A 53-bit hash (cyrb53) in base 36: stable across processes, no crypto needed. */
function hash53(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ code, 2654435761);
    h2 = Math.imul(h2 ^ code, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * Which transcript version an overlay belongs to. Notes have no id (seed §2.3): a version is its
 * type, times and content, so main and the renderer compute the same key from the same note.
 */
export const transcriptVersionKey = (note: {
  type: string;
  content: string;
  createdAt?: string | null;
  time?: string | null;
}): string =>
  hash53(`${note.type}\u0000${note.createdAt ?? ''}\u0000${note.time ?? ''}\u0000${note.content}`);

/** A name as typed, made safe to keep and show: one line, no control characters, not too long. */
export function cleanSpeakerName(name: string): string {
  return [...name.replace(/\p{Cc}|\p{Cf}/gu, ' ').replace(/\s+/g, ' ')]
    .slice(0, MAX_SPEAKER_NAME)
    .join('')
    .trim();
}

/** The raw labels of the version's lines, in order of first appearance. */
export function speakerLabels(lines: readonly SpokenLine[]): string[] {
  return [...new Set(lines.flatMap((line) => (line.speaker === null ? [] : [line.speaker])))];
}

/**
 * The overlay as it may be kept for these lines: names only for labels the version has, one per
 * label, cleaned, none empty; moves only of lines it has, to labels it has, and never to the
 * line's own label (that is no move), one per line.
 */
export function fitOverlay(overlay: SpeakerOverlay, lines: readonly SpokenLine[]): SpeakerOverlay {
  const labels = new Set(speakerLabels(lines));
  const named = new Map<string, SpeakerName>();
  for (const { label, name, role } of overlay.names) {
    const cleaned = cleanSpeakerName(name);
    if (labels.has(label) && cleaned !== '') named.set(label, { label, name: cleaned, role });
  }
  const moved = new Map<number, LineMove>();
  for (const { line, label } of overlay.moves) {
    const spoken = lines[line];
    if (spoken && labels.has(label) && spoken.speaker !== label) moved.set(line, { line, label });
  }
  return {
    names: [...named.values()],
    moves: [...moved.values()].sort((a, b) => a.line - b.line),
  };
}

/** The raw label of each line once the overlay's moves apply. */
export function effectiveLabels(
  lines: readonly SpokenLine[],
  overlay: SpeakerOverlay,
): (string | null)[] {
  const labels = lines.map((line) => line.speaker);
  for (const { line, label } of overlay.moves) if (line < labels.length) labels[line] = label;
  return labels;
}

/** A line with its speaker as shown: the name given to its (effective) label, else the label. */
export type NamedLine<L extends SpokenLine> = L & {
  /** The raw label the line is said by, after moves; null for a line with no speaker. */
  label: string | null;
  role: SpeakerRole | null;
  /** `speaker` is a name given on this computer (not the transcript's label). */
  named: boolean;
  /** The user moved this line to `label`. */
  moved: boolean;
};

/** The lines with the overlay applied: `speaker` is the name where one is given. */
export function nameLines<L extends SpokenLine>(
  lines: readonly L[],
  overlay: SpeakerOverlay,
): NamedLine<L>[] {
  const names = new Map(overlay.names.map((entry) => [entry.label, entry]));
  const labels = effectiveLabels(lines, overlay);
  return lines.map((line, index) => {
    const label = labels[index] ?? null;
    const named = label === null ? undefined : names.get(label);
    return {
      ...line,
      speaker: named?.name ?? label,
      label,
      role: named?.role ?? null,
      named: named !== undefined,
      moved: label !== line.speaker,
    };
  });
}

/** "Dr Marsh (vet)": a name with its role, for legends and headers. */
export const nameWithRole = ({ name, role }: Pick<SpeakerName, 'name' | 'role'>): string =>
  role ? `${name} (${ROLE_WORDS[role].toLowerCase()})` : name;

/**
 * Who spoke, named, in order of first appearance: "Dr Marsh (vet), Mrs Patel (owner)"; empty
 * when no speaker that speaks is named.
 */
export function namedSpeakers(
  lines: readonly SpokenLine[],
  overlay: SpeakerOverlay,
): SpeakerName[] {
  const names = new Map(overlay.names.map((entry) => [entry.label, entry]));
  return [...new Set(effectiveLabels(lines, overlay))].flatMap(
    (label) => (label === null ? undefined : names.get(label)) ?? [],
  );
}

export const speakerLegend = (lines: readonly SpokenLine[], overlay: SpeakerOverlay): string =>
  namedSpeakers(lines, overlay).map(nameWithRole).join(', ');

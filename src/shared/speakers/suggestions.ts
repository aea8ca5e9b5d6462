import type { SpokenLine } from '../record/spoken-lines';
import { cleanSpeakerName, type SpeakerRole } from './overlay';

/**
 * Names to offer while a speaker is being named: those the transcript itself says, offered for
 * the speaker they fit, then those used before on this computer for the clinic.
 *
 * People address each other by title and name: "Thank you, Doctor Marsh" names the person spoken
 * to — the other speaker next to the line (the one who spoke just before, else just after) — and
 * "I am Nurse Jo" or "This is Doctor Marsh" names the one speaking. The title gives the role:
 * a doctor is the vet, a nurse the nurse, Mr/Mrs/Ms/Miss the owner. A name only mentioned ("ask
 * Doctor Marsh") fits no one and is not offered for a speaker.
 */

export interface AddressedName {
  /** The raw label of the speaker it fits. */
  label: string;
  /** As said: "Doctor Marsh", "Mrs Patel". */
  name: string;
  role: SpeakerRole | null;
  /** How many lines say it for this speaker. */
  times: number;
}

export interface SpeakerSuggestion {
  name: string;
  role: SpeakerRole | null;
  /** Said in this transcript to or by this speaker, or used before on this computer. */
  source: 'transcript' | 'earlier';
}

const TITLE_ROLES: [RegExp, SpeakerRole][] = [
  [/^(doctor|dr\.?)$/i, 'vet'],
  [/^nurse$/i, 'nurse'],
  [/^(mr|mrs|ms|miss)\.?$/i, 'owner'],
];
// A title, then one or two capitalized words (a name). No /i flag: with it, \p{Lu} would match
// any letter, and "thank you, doctor, for" would name someone "for".
const NAME = String.raw`\b([Dd]octor|[Dd]r\.?|[Nn]urse|Mrs\.?|Mr\.?|Ms\.?|Miss)\s+(\p{Lu}[\p{L}'’-]+(?:\s+\p{Lu}[\p{L}'’-]+)?)`;
// Said to someone: after a greeting or thanks, or opening the line and followed by a comma or
// the end of the sentence, or closing it after a comma.
const GREETING = String.raw`(?:[Tt]hank you|[Tt]hanks|[Hh]ello|[Hh]i|[Mm]orning|[Aa]fternoon|[Ee]vening|[Bb]ye|[Gg]oodbye|[Ss]orry|[Ee]xcuse me)[,!]?\s+`;
const ADDRESSED = new RegExp(
  String.raw`(?:${GREETING}${NAME})|(?:^${NAME}(?=\s*[,.!?]))|(?:,\s*${NAME}(?=\s*[.!?]?\s*$))`,
  'gu',
);
// Said by the speaker: an introduction.
const SELF = new RegExp(
  String.raw`(?:\b[Ii] am|\bI'm|\bI’m|\b[Mm]y name is|\b[Tt]his is|\b[Ii]t is|\b[Ii]t's|\b[Ii]t’s)\s+${NAME}`,
  'gu',
);

const roleOf = (title: string): SpeakerRole | null =>
  TITLE_ROLES.find(([pattern]) => pattern.test(title))?.[1] ?? null;

/** The title and name found in a match's groups (each alternative has its own pair). */
function nameIn(match: RegExpMatchArray): { name: string; role: SpeakerRole | null } | null {
  for (let group = 1; group + 1 < match.length; group += 2) {
    const title = match[group];
    const name = match[group + 1];
    if (title && name) return { name: cleanSpeakerName(`${title} ${name}`), role: roleOf(title) };
  }
  return null;
}

/** The speaker spoken to on line `index`: the other one just before, else just after. */
function addressee(labels: readonly (string | null)[], index: number): string | null {
  const own = labels[index];
  for (const step of [-1, 1]) {
    for (let i = index + step; i >= 0 && i < labels.length; i += step) {
      const label = labels[i];
      if (label !== null && label !== undefined && label !== own) return label;
      if (label !== own) break;
    }
  }
  return null;
}

/**
 * Names the transcript says for its speakers, most said first. `labels` are the lines' speakers
 * as the user has them (moves applied), so a moved line counts for its new speaker.
 */
export function addressedNames(
  lines: readonly SpokenLine[],
  labels: readonly (string | null)[] = lines.map((line) => line.speaker),
): AddressedName[] {
  const found = new Map<string, AddressedName>();
  const add = (label: string | null | undefined, said: ReturnType<typeof nameIn>) => {
    if (!label || !said) return;
    const key = `${label}\u0000${said.name.toLowerCase()}`;
    const known = found.get(key);
    if (known) known.times++;
    else found.set(key, { label, ...said, times: 1 });
  };
  lines.forEach((line, index) => {
    for (const match of line.text.matchAll(SELF)) add(labels[index], nameIn(match));
    for (const match of line.text.matchAll(ADDRESSED)) add(addressee(labels, index), nameIn(match));
  });
  return [...found.values()].sort((a, b) => b.times - a.times);
}

/**
 * What to offer while `typed` is being typed for the speaker `label`: the transcript's names for
 * that speaker first, then names used before (most recent first), those containing the typed
 * text (any case), each name once, at most `limit`.
 */
export function speakerSuggestions(
  typed: string,
  label: string,
  addressed: readonly AddressedName[],
  earlier: readonly { name: string; role: SpeakerRole | null }[],
  limit = 8,
): SpeakerSuggestion[] {
  const wanted = typed.trim().toLowerCase();
  const seen = new Set<string>();
  const offered: SpeakerSuggestion[] = [];
  const offer = (name: string, role: SpeakerRole | null, source: SpeakerSuggestion['source']) => {
    const key = name.toLowerCase();
    if (seen.has(key) || !key.includes(wanted) || offered.length >= limit) return;
    seen.add(key);
    offered.push({ name, role, source });
  };
  for (const entry of addressed)
    if (entry.label === label) offer(entry.name, entry.role, 'transcript');
  for (const entry of earlier) offer(entry.name, entry.role, 'earlier');
  return offered;
}

import { editDistance, textWords, type TextWord } from './words';

/**
 * The suggested patient of a record without one: the clinic's known patients whose names are
 * spoken in its transcript or written in its note, ranked, with the words that matched. Never
 * assigns anything; the user picks.
 *
 * - Tolerant of what transcription does to names: case, accents, possessives ("Pepper's",
 *   "Peppers"), and a letter off ("Peper", "Rcoky") for names of four letters or more — but a
 *   word that is itself an ordinary word ("puppy" is not a misheard "Poppy") never counts as a
 *   misspelling, and the first letter must agree.
 * - Cautious with names that are also common words ("Pepper", "Bear"): such a word counts only
 *   where it is used as a name — said to or about someone ("bring Pepper", "Pepper has been",
 *   "Hello, Pepper."), possessive, or capitalized inside a sentence — and never after an article
 *   ("the pepper").
 * - When patients share a name it says so, and decides by what else the record tells: the
 *   species it mentions, else the one of them seen most recently in the same room; otherwise it
 *   asks (no first suggestion).
 */

export interface Vocabulary {
  /** Whether a lower-case word is an ordinary word of the language ("pepper", "puppy"). */
  isWord(word: string): boolean;
}

export interface PatientCandidate {
  id: string;
  name: string;
  /** What its other records say of it: species mentioned, counted ({cat: 4}). */
  species?: Readonly<Record<string, number>>;
  /** Its latest record from the same room (device) as the record, before it; null if none. */
  lastSeenInRoomMs?: number | null;
}

export interface RecordText {
  transcript: string;
  /** The record's other current notes (a SOAP note), where names are written. */
  note: string;
}

type Decision = 'name' | 'species' | 'room' | 'ask';

export interface PatientSuggestion {
  patientId: string;
  name: string;
  score: number;
  /** The record's words that matched, as written, each once ("Pepper", "peper"). */
  words: string[];
  /** How many times it is spoken or written. */
  mentions: number;
  /** Other known patients with the same name (0 when the name is the patient's alone). */
  sharedWith: number;
  /** What put it where it is: its name alone, the species, the room, or nothing (asks). */
  decidedBy: Decision;
}

export interface PatientMatch {
  /** Best first; every patient whose name the record gives. */
  suggestions: PatientSuggestion[];
  /** The suggestion to offer first; null when there is none or a shared name is undecided. */
  first: PatientSuggestion | null;
}

/** Words used of animals, by species (what the demo's patients and most clinics see). */
const SPECIES_WORDS: Readonly<Record<string, readonly string[]>> = {
  dog: [
    'dog',
    'dogs',
    'puppy',
    'puppies',
    'pup',
    'canine',
    'spaniel',
    'labrador',
    'retriever',
    'terrier',
    'collie',
    'poodle',
    'beagle',
    'greyhound',
    'whippet',
    'dachshund',
    'boxer',
  ],
  cat: ['cat', 'cats', 'kitten', 'kittens', 'kitty', 'feline', 'moggy'],
  rabbit: ['rabbit', 'rabbits', 'bunny', 'bunnies'],
  'guinea pig': ['guinea'],
  parrot: ['parrot', 'parrots', 'bird', 'birds', 'budgie', 'cockatiel'],
  ferret: ['ferret', 'ferrets'],
  horse: ['horse', 'horses', 'pony', 'foal', 'equine'],
};

const SPECIES_OF_WORD = new Map(
  Object.entries(SPECIES_WORDS).flatMap(([species, words]) => words.map((w) => [w, species])),
);

/** The species a text mentions, counted. */
export function speciesMentioned(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const word of textWords(text)) {
    const species =
      SPECIES_OF_WORD.get(word.key) ?? SPECIES_OF_WORD.get(word.key.replace(/s$/, ''));
    if (species) counts[species] = (counts[species] ?? 0) + 1;
  }
  return counts;
}

/** The species most mentioned, if one is clearly so. */
function mainSpecies(counts: Readonly<Record<string, number>> | undefined): string | null {
  const ranked = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1]);
  if (!ranked[0] || (ranked[1] && ranked[1][1] === ranked[0][1])) return null;
  return ranked[0][0];
}

/** Said before a name: greeted, brought, asked about, cared for. */
const NAME_BEFORE = new Set(
  `hello hi hey morning afternoon evening bye goodbye poor little dear sweet brave naughty
   bring brings brought bringing meet met see saw seen check checked checking examine examined
   weigh weighed treat treated vaccinate vaccinated vaccinating hold holding love about for with
   is was has does did how named called give gave feed fed walk walked patient`.split(/\s+/),
);
/** Said after a name that is the subject: has been, is eating, seems, will need. */
const NAME_AFTER = new Set(
  `has had is was been seems seemed will would can could should needs needed does did doesn't
   isn't hasn't wasn't won't can't ate eats eating drinks drank likes loves went came got gets
   keeps kept stopped started vomited licks licked weighs weighed scratches shakes limps
   himself herself`.split(/\s+/),
);
/** Before a common noun, not a name: "the pepper", "some honey", "salt and pepper". */
const NOT_A_NAME_BEFORE = new Set(
  'the a an some any more less much little bit of black red green white ground salt fresh teddy'.split(
    /\s+/,
  ),
);

/** How strongly one occurrence counts. */
const EXACT = 1;
const POSSESSIVE_S = 0.8;
const MISSPELT = 0.7;
/** Names written in a note (a SOAP note's "S: Pepper (cat) …") weigh a little more than speech. */
const NOTE_WEIGHT = 1.2;
/** A suggestion needs at least this much: one clear mention, or a misspelling and more. */
const MIN_SCORE = 0.65;

interface NameForm {
  /** Folded name words ("pepper"; "mr", "whiskers"). */
  keys: string[];
  common: boolean;
}

const nameForm = (name: string, vocabulary: Vocabulary): NameForm => {
  const keys = textWords(name).map((w) => w.key);
  return { keys, common: keys.length === 1 && vocabulary.isWord(keys[0]!) };
};

/** How the word `word` reads as the name word `key`: 0 when it does not. */
function strengthOf(word: TextWord, key: string, vocabulary: Vocabulary): number {
  if (word.key === key) return EXACT;
  if (word.key === `${key}s`) return POSSESSIVE_S;
  if (key.length < 4 || word.key.length < 3 || word.key[0] !== key[0]) return 0;
  if (vocabulary.isWord(word.key)) return 0;
  return editDistance(word.key, key, 1) <= 1 ? MISSPELT : 0;
}

/** Whether an occurrence reads as a name rather than an ordinary word. */
function usedAsName(words: readonly TextWord[], first: number, last: number): boolean {
  const head = words[first]!;
  const tail = words[last]!;
  if (NOT_A_NAME_BEFORE.has(head.before)) return false;
  return (
    tail.possessive ||
    (head.capitalized && !head.sentenceStart) ||
    NAME_BEFORE.has(head.before) ||
    NAME_AFTER.has(tail.after) ||
    // "Smudge (cat) presented …": what it is, said at once.
    SPECIES_OF_WORD.has(tail.after) ||
    (head.sentenceStart && tail.pauseAfter && head.capitalized)
  );
}

interface Found {
  score: number;
  mentions: number;
  words: Set<string>;
}

/** Every occurrence of a name in the words, scored. */
function findName(
  words: readonly TextWord[],
  form: NameForm,
  weight: number,
  vocabulary: Vocabulary,
  into: Found,
): void {
  const n = form.keys.length;
  for (let i = 0; i + n <= words.length; i++) {
    let strength = 1;
    for (let k = 0; k < n && strength > 0; k++)
      strength = Math.min(strength, strengthOf(words[i + k]!, form.keys[k]!, vocabulary));
    if (strength === 0) continue;
    const asName = usedAsName(words, i, i + n - 1);
    if (form.common && !asName) continue;
    if (!form.common && NOT_A_NAME_BEFORE.has(words[i]!.before) && !words[i]!.capitalized) continue;
    into.score += strength * weight * (asName ? 1.25 : 1);
    into.mentions += 1;
    into.words.add(
      words
        .slice(i, i + n)
        .map((w) => w.text)
        .join(' '),
    );
  }
}

/** Names by first letter, so a record is compared only with the names that could match it. */
function byFirstLetter(patients: readonly PatientCandidate[], vocabulary: Vocabulary) {
  const index = new Map<string, { patient: PatientCandidate; form: NameForm }[]>();
  const named = new Map<string, number>();
  for (const patient of patients) {
    const form = nameForm(patient.name, vocabulary);
    const letter = form.keys[0]?.[0];
    if (!letter) continue;
    index.set(letter, [...(index.get(letter) ?? []), { patient, form }]);
    const key = form.keys.join(' ');
    named.set(key, (named.get(key) ?? 0) + 1);
  }
  return { index, named };
}

/** The known patients a record's transcript and note name, ranked. */
export function matchPatients(
  text: RecordText,
  patients: readonly PatientCandidate[],
  vocabulary: Vocabulary,
): PatientMatch {
  const transcript = textWords(text.transcript);
  const note = textWords(text.note);
  const letters = new Set([...transcript, ...note].map((w) => w.key[0] ?? ''));
  const { index, named } = byFirstLetter(patients, vocabulary);
  const groups = new Map<string, { patient: PatientCandidate; found: Found }[]>();
  for (const letter of letters) {
    for (const { patient, form } of index.get(letter) ?? []) {
      const found: Found = { score: 0, mentions: 0, words: new Set() };
      findName(transcript, form, 1, vocabulary, found);
      findName(note, form, NOTE_WEIGHT, vocabulary, found);
      if (found.score < MIN_SCORE) continue;
      const key = form.keys.join(' ');
      groups.set(key, [...(groups.get(key) ?? []), { patient, found }]);
    }
  }

  const recordSpecies = mainSpecies(speciesMentioned(`${text.transcript}\n${text.note}`));
  const suggestions: PatientSuggestion[] = [];
  const undecided = new Set<string>();
  for (const [key, entries] of groups) {
    const { order, decidedBy } = decide(
      entries.map((e) => e.patient),
      recordSpecies,
    );
    order.forEach((patient, rank) => {
      const { found } = entries.find((e) => e.patient === patient)!;
      if (decidedBy === 'ask') undecided.add(patient.id);
      suggestions.push({
        patientId: patient.id,
        name: patient.name,
        // The one the record decides for keeps its score; the others of its name follow it.
        score: rank > 0 && decidedBy !== 'ask' ? found.score / 2 : found.score,
        words: [...found.words],
        mentions: found.mentions,
        sharedWith: (named.get(key) ?? 1) - 1,
        decidedBy,
      });
    });
  }
  suggestions.sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const best = suggestions[0];
  return { suggestions, first: best && !undecided.has(best.patientId) ? best : null };
}

/** Orders patients of one name: by the species the record mentions, else the room, else asks. */
function decide(
  patients: readonly PatientCandidate[],
  recordSpecies: string | null,
): { order: PatientCandidate[]; decidedBy: Decision } {
  if (patients.length === 1) return { order: [...patients], decidedBy: 'name' };
  if (recordSpecies) {
    // The one known to be of that species; else the only one not known to be of another.
    const same = patients.filter((p) => mainSpecies(p.species) === recordSpecies);
    const possible = patients.filter((p) => [recordSpecies, null].includes(mainSpecies(p.species)));
    const chosen = same.length === 1 ? same[0] : possible.length === 1 ? possible[0] : undefined;
    if (chosen)
      return { order: [chosen, ...patients.filter((p) => p !== chosen)], decidedBy: 'species' };
  }
  const seen = patients
    .filter((p) => p.lastSeenInRoomMs != null)
    .sort((a, b) => b.lastSeenInRoomMs! - a.lastSeenInRoomMs!);
  if (seen[0] && seen[0].lastSeenInRoomMs !== seen[1]?.lastSeenInRoomMs)
    return { order: [seen[0], ...patients.filter((p) => p !== seen[0])], decidedBy: 'room' };
  return { order: [...patients], decidedBy: 'ask' };
}

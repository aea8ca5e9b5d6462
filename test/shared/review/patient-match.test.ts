import { describe, expect, it } from 'vitest';
import { englishVocabulary } from '../../../src/main/review/vocabulary';
import {
  matchPatients,
  speciesMentioned,
  type PatientCandidate,
} from '../../../src/shared/review/patient-match';
import { editDistance, textWords } from '../../../src/shared/review/words';

const vocabulary = englishVocabulary();
const patient = (id: string, name: string, extra: Partial<PatientCandidate> = {}) => ({
  id,
  name,
  ...extra,
});
const CLINIC = [
  patient('p-pepper', 'Pepper'),
  patient('p-poppy', 'Poppy'),
  patient('p-rocky', 'Rocky'),
  patient('p-max', 'Max'),
  patient('p-bear', 'Bear'),
  patient('p-smudge', 'Smudge'),
  patient('p-teddy', 'Teddy'),
  patient('p-whiskers', 'Mr Whiskers'),
];

const spoken = (transcript: string, patients: PatientCandidate[] = CLINIC) =>
  matchPatients({ transcript, note: '' }, patients, vocabulary);
const firstOf = (transcript: string, patients?: PatientCandidate[]) =>
  spoken(transcript, patients).first?.patientId ?? null;

describe('the words of a transcript', () => {
  it('drops speaker labels, folds case and accents, and takes possessives off', () => {
    const words = textWords("Speaker 1: How is Pepper's paw?\nVet: Chloé is here.");
    expect(words.map((w) => w.key)).toEqual(['how', 'is', 'pepper', 'paw', 'chloe', 'is', 'here']);
    expect(words[2]).toMatchObject({ text: "Pepper's", possessive: true, before: 'is' });
    expect(words[4]).toMatchObject({ sentenceStart: true, capitalized: true });
  });

  it('counts a transposition as one edit and gives up past the limit', () => {
    expect(editDistance('rocky', 'rcoky', 1)).toBe(1);
    expect(editDistance('pepper', 'peper', 1)).toBe(1);
    expect(editDistance('pepper', 'pepperoni', 1)).toBe(2);
  });
});

describe('matchPatients: what transcription does to names', () => {
  it('finds a name as spoken, with the words that matched', () => {
    const match = spoken('Vet: Hi there. What has been happening with Pepper?');
    expect(match.first).toMatchObject({ patientId: 'p-pepper', words: ['Pepper'], mentions: 1 });
    expect(match.suggestions).toHaveLength(1);
  });

  it('reads lower case, possessives and a plural-like "s" as the name', () => {
    expect(firstOf("how is pepper's appetite")).toBe('p-pepper');
    expect(firstOf('Speaker 2: I think Smudges breath is bad.')).toBe('p-smudge');
    expect(
      spoken('Speaker 2: I think Smudges breath is bad. Smudge has tartar.').first?.words,
    ).toEqual(['Smudges', 'Smudge']);
  });

  it('forgives a letter off in a name of four letters or more', () => {
    expect(firstOf('I hear Rcoky has been limping.')).toBe('p-rocky');
    expect(firstOf('What has been happening with Peper? She is off her food.')).toBe('p-pepper');
    expect(firstOf('Good afternoon. What brings Tedy in today?')).toBe('p-teddy');
  });

  it('never reads an ordinary word as a misheard name, nor misspells short names', () => {
    // "puppy" is a word, one letter from Poppy; "Mac" is one letter from Max.
    expect(firstOf('The puppy has been sick twice.')).toBeNull();
    expect(firstOf('Mac has been sick twice.')).toBeNull();
    expect(firstOf('Max has been sick twice.')).toBe('p-max');
  });

  it('needs the first letter to agree', () => {
    expect(firstOf('Hello, Weddy. Let me look at you.')).toBeNull();
  });

  it('finds a name of several words, and a name written in the note', () => {
    expect(firstOf('Bring Mr Whiskers through, please.')).toBe('p-whiskers');
    const match = matchPatients(
      { transcript: 'Dental notes for a twelve year old cat.', note: 'S: Smudge (cat) presented.' },
      CLINIC,
      vocabulary,
    );
    expect(match.first).toMatchObject({ patientId: 'p-smudge', words: ['Smudge'] });
  });

  it('ranks the patient named most first, and offers the others', () => {
    const match = spoken(
      'Poppy is here for her recheck. Rocky came in last week. How is Poppy eating? Poppy has been fine.',
    );
    expect(match.suggestions.map((s) => s.patientId)).toEqual(['p-poppy', 'p-rocky']);
    expect(match.first?.mentions).toBe(3);
  });

  it('suggests nobody when no known name is there', () => {
    expect(spoken('Memo. We are low on rabbit recovery food.')).toEqual({
      suggestions: [],
      first: null,
    });
  });
});

describe('matchPatients: names that are also common words', () => {
  it('does not take the word for the name', () => {
    expect(firstOf('Add some pepper to the food, she likes it.')).toBeNull();
    expect(firstOf('A pinch of black pepper is fine.')).toBeNull();
    expect(firstOf('Please bear with me a moment.')).toBeNull();
    expect(firstOf('She played with a teddy bear all night.')).toBeNull();
  });

  it('takes it where it is used as a name', () => {
    expect(firstOf('Come on in and bring pepper with you.')).toBe('p-pepper');
    expect(firstOf('pepper has been off her food.')).toBe('p-pepper');
    expect(firstOf('Hello, Bear. Good boy.')).toBe('p-bear');
    expect(firstOf("I looked at bear's paw.")).toBe('p-bear');
    expect(firstOf('Yesterday Bear limped again.')).toBe('p-bear');
  });
});

describe('matchPatients: patients who share a name', () => {
  const teddies = [
    patient('teddy-dog', 'Teddy', { species: { dog: 5 }, lastSeenInRoomMs: 1000 }),
    patient('teddy-cat', 'Teddy', { species: { cat: 3 }, lastSeenInRoomMs: 2000 }),
    patient('p-rocky', 'Rocky'),
  ];

  it('says so, and decides by the species the record mentions', () => {
    const match = spoken(
      'What brings Teddy in today? Spaniels do love the water. Most dogs do.',
      teddies,
    );
    expect(match.first).toMatchObject({
      patientId: 'teddy-dog',
      sharedWith: 1,
      decidedBy: 'species',
    });
    expect(match.suggestions.map((s) => s.patientId)).toEqual(['teddy-dog', 'teddy-cat']);
  });

  it('decides for the only one not known to be of another species', () => {
    const unknownDog = teddies.map((p) => (p.id === 'teddy-dog' ? { ...p, species: {} } : p));
    const match = spoken('What brings Teddy in today? Spaniels love water.', unknownDog);
    expect(match.first).toMatchObject({ patientId: 'teddy-dog', decidedBy: 'species' });
  });

  it('decides by the one seen most recently in the same room when no species is said', () => {
    const match = spoken('What brings Teddy in today?', teddies);
    expect(match.first).toMatchObject({ patientId: 'teddy-cat', decidedBy: 'room' });
  });

  it('asks when nothing tells them apart', () => {
    const unseen = teddies.map((p) => ({ ...p, lastSeenInRoomMs: null }));
    const match = spoken('What brings Teddy in today?', unseen);
    expect(match.first).toBeNull();
    expect(match.suggestions).toHaveLength(2);
    expect(match.suggestions.every((s) => s.decidedBy === 'ask' && s.sharedWith === 1)).toBe(true);
  });

  it('still offers another name first when it is the one named most', () => {
    const unseen = teddies.map((p) => ({ ...p, lastSeenInRoomMs: null }));
    const match = spoken('Rocky is limping. Rocky needs x-rays. Teddy waited outside.', unseen);
    expect(match.first?.patientId).toBe('p-rocky');
  });
});

describe('speciesMentioned', () => {
  it('counts the species words of a text', () => {
    expect(speciesMentioned('Cats hide pain. My cat and the kitten; the dog barked.')).toEqual({
      cat: 3,
      dog: 1,
    });
  });
});

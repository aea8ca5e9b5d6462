import { describe, expect, it } from 'vitest';
import { spokenLines } from '../../../src/shared/record/spoken-lines';
import { addressedNames, speakerSuggestions } from '../../../src/shared/speakers/suggestions';

const lines = spokenLines(
  [
    'Speaker 1: Good morning. I am Doctor Marsh.',
    'Speaker 2: Hello Doctor Marsh, this is Pepper.',
    'Speaker 1: Mrs Patel, could you hold her head?',
    'Speaker 3: I will ask Nurse Jo to bring the scales.',
    'Speaker 2: Thank you, doctor, for seeing us.',
    'Speaker 3: It is Nurse Jo here, the scales are ready.',
    'Speaker 1: Thanks, Nurse Jo.',
  ].join('\n'),
);

describe('addressedNames', () => {
  it('offers each name for the speaker it fits: the one addressed, or the one introducing themselves', () => {
    expect(
      addressedNames(lines).map(({ label, name, role, times }) => [label, name, role, times]),
    ).toEqual([
      // Said by Speaker 1 of themselves, and to Speaker 1 by Speaker 2.
      ['Speaker 1', 'Doctor Marsh', 'vet', 2],
      // The nurse introduces herself, and is thanked (she spoke just before).
      ['Speaker 3', 'Nurse Jo', 'nurse', 2],
      // Speaker 1 speaks to the owner, who spoke just before.
      ['Speaker 2', 'Mrs Patel', 'owner', 1],
    ]);
  });

  it('does not offer a name that is only mentioned, or a word that is no name', () => {
    const mentioned = spokenLines(
      'Speaker 1: I will ask Doctor Marsh later.\nSpeaker 2: Thank you, doctor, for everything.',
    );
    expect(addressedNames(mentioned)).toEqual([]);
  });

  it('counts a moved line for its new speaker', () => {
    const moved = lines.map((line) => line.speaker);
    moved[5] = 'Speaker 4';
    const names = addressedNames(lines, moved).map((n) => [n.label, n.name, n.times]);
    // Her introduction, and the thanks that follow it, now fit Speaker 4.
    expect(names).toContainEqual(['Speaker 4', 'Nurse Jo', 2]);
    expect(names.filter(([label]) => label === 'Speaker 3')).toEqual([]);
  });
});

describe('speakerSuggestions', () => {
  it('offers the transcript’s names for this speaker first, then earlier ones, matching what is typed', () => {
    const addressed = addressedNames(lines);
    const earlier = [
      { name: 'Dr Anna Marsh', role: 'vet' as const },
      { name: 'Doctor Marsh', role: 'vet' as const },
      { name: 'Tom', role: null },
    ];
    expect(speakerSuggestions('mar', 'Speaker 1', addressed, earlier)).toEqual([
      { name: 'Doctor Marsh', role: 'vet', source: 'transcript' },
      { name: 'Dr Anna Marsh', role: 'vet', source: 'earlier' },
    ]);
    expect(speakerSuggestions('', 'Speaker 2', addressed, earlier, 2)).toEqual([
      { name: 'Mrs Patel', role: 'owner', source: 'transcript' },
      { name: 'Dr Anna Marsh', role: 'vet', source: 'earlier' },
    ]);
  });
});

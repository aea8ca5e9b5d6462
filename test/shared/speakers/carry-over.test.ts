import { describe, expect, it } from 'vitest';
import { spokenLines } from '../../../src/shared/record/spoken-lines';
import { carryOver, droppedNameWords } from '../../../src/shared/speakers/carry-over';
import type { SpeakerOverlay } from '../../../src/shared/speakers/overlay';

/** A consult: the vet (Speaker 1), the owner (Speaker 2) and a nurse (Speaker 3). */
const CONSULT = [
  ['Speaker 1', 'Good morning. Come in and bring Maple with you.'],
  ['Speaker 2', 'Thank you. She is due for her yearly vaccinations.'],
  ['Speaker 1', 'Lovely. How has she been since last year?'],
  ['Speaker 2', 'Really well. Eating, drinking and running about as usual.'],
  ['Speaker 1', 'Any coughing, sneezing, vomiting or diarrhoea recently?'],
  ['Speaker 2', 'No, nothing like that at all.'],
  ['Speaker 3', 'She weighs twenty two kilograms today.'],
  ['Speaker 1', 'That is perfect. Let me listen to her heart and chest.'],
  ['Speaker 2', 'Does she need the kennel cough vaccine as well?'],
  ['Speaker 1', 'If she goes into kennels or meets lots of dogs, yes.'],
  ['Speaker 3', 'I will get the nasal vaccine ready.'],
  ['Speaker 2', 'That is fine. Thank you for checking her over.'],
] as const;

const transcript = (rows: readonly (readonly [string, string])[]) =>
  spokenLines(rows.map(([speaker, text]) => `${speaker}: ${text}`).join('\n'));

const NAMED: SpeakerOverlay = {
  names: [
    { label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' },
    { label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' },
    { label: 'Speaker 3', name: 'Jo', role: 'nurse' },
  ],
  moves: [],
};

const relabel = (map: Record<string, string>) =>
  CONSULT.map(([speaker, text]) => [map[speaker] ?? speaker, text] as const);

describe('carryOver', () => {
  it('carries every name to an identical newer version, and a revision of the same words', () => {
    const same = carryOver(transcript(CONSULT), NAMED, transcript(CONSULT));
    expect(same.overlay.names).toEqual(NAMED.names);
    expect(same.dropped).toEqual([]);
    // A second pass writes contractions: the lines are still the same lines.
    const revised = CONSULT.map(
      ([speaker, text]) =>
        [speaker, text.replace('That is', "That's").replace('I will', "I'll")] as const,
    );
    const result = carryOver(transcript(CONSULT), NAMED, transcript(revised));
    expect(result.overlay.names).toEqual(NAMED.names);
    expect(result.carried.map((c) => [c.from, c.label])).toEqual([
      ['Speaker 1', 'Speaker 1'],
      ['Speaker 2', 'Speaker 2'],
      ['Speaker 3', 'Speaker 3'],
    ]);
  });

  it('follows each person to their new label when the newer version numbers speakers anew', () => {
    // Speakers 1 and 2 swap numbers: with equal shares, the labels alone would put the vet's
    // name on the owner.
    const renumbered = transcript(relabel({ 'Speaker 1': 'Speaker 2', 'Speaker 2': 'Speaker 1' }));
    const result = carryOver(transcript(CONSULT), NAMED, renumbered);
    expect(result.dropped).toEqual([]);
    expect(result.overlay.names).toEqual([
      { label: 'Speaker 2', name: 'Dr Marsh', role: 'vet' },
      { label: 'Speaker 1', name: 'Mrs Patel', role: 'owner' },
      { label: 'Speaker 3', name: 'Jo', role: 'nurse' },
    ]);
    expect(result.carried.find((c) => c.name === 'Dr Marsh')).toMatchObject({
      from: 'Speaker 1',
      label: 'Speaker 2',
    });
  });

  it('drops the name of a speaker split in two, keeping the others', () => {
    // The owner's lines are now two speakers: Speaker 2 and a new Speaker 4.
    let owner = 0;
    const split = CONSULT.map(([speaker, text]) =>
      speaker === 'Speaker 2'
        ? ([owner++ % 2 === 0 ? 'Speaker 2' : 'Speaker 4', text] as const)
        : ([speaker, text] as const),
    );
    const result = carryOver(transcript(CONSULT), NAMED, transcript(split));
    expect(result.overlay.names.map((n) => n.name)).toEqual(['Dr Marsh', 'Jo']);
    expect(result.dropped).toEqual([
      {
        label: 'Speaker 2',
        name: 'Mrs Patel',
        role: 'owner',
        reason: 'split',
        into: ['Speaker 2', 'Speaker 4'],
      },
    ]);
    expect(droppedNameWords(result.dropped[0]!)).toBe(
      '“Mrs Patel” (Speaker 2) was not carried over: Speaker 2’s lines are split between Speaker 2 and Speaker 4 in this version.',
    );
  });

  it('drops the name of a speaker gone from the newer version, whether cut or merged', () => {
    const cut = CONSULT.filter(([speaker]) => speaker !== 'Speaker 3');
    const gone = carryOver(transcript(CONSULT), NAMED, transcript(cut));
    expect(gone.overlay.names.map((n) => n.name)).toEqual(['Dr Marsh', 'Mrs Patel']);
    expect(gone.dropped).toMatchObject([{ name: 'Jo', label: 'Speaker 3', reason: 'gone' }]);
    expect(droppedNameWords(gone.dropped[0]!)).toContain('Speaker 3 is not in this version');

    // The nurse's lines given to the vet: Speaker 3 merged into Speaker 1. Neither name is
    // put on Speaker 1 now: two of its seven lines are the nurse's, so "Dr Marsh" would name
    // her too. The owner keeps hers.
    const merged = carryOver(
      transcript(CONSULT),
      NAMED,
      transcript(relabel({ 'Speaker 3': 'Speaker 1' })),
    );
    expect(merged.dropped).toMatchObject([
      { name: 'Dr Marsh', label: 'Speaker 1', reason: 'merged', into: ['Speaker 1'] },
      { name: 'Jo', label: 'Speaker 3', reason: 'merged', into: ['Speaker 1'] },
    ]);
    expect(droppedNameWords(merged.dropped[1]!)).toContain(
      'Speaker 3’s lines are part of Speaker 1’s in this version',
    );
    expect(merged.overlay.names).toEqual([
      { label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' },
    ]);
  });

  it('counts only the lines both versions have: lines added to a speaker keep their name', () => {
    // The nurse says three lines the earlier version did not have: she is still Speaker 3.
    const talkative = transcript([
      ...CONSULT,
      ...Array.from(
        { length: 3 },
        (_, i) => ['Speaker 3', `Extra note number ${i} about the weight.`] as const,
      ),
    ]);
    expect(carryOver(transcript(CONSULT), NAMED, talkative).overlay.names).toEqual(NAMED.names);
  });

  it('drops a name whose lines changed too much to tell, and every name when no words match', () => {
    // Three of the vet's five lines are said in other words: two found are not enough.
    let rewritten = 0;
    const reworded = CONSULT.map(([speaker, text]) =>
      speaker === 'Speaker 1' && rewritten++ < 3
        ? ([speaker, `Quite different wording number ${rewritten}.`] as const)
        : ([speaker, text] as const),
    );
    const changed = carryOver(transcript(CONSULT), NAMED, transcript(reworded));
    expect(changed.dropped).toMatchObject([{ name: 'Dr Marsh', reason: 'changed' }]);
    expect(droppedNameWords(changed.dropped[0]!)).toContain('changed too much');
    expect(changed.overlay.names.map((n) => n.name)).toEqual(['Mrs Patel', 'Jo']);
    const unrelated = transcript(
      CONSULT.map(([speaker], i) => [speaker, `Other words ${i}`] as const),
    );
    const result = carryOver(transcript(CONSULT), NAMED, unrelated);
    expect(result.overlay.names).toEqual([]);
    expect(result.dropped.map((d) => d.reason)).toEqual(['gone', 'gone', 'gone']);
  });

  it('carries a moved line with its words, and lets go of one the newer version agrees with', () => {
    const overlay: SpeakerOverlay = {
      names: NAMED.names,
      // Line 6 ("She weighs…") was the vet's, and line 10 the owner's (say).
      moves: [
        { line: 6, label: 'Speaker 1' },
        { line: 10, label: 'Speaker 2' },
      ],
    };
    // The newer version inserts a line at the top and already gives line 10's words to Speaker 2.
    const newer = transcript([
      ['Speaker 1', 'Before we start, a quick hello.'],
      ...CONSULT.map(([speaker, text], i) => [i === 10 ? 'Speaker 2' : speaker, text] as const),
    ]);
    const result = carryOver(transcript(CONSULT), overlay, newer);
    expect(result.overlay.moves).toEqual([{ line: 7, label: 'Speaker 1' }]);
    expect(result.droppedMoves).toBe(0);
    // A move to a speaker that is gone cannot be placed.
    const cut = transcript(CONSULT.filter(([speaker]) => speaker !== 'Speaker 3'));
    const lost = carryOver(
      transcript(CONSULT),
      { names: [], moves: [{ line: 0, label: 'Speaker 3' }] },
      cut,
    );
    expect(lost.overlay.moves).toEqual([]);
    expect(lost.droppedMoves).toBe(1);
  });
});

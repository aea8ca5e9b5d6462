import { describe, expect, it } from 'vitest';
import { diffSequences, diffWords, type DiffSegment } from '../../src/shared/text-diff';

/** The text of one side: the unchanged runs plus that side's changes. */
const side = (segments: DiffSegment[], changed: 'insert' | 'delete') =>
  segments
    .filter((s) => s.op === 'equal' || s.op === changed)
    .map((s) => s.text)
    .join('');
/** Whitespace is not compared, so sides are compared with it normalised. */
const words = (text: string) =>
  text
    .replace(/([^\p{L}\p{N}'’\s])/gu, ' $1 ')
    .split(/\s+/)
    .filter(Boolean);

/** The length of a longest common subsequence, by the textbook table. */
function lcsLength(a: number[], b: number[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const row = [0];
    for (let j = 0; j < b.length; j++)
      row.push(x === b[j] ? previous[j]! + 1 : Math.max(previous[j + 1]!, row[j]!));
    previous = row;
  }
  return previous[b.length]!;
}

/** A small deterministic generator (mulberry32), so failures reproduce. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('diffSequences (Myers, linear space)', () => {
  it('finds a shortest edit script: as many equal steps as the longest common subsequence', () => {
    const next = random(7);
    for (let round = 0; round < 300; round++) {
      const a = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 5));
      const b = Array.from({ length: Math.floor(next() * 40) }, () => Math.floor(next() * 5));
      const ops = diffSequences(a, b);
      // Replaying the script over a gives b, and it consumes all of both.
      const out: number[] = [];
      let i = 0;
      let j = 0;
      for (const op of ops) {
        if (op === 'equal') {
          expect(a[i]).toBe(b[j]);
          out.push(a[i++]!);
          j++;
        } else if (op === 'delete') i++;
        else out.push(b[j++]!);
      }
      expect(out).toEqual(b);
      expect(i).toBe(a.length);
      expect(ops.filter((op) => op === 'equal')).toHaveLength(lcsLength(a, b));
    }
  });

  it('still answers a correct (if longer) script when the step budget runs out', () => {
    const a = Array.from({ length: 400 }, (_, i) => i % 7);
    const b = Array.from({ length: 400 }, (_, i) => (i * 3) % 11);
    const ops = diffSequences(a, b, { maxSteps: 50 });
    expect(ops.filter((op) => op !== 'insert')).toHaveLength(a.length);
    expect(ops.filter((op) => op !== 'delete')).toHaveLength(b.length);
  });
});

describe('diffWords', () => {
  it('shows a regenerated word replaced and the punctuation kept', () => {
    const diff = diffWords(
      'Speaker 1: She has a cough.\nSpeaker 2: Since [inaudible]?',
      'Speaker 1: She has a [inaudible].\nSpeaker 2: Since Tuesday?',
    );
    expect(diff.segments).toEqual([
      { op: 'equal', text: 'Speaker 1: She has a ' },
      { op: 'delete', text: 'cough' },
      { op: 'equal', text: ' ' },
      { op: 'insert', text: '[inaudible]' },
      { op: 'equal', text: '.\nSpeaker 2: Since ' },
      { op: 'delete', text: '[inaudible]' },
      { op: 'equal', text: ' ' },
      { op: 'insert', text: 'Tuesday' },
      { op: 'equal', text: '?' },
    ]);
    expect(diff).toMatchObject({ inserted: 2, deleted: 2 });
  });

  it('reads a replaced phrase as one deletion and one insertion, spaces outside', () => {
    expect(diffWords('keep a b c keep', 'keep x y z keep').segments).toEqual([
      { op: 'equal', text: 'keep ' },
      { op: 'delete', text: 'a b c' },
      { op: 'equal', text: ' ' },
      { op: 'insert', text: 'x y z' },
      { op: 'equal', text: ' keep' },
    ]);
  });

  it('handles identical, empty and whitespace-only versions', () => {
    expect(diffWords('same text\n', 'same text\n')).toEqual({
      segments: [{ op: 'equal', text: 'same text\n' }],
      inserted: 0,
      deleted: 0,
    });
    expect(diffWords('', 'new words')).toMatchObject({
      segments: [{ op: 'insert', text: 'new words' }],
      inserted: 2,
    });
    expect(diffWords('old words', '')).toMatchObject({
      segments: [{ op: 'delete', text: 'old words' }],
      deleted: 2,
    });
    expect(diffWords('  ', '').segments).toEqual([]);
  });

  it('keeps every word of both versions, in order, for any pair of texts', () => {
    const next = random(11);
    const vocabulary = ['the', 'dog', 'cat', '.', ',', 'ate', 'Speaker', '1:', '\n', 'é', '<b>'];
    const text = () =>
      Array.from(
        { length: Math.floor(next() * 30) },
        () => vocabulary[Math.floor(next() * vocabulary.length)],
      ).join(next() < 0.5 ? ' ' : '  ');
    for (let round = 0; round < 200; round++) {
      const before = text();
      const after = text();
      const { segments } = diffWords(before, after);
      expect(words(side(segments, 'delete'))).toEqual(words(before));
      expect(words(side(segments, 'insert'))).toEqual(words(after));
      // No empty segments and no two neighbours with the same op.
      for (const [i, segment] of segments.entries()) {
        expect(segment.text).not.toBe('');
        if (i > 0) expect(segment.op).not.toBe(segments[i - 1]!.op);
      }
    }
  });

  it('diffs two long transcript versions (15,000 words each)', () => {
    const line = (i: number) => `Speaker ${(i % 2) + 1}: line ${i} about the patient's cough.`;
    const before = Array.from({ length: 2000 }, (_, i) => line(i)).join('\n');
    const after = Array.from({ length: 2000 }, (_, i) =>
      i % 50 === 7 ? line(i).replace('cough', '[inaudible]') : line(i),
    ).join('\n');
    const diff = diffWords(before, after);
    expect(diff).toMatchObject({ inserted: 40, deleted: 40 });
    expect(words(side(diff.segments, 'insert'))).toEqual(words(after));
  });
});

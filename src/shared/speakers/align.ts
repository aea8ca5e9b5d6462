import { diffSequences } from '../text-diff';

/**
 * Which line of one transcript version is which line of another, by their words: lines with the
 * same words (case and punctuation aside) are matched by a shortest edit script over the lines,
 * and between two matched stretches, a run of changed lines that has as many lines on both sides
 * is paired line by line where each pair still shares most of its words (a second pass of
 * transcription that writes "I'm" for "I am"). A line split, merged or rewritten stays unpaired.
 */

/** How much of their words two changed lines must share to be taken as the same line. */
const SAME_LINE_WORDS = 0.5;

const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

/** Dice's coefficient of the two lines' word sets (1: the same words). */
function sharedWords(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  const left = new Set(a);
  const right = new Set(b);
  let both = 0;
  for (const word of left) if (right.has(word)) both++;
  return (2 * both) / (left.size + right.size);
}

/**
 * For each line of `newer`, the index of the line of `older` it is, or null. Each older line is
 * given to one newer line at most, and pairs keep their order.
 */
export function alignLines(
  older: readonly { text: string }[],
  newer: readonly { text: string }[],
): (number | null)[] {
  const olderWords = older.map((line) => wordsOf(line.text));
  const newerWords = newer.map((line) => wordsOf(line.text));
  const ids = new Map<string, number>();
  const idOf = (words: string[]) => {
    const key = words.join(' ');
    let id = ids.get(key);
    if (id === undefined) ids.set(key, (id = ids.size));
    return id;
  };
  const a = Int32Array.from(olderWords, idOf);
  const b = Int32Array.from(newerWords, idOf);

  const paired: (number | null)[] = new Array<number | null>(newer.length).fill(null);
  let i = 0;
  let j = 0;
  let deleted: number[] = [];
  let inserted: number[] = [];
  const pairChanged = () => {
    if (deleted.length === inserted.length) {
      deleted.forEach((older, k) => {
        const newerIndex = inserted[k]!;
        if (sharedWords(olderWords[older]!, newerWords[newerIndex]!) >= SAME_LINE_WORDS)
          paired[newerIndex] = older;
      });
    }
    deleted = [];
    inserted = [];
  };
  for (const op of diffSequences(a, b)) {
    if (op === 'equal') {
      pairChanged();
      paired[j++] = i++;
    } else if (op === 'delete') {
      deleted.push(i++);
    } else {
      inserted.push(j++);
    }
  }
  pairChanged();
  return paired;
}

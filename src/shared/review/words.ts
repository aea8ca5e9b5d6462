/**
 * Words of a transcript or note as the patient matcher reads them: each with its place in its
 * sentence and its neighbours, normalized the way transcription varies names (case, accents,
 * possessives), the text as written kept for showing.
 */

export interface TextWord {
  /** As written ("Pepper's"). */
  text: string;
  /** Lower case, accents and a possessive ending removed ("pepper"). */
  key: string;
  possessive: boolean;
  /** Written with a capital letter. */
  capitalized: boolean;
  /** The first word of its sentence (or line), where a capital says nothing. */
  sentenceStart: boolean;
  /** The word before and after in the same sentence (their keys), '' at its ends. */
  before: string;
  after: string;
  /** A comma or the sentence's end follows (a name called out: "Hello, Poppy."). */
  pauseAfter: boolean;
}

const WORD = /[\p{L}\p{M}][\p{L}\p{M}'’]*/gu;
/** "Vet:", "Speaker 2:", "S:" at the start of a line: who speaks or which section, not words. */
const LINE_LABEL = /^[^\S\n]*[\p{L}][\p{L}\d ]{0,30}:/gmu;

/** Lower case without accents; the apostrophe kinds made one. */
export const foldCase = (text: string): string =>
  text.normalize('NFD').replace(/\p{M}/gu, '').replace(/’/g, "'").toLowerCase();

/** A word's key: folded, a possessive ("Pepper's", "Bones'") taken off. */
function wordKey(text: string): { key: string; possessive: boolean } {
  const folded = foldCase(text);
  if (folded.endsWith("'s")) return { key: folded.slice(0, -2), possessive: true };
  if (folded.endsWith("'")) return { key: folded.slice(0, -1), possessive: true };
  return { key: folded.replace(/'/g, ''), possessive: false };
}

/** The words of a text, sentence by sentence. */
export function textWords(text: string): TextWord[] {
  const words: TextWord[] = [];
  for (const line of text.replace(LINE_LABEL, '').split('\n')) {
    for (const sentence of line.split(/(?<=[.?!;])\s+/)) {
      const found = [...sentence.matchAll(WORD)];
      found.forEach((match, i) => {
        // A trailing apostrophe is a possessive after an s ("Bones'"), else a closing quote.
        const raw = /s['’]$/i.test(match[0]) ? match[0] : match[0].replace(/['’]+$/, '');
        const { key, possessive } = wordKey(raw);
        const end = (match.index ?? 0) + match[0].length;
        const rest = sentence.slice(end, end + 2);
        words.push({
          text: raw,
          key,
          possessive,
          capitalized: /^\p{Lu}/u.test(raw),
          sentenceStart: i === 0,
          before: i > 0 ? wordKey(found[i - 1]![0]).key : '',
          after: i + 1 < found.length ? wordKey(found[i + 1]![0]).key : '',
          pauseAfter: /^\s*[,.?!;:]/.test(rest) || i + 1 === found.length,
        });
      });
    }
  }
  return words;
}

/**
 * Damerau–Levenshtein distance (adjacent transpositions count one), given up past `limit`:
 * enough to tell "a letter off" from another word.
 */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, before[j - 2]! + 1);
      row.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = row;
  }
  return previous[b.length]!;
}

import { foldCase } from '../review/words';

/**
 * The transcript line a search hit points at: the first line holding the most of the search's
 * words. Words compare as the full-text index does, loosely: folded case and accents, and a word
 * matches one that begins with it or that it begins with (the index's prefixes and stems:
 * "vaccinat", "vaccination", "vaccinations"), for words of four letters or more.
 */
export function lineMatching(lines: readonly { text: string }[], query: string): number | null {
  const terms = [...new Set(wordsOf(query))].filter((term) => term.length >= 2);
  if (terms.length === 0) return null;
  let best: number | null = null;
  let bestScore = 0;
  lines.forEach((line, index) => {
    const words = wordsOf(line.text);
    const score = terms.filter((term) => words.some((word) => sameWord(word, term))).length;
    if (score > bestScore) {
      best = index;
      bestScore = score;
    }
  });
  return best;
}

const wordsOf = (text: string): string[] =>
  foldCase(text)
    .split(/[^\p{L}\p{N}']+/u)
    .map((w) => w.replace(/^'+|'+$/g, ''))
    .filter(Boolean);

function sameWord(word: string, term: string): boolean {
  if (word === term) return true;
  const [short, long] = word.length < term.length ? [word, term] : [term, word];
  return short.length >= 4 && long.startsWith(short);
}

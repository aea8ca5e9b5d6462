import { describe, expect, it } from 'vitest';
import { lineMatching } from '../../../src/shared/record/search-line';

const lines = [
  { text: 'Good morning. Come on in and bring Maple with you.' },
  { text: 'She is due for her yearly vaccinations.' },
  { text: 'Her heart sounds normal and her chest is nice and clear.' },
  { text: 'Does she need the kennel cough vaccine as well?' },
];

describe('lineMatching', () => {
  it('finds the first line holding the most of the search’s words', () => {
    expect(lineMatching(lines, 'heart')).toBe(2);
    expect(lineMatching(lines, 'kennel cough')).toBe(3);
    expect(lineMatching(lines, 'her chest')).toBe(2);
    expect(lineMatching(lines, 'maple')).toBe(0);
  });

  it('matches as the index does: case, accents, prefixes and stems', () => {
    expect(lineMatching(lines, 'VACCINATION')).toBe(1);
    expect(lineMatching(lines, 'vaccin*')).toBe(1);
    expect(lineMatching([{ text: 'Chloé is here.' }], 'chloe')).toBe(0);
  });

  it('answers null when no line holds a word of the search, or the search has none', () => {
    expect(lineMatching(lines, 'rabbit')).toBeNull();
    expect(lineMatching(lines, '"" *')).toBeNull();
    expect(lineMatching([], 'heart')).toBeNull();
  });
});

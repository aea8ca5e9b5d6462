import { describe, expect, it } from 'vitest';
import { MINUTE_MS, type TimelineMinute } from '../../src/shared/api';
import { adjacentConsult, suggestConsults, type Consult } from '../../src/shared/timeline';

const BASE = Date.parse('2026-06-15T07:00:00Z');
const at = (n: number) => BASE + n * MINUTE_MS;
const minute = (n: number, speech: boolean): TimelineMinute => ({
  minuteStartMs: at(n),
  vadIsSilent: !speech,
  vadSpeechDurationMs: speech ? 20_000 : 0,
  transcriptText: '',
  diarizedTranscriptText: '',
});
/** Minutes from a picture: S speech, . silence, space no data; minute 0 is the first character. */
const day = (picture: string): TimelineMinute[] =>
  [...picture].flatMap((c, n) => (c === ' ' ? [] : [minute(n, c === 'S')]));
/** Consults as [first minute, end minute, speech minutes]. */
const shape = (consults: Consult[]) =>
  consults.map((c) => [
    (c.startMs - BASE) / MINUTE_MS,
    (c.endMs - BASE) / MINUTE_MS,
    c.speechMinutes,
  ]);

describe('suggestConsults', () => {
  it('joins speech minutes across a gap of exactly 3 silent or missing minutes', () => {
    expect(shape(suggestConsults(day('..SS...SS..')))).toEqual([[2, 9, 4]]);
    expect(shape(suggestConsults(day('..SS. .SS..')))).toEqual([[2, 9, 4]]);
    expect(shape(suggestConsults(day('..SS   SS..')))).toEqual([[2, 9, 4]]);
  });

  it('splits at a gap of 4, one more than the threshold', () => {
    expect(shape(suggestConsults(day('..SS....SS..')))).toEqual([
      [2, 4, 2],
      [8, 10, 2],
    ]);
    expect(shape(suggestConsults(day('SS. ..SS')))).toEqual([
      [0, 2, 2],
      [6, 8, 2],
    ]);
  });

  it('runs from the first speech minute to the end of the last, never on silence', () => {
    const [consult] = suggestConsults(day('....S.S.S....'));
    expect(consult).toEqual({ startMs: at(4), endMs: at(9), speechMinutes: 3 });
  });

  it('drops a lone speech minute, keeps two', () => {
    expect(suggestConsults(day('....S.......'))).toEqual([]);
    expect(shape(suggestConsults(day('S........S....S')))).toEqual([]);
    expect(shape(suggestConsults(day('S.......S.S')))).toEqual([[8, 11, 2]]);
  });

  it('splits a 150-minute speech stretch so no piece exceeds 90 minutes', () => {
    const consults = suggestConsults(day('.'.repeat(10) + 'S'.repeat(150) + '.'.repeat(10)));
    expect(consults.length).toBeGreaterThanOrEqual(2);
    for (const c of consults) expect(c.endMs - c.startMs).toBeLessThanOrEqual(90 * MINUTE_MS);
    expect(shape(consults)).toEqual([
      [10, 85, 75],
      [85, 160, 75],
    ]);
  });

  it('splits an over-long cluster at its largest inner gap, recursively', () => {
    // Three visits joined by short pauses: 50 speech, gap 3, 50 speech, gap 2, 50 speech.
    const picture = 'S'.repeat(50) + '...' + 'S'.repeat(50) + '..' + 'S'.repeat(50);
    expect(shape(suggestConsults(day(picture)))).toEqual([
      [0, 50, 50],
      [53, 103, 50],
      [105, 155, 50],
    ]);
    // 60 + gap 1 + 60: the only gap is the split even though the halves are uneven elsewhere.
    expect(shape(suggestConsults(day('S'.repeat(20) + '.' + 'S'.repeat(100))))).toEqual([
      [0, 20, 20],
      [21, 71, 50],
      [71, 121, 50],
    ]);
  });

  it('takes unsorted, repeated minutes and honours its options', () => {
    const minutes = day('SS.....SS').reverse();
    expect(shape(suggestConsults([...minutes, ...minutes]))).toEqual([
      [0, 2, 2],
      [7, 9, 2],
    ]);
    expect(shape(suggestConsults(minutes, { maxGapMinutes: 5 }))).toEqual([[0, 9, 4]]);
    expect(shape(suggestConsults(minutes, { minSpeechMinutes: 3 }))).toEqual([]);
    const capped = suggestConsults(day('S'.repeat(30)), { capMs: 10 * MINUTE_MS });
    expect(shape(capped)).toEqual([
      [0, 7, 7],
      [7, 15, 8],
      [15, 22, 7],
      [22, 30, 8],
    ]);
    expect(suggestConsults([])).toEqual([]);
  });
});

describe('adjacentConsult', () => {
  const consults = suggestConsults(day('SS....SS....SS'));
  const [first, second, third] = consults;

  it('finds the next consult starting after a time and the previous starting before it', () => {
    expect(consults).toHaveLength(3);
    expect(adjacentConsult(consults, at(3), 1)).toBe(second);
    expect(adjacentConsult(consults, at(3), -1)).toBe(first);
    expect(adjacentConsult(consults, at(6), 1)).toBe(third);
    expect(adjacentConsult(consults, at(6), -1)).toBe(first);
    expect(adjacentConsult(consults, at(7), -1)).toBe(second);
  });

  it('returns undefined past the first and the last', () => {
    expect(adjacentConsult(consults, at(0), -1)).toBeUndefined();
    expect(adjacentConsult(consults, at(12), 1)).toBeUndefined();
    expect(adjacentConsult(consults, at(-5), 1)).toBe(first);
    expect(adjacentConsult(consults, at(100), -1)).toBe(third);
    expect(adjacentConsult([], at(5), 1)).toBeUndefined();
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteRanges } from '../../../src/main/audio/byte-ranges';

describe('ByteRanges', () => {
  it('keeps ranges sorted and merged, touching ones joined', () => {
    const ranges = new ByteRanges([
      [50, 60],
      [0, 10],
      [10, 20],
      [55, 70],
      [30, 30],
    ]);
    expect(ranges.list()).toEqual([
      [0, 20],
      [50, 70],
    ]);
    expect(ranges.size()).toBe(40);
    ranges.add(15, 55);
    expect(ranges.list()).toEqual([[0, 70]]);
  });

  it('answers what is present and what is missing', () => {
    const ranges = new ByteRanges([
      [0, 100],
      [200, 300],
    ]);
    expect(ranges.covers(10, 100)).toBe(true);
    expect(ranges.covers(90, 210)).toBe(false);
    expect(ranges.presentUntil(50)).toBe(100);
    expect(ranges.presentUntil(150)).toBe(150);
    expect(ranges.firstMissing(0, 400)).toBe(100);
    expect(ranges.firstMissing(250, 400)).toBe(300);
    expect(ranges.firstMissing(250, 300)).toBeUndefined();
    expect(ranges.gapEnd(100, 400)).toBe(200);
    expect(ranges.gapEnd(300, 400)).toBe(400);
    expect(ranges.complete(300)).toBe(false);
    ranges.add(100, 200);
    expect(ranges.complete(300)).toBe(true);
  });

  it('agrees with a byte-by-byte model, whatever was added', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(200), fc.nat(40)), { maxLength: 20 }), (adds) => {
        const total = 260;
        const model = new Uint8Array(total);
        const ranges = new ByteRanges();
        for (const [start, length] of adds) {
          ranges.add(start, start + length);
          model.fill(1, start, start + length);
        }
        for (let i = 0; i < total; i++) {
          expect(ranges.covers(i, i + 1)).toBe(model[i] === 1);
        }
        expect(ranges.size()).toBe(model.reduce((a, b) => a + b, 0));
        const firstMissing = model.indexOf(0);
        expect(ranges.firstMissing(0, total)).toBe(firstMissing === -1 ? undefined : firstMissing);
        const spans = ranges.list();
        for (let i = 1; i < spans.length; i++)
          expect(spans[i]![0]).toBeGreaterThan(spans[i - 1]![1]);
      }),
    );
  });
});

/**
 * Sets of byte ranges: which parts of a partially cached file are present. Ranges are half-open
 * [start, end), kept sorted and merged (touching ranges become one), so a file of any size is a
 * handful of numbers however it was filled.
 */

export type ByteSpan = readonly [start: number, end: number];

export class ByteRanges {
  private spans: [number, number][] = [];

  constructor(spans: Iterable<ByteSpan> = []) {
    for (const [start, end] of spans) this.add(start, end);
  }

  /** The ranges, sorted and merged. */
  list(): ByteSpan[] {
    return this.spans.map(([start, end]) => [start, end] as const);
  }

  /** Bytes present in all. */
  size(): number {
    return this.spans.reduce((total, [start, end]) => total + end - start, 0);
  }

  add(start: number, end: number): void {
    if (!(end > start)) return;
    const merged: [number, number][] = [];
    let next: [number, number] = [start, end];
    let placed = false;
    for (const span of this.spans) {
      if (span[1] < next[0]) {
        merged.push(span);
      } else if (span[0] > next[1]) {
        if (!placed) merged.push(next);
        placed = true;
        merged.push(span);
      } else {
        next = [Math.min(span[0], next[0]), Math.max(span[1], next[1])];
      }
    }
    if (!placed) merged.push(next);
    this.spans = merged;
  }

  clear(): void {
    this.spans = [];
  }

  /** Whether every byte of [start, end) is present. */
  covers(start: number, end: number): boolean {
    if (!(end > start)) return true;
    return this.spans.some(([s, e]) => s <= start && e >= end);
  }

  /** Where the present run holding `offset` ends, or `offset` itself when that byte is missing. */
  presentUntil(offset: number): number {
    const span = this.spans.find(([s, e]) => s <= offset && offset < e);
    return span ? span[1] : offset;
  }

  /** The first missing byte at or after `from` and before `total`, or undefined. */
  firstMissing(from: number, total: number): number | undefined {
    let offset = Math.max(0, from);
    for (const [s, e] of this.spans) {
      if (e <= offset) continue;
      if (s > offset) break;
      offset = e;
    }
    return offset < total ? offset : undefined;
  }

  /** Where the gap starting at `offset` ends: the next present byte, or `total`. */
  gapEnd(offset: number, total: number): number {
    const next = this.spans.find(([s]) => s > offset);
    return Math.min(next ? next[0] : total, total);
  }

  /** Whether [0, total) is all present. */
  complete(total: number): boolean {
    return total === 0 || this.covers(0, total);
  }
}

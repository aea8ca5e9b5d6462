import { describe, expect, it } from 'vitest';
import { timeAxis } from '../../../src/shared/record/time-axis';

const MINUTE = 60_000;
const start = Date.UTC(2026, 10, 23, 10, 51, 17);

describe('timeAxis', () => {
  it('never places two labels closer than a label is wide, at any length and width', () => {
    for (const durationMs of [5_000, 45_000, 10 * MINUTE, 90 * MINUTE, 8 * 60 * MINUTE]) {
      for (const widthPx of [200, 700, 1024, 1440, 3000]) {
        const { labels } = timeAxis({ startMs: start, durationMs, widthPx, labelPx: 64 });
        for (let i = 1; i < labels.length; i++) {
          expect(labels[i]!.x - labels[i - 1]!.x).toBeGreaterThanOrEqual(64);
        }
        expect(labels.every(({ x }) => x >= 0 && x + 32 <= widthPx)).toBe(true);
      }
    }
  });

  it('puts labels on round clock times of the clinic zone, as dense as the width allows', () => {
    const axis = timeAxis({ startMs: start, durationMs: 90 * MINUTE, widthPx: 900, labelPx: 60 });
    // 900 px for 90 minutes: 10 px a minute, so a label every 10 minutes (5 would be 50 px).
    expect(axis.stepMs).toBe(10 * MINUTE);
    const clocks = axis.labels.map(({ offsetMs }) =>
      new Date(start + offsetMs).toISOString().slice(11, 16),
    );
    expect(clocks.slice(0, 3)).toEqual(['11:00', '11:10', '11:20']);
    // A zone half an hour off UTC moves the round times with it.
    const india = timeAxis({
      startMs: start,
      durationMs: 90 * MINUTE,
      widthPx: 900,
      labelPx: 60,
      zoneOffsetMs: 5.5 * 60 * MINUTE,
    });
    const local = (offsetMs: number) =>
      new Date(start + offsetMs + 5.5 * 60 * MINUTE).toISOString().slice(11, 16);
    expect(local(india.labels[0]!.offsetMs)).toBe('16:30');
  });

  it('adds ticks between labels only where they stay apart, never on a label', () => {
    const axis = timeAxis({ startMs: 0, durationMs: 90 * MINUTE, widthPx: 1440, labelPx: 60 });
    expect(axis.ticks.length).toBeGreaterThan(0);
    const labelXs = new Set(axis.labels.map((l) => Math.round(l.x * 1000)));
    expect(axis.ticks.some((x) => labelXs.has(Math.round(x * 1000)))).toBe(false);
    const sorted = [...axis.ticks].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++)
      expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(6);
  });

  it('draws nothing for audio of no length or an axis of no width', () => {
    expect(timeAxis({ startMs: 0, durationMs: 0, widthPx: 500, labelPx: 60 }).labels).toEqual([]);
    expect(timeAxis({ startMs: 0, durationMs: MINUTE, widthPx: 0, labelPx: 60 }).labels).toEqual(
      [],
    );
  });
});

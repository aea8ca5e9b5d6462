/**
 * The time axis under a waveform: where its labels and ticks go, chosen from the pixels
 * available so no two labels overlap at any length or width. Labels fall on round clock times
 * (10:15, 10:30 …) of the clinic's zone, not on offsets from an arbitrary start.
 */

/** Label steps a reader counts in easily, in seconds. */
const STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600];
/** Ticks closer than this blur into a bar. */
const MIN_TICK_GAP_PX = 6;

export interface AxisInput {
  /** The clock time of the audio's first sample (epoch ms); 0 labels elapsed time instead. */
  startMs: number;
  durationMs: number;
  widthPx: number;
  /** The widest label's width plus the gap wanted between two labels. */
  labelPx: number;
  /** The clinic zone's offset from UTC at the start (ms), so labels fall on its round times. */
  zoneOffsetMs?: number;
}

export interface Axis {
  stepMs: number;
  /** Labels: their time from the start of the audio and their x. */
  labels: { offsetMs: number; x: number }[];
  /** Tick marks between labels (x only). */
  ticks: number[];
}

export function timeAxis(input: AxisInput): Axis {
  const { startMs, durationMs, widthPx, labelPx, zoneOffsetMs = 0 } = input;
  if (!(durationMs > 0) || !(widthPx > 0)) return { stepMs: 0, labels: [], ticks: [] };
  const pxPerMs = widthPx / durationMs;
  const stepS = STEPS_S.find((s) => s * 1000 * pxPerMs >= labelPx) ?? STEPS_S.at(-1)!;
  const stepMs = stepS * 1000;
  const tickMs = tickStep(stepS) * 1000;
  // The first round time at or after the start, in the clinic's wall clock.
  const first = (step: number) => {
    const wall = startMs + zoneOffsetMs;
    return Math.ceil(wall / step) * step - wall;
  };
  const labels: Axis['labels'] = [];
  for (let offset = first(stepMs); offset <= durationMs; offset += stepMs) {
    const x = offset * pxPerMs;
    // The last label must fit inside the axis, whole.
    if (x + labelPx / 2 <= widthPx) labels.push({ offsetMs: offset, x });
  }
  const ticks: number[] = [];
  if (tickMs * pxPerMs >= MIN_TICK_GAP_PX) {
    for (let offset = first(tickMs); offset <= durationMs; offset += tickMs) {
      if ((offset - first(stepMs)) % stepMs !== 0) ticks.push(offset * pxPerMs);
    }
  }
  return { stepMs, labels, ticks };
}

/** A tick step that divides the label step into a few even parts. */
function tickStep(labelS: number): number {
  for (const parts of [5, 4, 6, 3, 2]) {
    const step = labelS / parts;
    if (Number.isInteger(step) && STEPS_S.includes(step)) return step;
  }
  return labelS;
}

// What every benchmark reports: each figure beside its target and beside a baseline measured in
// the same run, printed as a table and written to bench/results/<name>.json (kept out of git).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { benchDir } from './paths';

/**
 * The units a figure may carry, and which way its target goes: a time, a size or a ratio must
 * stay at most the target; a rate must reach at least it.
 */
const UNITS = {
  ms: 'at most',
  s: 'at most',
  h: 'at most',
  /** Bytes, e.g. a cache's size per record. */
  B: 'at most',
  MB: 'at most',
  '×': 'at most',
  '%': 'at most',
  /** A share that must reach its target (coverage, precision). */
  '% at least': 'at least',
  'labels/s': 'at least',
  /** A share of what a limit allows (e.g. requests under a rate limit). */
  '× allowed': 'at least',
} as const;
export type Unit = keyof typeof UNITS;

/** Set by bench/run.ts for each benchmark it starts: written into its results, to find them. */
export const RUN_ID = 'EARMARK_BENCH_RUN_ID';

export interface Figure {
  /** What is measured, e.g. "draw, median". */
  figure: string;
  unit: Unit;
  /** null when nothing could be measured (the table says "none"). */
  measured: number | null;
  /**
   * The spec's target: measured must be at most this, or at least it for a rate (see UNITS).
   * null: the figure is information only (reported beside its baseline, never met or missed).
   */
  target: number | null;
  /** The same kind of figure for the baseline of this run. */
  baseline: number | null;
  /** What the baseline is, one short phrase. */
  baselineIs: string;
  /**
   * The same work done without Earmark's code, in the same run (e.g. curl made as durable as
   * Earmark's download): when it misses the target too, the target is out of reach on this machine.
   */
  limit?: { measured: number; is: string };
  /** What "none" means when measured is null: a pass (no long task) or a failure. */
  noneMeans?: 'pass' | 'fail';
  /** How many samples the figure comes from. */
  samples: number;
}

export interface BenchResult {
  benchmark: string;
  startedAt: string;
  /** The run of bench/run.ts that started this benchmark (absent when it was run directly). */
  runId?: string;
  machine: {
    cpu: string;
    cores: number;
    node: string;
    /** The 1-minute load average when the run began and when it ended. */
    loadAtStart: number;
    loadAtEnd?: number;
    [key: string]: string | number | undefined;
  };
  figures: (Figure & { pass: boolean })[];
  /** Raw samples and anything else worth keeping next to the figures. */
  details: Record<string, unknown>;
}

/** A figure with no target, reported for information. */
export const isInformation = (figure: Pick<Figure, 'target'>): boolean => figure.target === null;

export const passes = (figure: Figure): boolean => {
  if (figure.target === null) return true;
  if (figure.measured === null) return (figure.noneMeans ?? 'fail') === 'pass';
  return UNITS[figure.unit] === 'at least'
    ? figure.measured >= figure.target
    : figure.measured <= figure.target;
};

const withUnit = (number: string, unit: Unit) =>
  unit === '×' || unit === '%'
    ? `${number}${unit}`
    : unit === '% at least'
      ? `${number}%`
      : `${number} ${unit}`;

/** A value with its unit, e.g. "12.34 ms", "1.08×"; "none" for null. */
export const amount = (value: number | null, unit: Unit): string =>
  value === null ? 'none' : withUnit(value.toFixed(Math.abs(value) < 100 ? 2 : 1), unit);

/** The target as a bound, e.g. "≤ 8 ms", "≥ 2000 labels/s". */
export const targetText = ({ target, unit }: Pick<Figure, 'target' | 'unit'>): string =>
  target === null
    ? 'none (information)'
    : `${UNITS[unit] === 'at least' ? '≥' : '≤'} ${withUnit(String(target), unit)}`;

/** The 1-minute load average now, to two decimals. */
export const loadNow = (): number => Number(loadavg()[0]!.toFixed(2));

/** The machine, and how busy it was when the run began (call it first thing). */
export function machine(extra: Record<string, string | number> = {}): BenchResult['machine'] {
  const all = cpus();
  return {
    cpu: all[0]?.model ?? 'unknown',
    cores: all.length,
    node: process.version,
    loadAtStart: loadNow(),
    ...extra,
  };
}

/** Prints the table and writes the JSON; returns the JSON's path. */
export function report(
  benchmark: string,
  startedAt: Date,
  machineInfo: BenchResult['machine'],
  figures: Figure[],
  details: Record<string, unknown>,
): string {
  const rows = figures.map((f) => [
    f.figure,
    amount(f.measured, f.unit),
    targetText(f),
    amount(f.baseline, f.unit),
    isInformation(f) ? 'info' : passes(f) ? 'pass' : 'FAIL',
  ]);
  const header = ['figure', 'measured', 'target', 'baseline', 'pass/fail'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ');
  // Other work on the machine inflates every figure: say how busy it was.
  const info = { ...machineInfo, loadAtEnd: loadNow() };
  const out = [
    `\n${benchmark} — ${info.cpu}, ${info.cores} cores, Node ${info.node}; ` +
      `load average ${info.loadAtStart} at start, ${info.loadAtEnd} at end`,
    line(header),
    widths.map((w) => '-'.repeat(w)).join('-|-'),
    ...rows.map(line),
    'baselines (same run):',
    ...figures.map((f) => `  ${f.figure}: ${f.baselineIs} (${f.samples} samples)`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);

  const result: BenchResult = {
    benchmark,
    startedAt: startedAt.toISOString(),
    ...(process.env[RUN_ID] ? { runId: process.env[RUN_ID] } : {}),
    machine: info,
    figures: figures.map((f) => ({ ...f, pass: passes(f) })),
    details,
  };
  const dir = join(benchDir, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${benchmark}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`results: ${file}\n`);
  return file;
}

/** The value at quantile q (0–1) of the samples, nearest rank; null when there are none. */
export function quantile(samples: readonly number[], q: number): number | null {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (samples: readonly number[]): number | null => {
  if (samples.length === 0) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length / 2;
  return Number.isInteger(mid) ? (sorted[mid - 1]! + sorted[mid]!) / 2 : sorted[Math.floor(mid)]!;
};

export const max = (samples: readonly number[]): number | null =>
  samples.length === 0 ? null : Math.max(...samples);

// docs/performance.md from the results of one `npm run bench`: per benchmark a table of its
// figures (measured, target, met, same-run baseline), what each baseline is, the machine and how
// busy it was, and a one-line reading of each missed target. A benchmark that failed to run keeps
// its section, saying why. Pure: bench/run.ts gathers the results and writes the file.
import { amount, isInformation, passes, targetText, type BenchResult, type Figure } from './report';

/** One bench/*.bench.ts as it went in this run. */
export interface BenchRun {
  /** The file, e.g. "timeline.bench.ts". */
  file: string;
  /** What it reported in this run (one result per report() call; none when it failed early). */
  results: BenchResult[];
  /** Why the run failed (its exit and the error it printed); absent when it ran. */
  failure?: string;
}

/** The whole run, as bench/run.ts saw it. */
export interface RunInfo {
  startedAt: Date;
  endedAt: Date;
  cpu: string;
  cores: number;
  node: string;
  /** 1-minute load averages when the run began and ended. */
  loadAtStart: number;
  loadAtEnd: number;
}

/** The machine fields every result has; the others (chromium, viewport…) are listed as given. */
const COMMON_MACHINE_FIELDS = new Set(['cpu', 'cores', 'node', 'loadAtStart', 'loadAtEnd']);

/** Text safe inside a table cell or a list item: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

const utc = (date: Date) => `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const clockUtc = (iso: string) => `${iso.slice(11, 19)} UTC`;

function lasted(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes > 0 ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
}

/**
 * Why a benchmark failed: how it ended, and the last line of its stderr that names an error or a
 * failure (Node prints the message before the stack), else its last line.
 */
export function failureOf(ending: string, stderr: string): string {
  const lines = stderr
    .replace(/\x1b\[[0-9;]*m/g, '') // eslint-disable-line no-control-regex -- colour codes
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('at '));
  const named = lines.findLast((line) => /\b\w*Error\b|\bfailed\b/i.test(line));
  return `${ending}: ${(named ?? lines.at(-1) ?? 'it printed nothing').slice(0, 400)}`;
}

const nameOf = (file: string) => file.replace(/\.bench\.ts$/, '');

/** How far a missed figure is from its target, beside its baseline and the machine's load. */
export function readingOfMiss(figure: Figure, machine: BenchResult['machine']): string {
  const parts: string[] = [];
  if (figure.measured === null || figure.target === null) {
    parts.push(`nothing was measured, against ${targetText(figure)}`);
  } else {
    const gap = Math.abs(figure.measured - figure.target);
    const share = figure.target === 0 ? '' : `, ${Math.round((gap / figure.target) * 100)}%`;
    const side = figure.measured > figure.target ? 'over' : 'short';
    parts.push(
      `${amount(figure.measured, figure.unit)} against ${targetText(figure)}: ` +
        `${amount(gap, figure.unit)} ${side}${share}`,
    );
  }
  if (figure.baseline !== null) {
    const baselineMeets = passes({ ...figure, measured: figure.baseline });
    parts.push(
      `the baseline, ${amount(figure.baseline, figure.unit)}, ` +
        (baselineMeets ? 'meets the target' : 'misses it too'),
    );
  }
  if (figure.limit) {
    const limitMeets = passes({ ...figure, measured: figure.limit.measured });
    parts.push(
      `${figure.limit.is}: ${amount(figure.limit.measured, figure.unit)}, ` +
        (limitMeets ? 'within the target' : 'over the target too'),
    );
  }
  const load = Math.max(machine.loadAtStart, machine.loadAtEnd ?? 0);
  // Above half the cores, other work was competing with the benchmark for the CPU.
  if (load > machine.cores / 2) {
    parts.push(`load average up to ${load} on ${machine.cores} cores`);
  }
  return `${parts.join('; ')}.`;
}

function resultSection(result: BenchResult, file: string): string[] {
  const { machine } = result;
  const extra = Object.entries(machine)
    .filter(([key, value]) => !COMMON_MACHINE_FIELDS.has(key) && value !== undefined)
    .map(([key, value]) => `${key} ${value}`);
  const lines = [
    `\`bench/${file}\` · started ${clockUtc(result.startedAt)} · load average ` +
      `${machine.loadAtStart} at start, ${machine.loadAtEnd ?? 'unknown'} at end` +
      (extra.length > 0 ? ` · ${extra.join(' · ')}` : ''),
    '',
  ];
  if (result.figures.length === 0) return [...lines, 'It reported no figures.', ''];
  lines.push(
    '| figure | measured | target | met | baseline |',
    '| --- | --- | --- | --- | --- |',
    ...result.figures.map(
      (f) =>
        `| ${cell(f.figure)} | ${amount(f.measured, f.unit)} | ${targetText(f)} | ` +
        `${isInformation(f) ? '—' : f.pass ? 'yes' : '**no**'} | ${amount(f.baseline, f.unit)} |`,
    ),
    '',
    'Baselines, measured in the same run:',
    '',
    ...result.figures.map(
      (f) => `- _${cell(f.figure)}_: ${cell(f.baselineIs)} (the figure: ${f.samples} samples).`,
    ),
    '',
  );
  const misses = result.figures.filter((f) => !f.pass);
  if (misses.length > 0) {
    lines.push(
      'Missed:',
      '',
      ...misses.map((f) => `- _${cell(f.figure)}_: ${readingOfMiss(f, machine)}`),
      '',
    );
  }
  return lines;
}

function benchSection(bench: BenchRun): string[] {
  const failure = [`**Failed to run:** ${cell(bench.failure ?? 'it reported nothing.')}`, ''];
  if (bench.results.length === 0) {
    return [`## ${nameOf(bench.file)}`, '', `\`bench/${bench.file}\``, '', ...failure];
  }
  return bench.results.flatMap((result, index) => [
    `## ${result.benchmark}`,
    '',
    ...(index === 0 && bench.failure ? failure : []),
    ...resultSection(result, bench.file),
  ]);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

function summaryRows(bench: BenchRun): string[] {
  if (bench.results.length === 0) return [`| ${nameOf(bench.file)} | failed to run | — |`];
  return bench.results.map((result) => {
    const targeted = result.figures.filter((f) => !isInformation(f));
    const met = targeted.filter((f) => f.pass).length;
    const { loadAtStart, loadAtEnd } = result.machine;
    return (
      `| [${result.benchmark}](#${anchorOf(result.benchmark)}) | ` +
      `${met} of ${targeted.length}${bench.failure ? ', then failed' : ''} | ` +
      `${loadAtStart} → ${loadAtEnd ?? '?'} |`
    );
  });
}

/** The markdown of docs/performance.md for one run. */
export function performanceReport(run: RunInfo, benches: readonly BenchRun[]): string {
  const results = benches.flatMap((b) => b.results);
  const figures = results.flatMap((r) => r.figures).filter((f) => !isInformation(f));
  const failed = benches.filter((b) => b.failure !== undefined || b.results.length === 0);
  const chromium = [
    ...new Set(results.map((r) => r.machine.chromium).filter((v) => v !== undefined)),
  ];
  const machine = [
    `${run.cpu}, ${run.cores} cores`,
    `Node ${run.node}`,
    ...(chromium.length > 0 ? [`Chromium ${chromium.join(', ')}`] : []),
  ].join('; ');
  return [
    '# Performance',
    '',
    '_Written by `npm run bench` (bench/run.ts) from the results of one run: do not edit by hand. ' +
      'How each benchmark measures: [bench/README.md](../bench/README.md). Speed targets live in ' +
      'the benchmarks, never in the tests._',
    '',
    `**Run:** ${utc(run.startedAt)}, lasted ${lasted(run.endedAt.getTime() - run.startedAt.getTime())}. ` +
      `**Machine:** ${machine}. **Load average** (1 minute) ${run.loadAtStart} when the run ` +
      `began, ${run.loadAtEnd} when it ended: other work on the machine inflates every figure, ` +
      "the baselines' too.",
    '',
    `**Summary:** ${benches.length} benchmark files, ${benches.length - failed.length} ran, ` +
      `${failed.length} failed to run; ${figures.filter((f) => f.pass).length} of ` +
      `${figures.length} figures met their target.`,
    '',
    '| benchmark | figures met | load average (start → end) |',
    '| --- | --- | --- |',
    ...benches.flatMap(summaryRows),
    '',
    ...benches.flatMap(benchSection),
  ].join('\n');
}

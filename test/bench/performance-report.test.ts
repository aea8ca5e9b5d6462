import { describe, expect, it } from 'vitest';
import {
  failureOf,
  performanceReport,
  readingOfMiss,
  type BenchRun,
  type RunInfo,
} from '../../bench/lib/performance-report';
import { passes, type BenchResult, type Figure } from '../../bench/lib/report';

const run: RunInfo = {
  startedAt: new Date('2026-03-02T09:00:00Z'),
  endedAt: new Date('2026-03-02T09:07:30Z'),
  cpu: 'Test CPU',
  cores: 2,
  node: 'v20.19.0',
  loadAtStart: 0.4,
  loadAtEnd: 1.7,
};

const figure = (fields: Partial<Figure> & Pick<Figure, 'figure'>): Figure => ({
  unit: 'ms',
  measured: 10,
  target: 20,
  baseline: 30,
  baselineIs: 'the obvious way, same run',
  samples: 5,
  ...fields,
});

function result(benchmark: string, figures: Figure[], extra: Record<string, string> = {}) {
  return {
    benchmark,
    startedAt: '2026-03-02T09:01:02.000Z',
    machine: {
      cpu: 'Test CPU',
      cores: 2,
      node: 'v20.19.0',
      loadAtStart: 0.5,
      loadAtEnd: 1.5,
      ...extra,
    },
    figures: figures.map((f) => ({ ...f, pass: passes(f) })),
    details: {},
  } satisfies BenchResult;
}

const player = result(
  'player',
  [
    figure({ figure: 'waveform shown, median', measured: 420, target: 1000, baseline: 5200 }),
    figure({
      figure: 'renderer JS heap | after GC',
      unit: 'MB',
      measured: 180,
      target: 150,
      baseline: 260,
      baselineIs: 'wavesurfer decoding the whole file',
    }),
    figure({
      figure: 'longest long task',
      measured: null,
      baseline: null,
      noneMeans: 'pass',
      samples: 0,
    }),
  ],
  { chromium: '156.0.1', viewport: '1280×800' },
);
const sync = result('sync', [
  figure({
    figure: 'labels synced',
    unit: 'labels/s',
    measured: 1500,
    target: 2000,
    baseline: 9000,
    baselineIs: 'raw inserts',
  }),
  figure({
    figure: 'client overhead',
    unit: '×',
    measured: 1.1,
    target: 1.2,
    baseline: 1.01,
    baselineIs: 'a second raw pass',
  }),
  figure({ figure: 'loopback time', measured: 215, target: null, baseline: 128 }),
]);
const benches: BenchRun[] = [
  {
    file: 'list.bench.ts',
    results: [],
    failure: 'exit 1: Error: no Chromium at /usr/bin/chromium',
  },
  { file: 'player.bench.ts', results: [player] },
  { file: 'sync.bench.ts', results: [sync], failure: 'SIGKILL: sync bench failed: killed' },
];

describe('docs/performance.md from the results of a run', () => {
  const markdown = performanceReport(run, benches);
  const rowOf = (name: string) =>
    markdown.split('\n').find((line) => line.startsWith(`| ${name} |`));

  it('lists every figure with its measure, target, verdict and baseline', () => {
    expect(rowOf('waveform shown, median')).toBe(
      '| waveform shown, median | 420.0 ms | ≤ 1000 ms | yes | 5200.0 ms |',
    );
    expect(rowOf('renderer JS heap \\| after GC')).toBe(
      '| renderer JS heap \\| after GC | 180.0 MB | ≤ 150 MB | **no** | 260.0 MB |',
    );
    expect(rowOf('longest long task')).toBe('| longest long task | none | ≤ 20 ms | yes | none |');
    expect(rowOf('labels synced')).toBe(
      '| labels synced | 1500.0 labels/s | ≥ 2000 labels/s | **no** | 9000.0 labels/s |',
    );
    expect(rowOf('client overhead')).toBe('| client overhead | 1.10× | ≤ 1.2× | yes | 1.01× |');
  });

  it('reports a figure without a target as information: never met, never missed, not counted', () => {
    expect(rowOf('loopback time')).toBe(
      '| loopback time | 215.0 ms | none (information) | — | 128.0 ms |',
    );
    expect(markdown).not.toMatch(/^- _loopback time_: .* against /m);
  });

  it('says what each baseline is and how many samples each figure has', () => {
    expect(markdown).toContain(
      '- _waveform shown, median_: the obvious way, same run (the figure: 5 samples).',
    );
    expect(markdown).toContain('- _labels synced_: raw inserts (the figure: 5 samples).');
  });

  it('reads each miss in one line, and only the misses', () => {
    const missed = markdown.split('\n').filter((line) => /^- _.*_: .* against /.test(line));
    expect(missed).toEqual([
      '- _renderer JS heap \\| after GC_: 180.0 MB against ≤ 150 MB: 30.00 MB over, 20%; ' +
        'the baseline, 260.0 MB, misses it too; load average up to 1.5 on 2 cores.',
      '- _labels synced_: 1500.0 labels/s against ≥ 2000 labels/s: 500.0 labels/s short, 25%; ' +
        'the baseline, 9000.0 labels/s, meets the target; load average up to 1.5 on 2 cores.',
    ]);
  });

  it('keeps a benchmark that failed to run, with the reason', () => {
    expect(markdown).toContain(
      '## list\n\n`bench/list.bench.ts`\n\n**Failed to run:** exit 1: Error: no Chromium at /usr/bin/chromium',
    );
    expect(rowOf('list')).toBe('| list | failed to run | — |');
    // A benchmark that reported and then failed keeps its figures and says it failed.
    expect(markdown).toContain('## sync\n\n**Failed to run:** SIGKILL: sync bench failed: killed');
    expect(rowOf('[sync](#sync)')).toBe('| [sync](#sync) | 1 of 2, then failed | 0.5 → 1.5 |');
  });

  it('gives the run, the machine and how busy it was', () => {
    expect(markdown).toContain('**Run:** 2026-03-02 09:00 UTC, lasted 7 min 30 s.');
    expect(markdown).toContain('**Machine:** Test CPU, 2 cores; Node v20.19.0; Chromium 156.0.1.');
    expect(markdown).toContain('0.4 when the run began, 1.7 when it ended');
    expect(markdown).toContain(
      '`bench/player.bench.ts` · started 09:01:02 UTC · load average 0.5 at start, 1.5 at end · ' +
        'chromium 156.0.1 · viewport 1280×800',
    );
    expect(markdown).toContain(
      '**Summary:** 3 benchmark files, 1 ran, 2 failed to run; 3 of 5 figures met their target.',
    );
  });
});

describe('the reading of a miss', () => {
  const quiet = { cpu: 'x', cores: 4, node: 'v20', loadAtStart: 0.2, loadAtEnd: 0.3 };

  it('says when nothing was measured and leaves the load out on a quiet machine', () => {
    const none = figure({ figure: 'drag', measured: null, baseline: null });
    expect(readingOfMiss(none, quiet)).toBe('nothing was measured, against ≤ 20 ms.');
  });

  it('gives no share of a target of zero', () => {
    const late = figure({ figure: 'peaks', measured: 3, target: 0, baseline: 0 });
    expect(readingOfMiss(late, quiet)).toBe(
      '3.00 ms against ≤ 0 ms: 3.00 ms over; the baseline, 0.00 ms, meets the target.',
    );
  });
});

describe('the limit of the platform beside a miss', () => {
  const quiet = { cpu: 'x', cores: 4, node: 'v20', loadAtStart: 0.2, loadAtEnd: 0.3 };
  const slow = (limit: number) =>
    figure({
      figure: 'download',
      measured: 30,
      target: 20,
      baseline: 16,
      limit: { measured: limit, is: 'the HTTP client alone storing the body' },
    });

  it('says whether the same work without our code meets the target', () => {
    expect(readingOfMiss(slow(25), quiet)).toBe(
      '30.00 ms against ≤ 20 ms: 10.00 ms over, 50%; the baseline, 16.00 ms, meets the target; ' +
        'the HTTP client alone storing the body: 25.00 ms, over the target too.',
    );
    expect(readingOfMiss(slow(18), quiet)).toContain(
      'the HTTP client alone storing the body: 18.00 ms, within the target.',
    );
  });
});

describe('why a benchmark failed', () => {
  it('takes the error message Node printed before the stack', () => {
    const stderr = [
      '/work/bench/x.bench.ts:12',
      "    throw new Error('the service exited (1) before it listened');",
      '    ^',
      '',
      '\x1b[31mError: the service exited (1) before it listened\x1b[39m',
      '    at ChildProcess.<anonymous> (/work/bench/x.bench.ts:12:11)',
      '    at ChildProcess.emit (node:events:519:28)',
      '',
      'Node.js v20.19.0',
    ].join('\n');
    expect(failureOf('exit 1', stderr)).toBe(
      'exit 1: Error: the service exited (1) before it listened',
    );
  });

  it('falls back to the last line, or says nothing was printed', () => {
    expect(failureOf('SIGKILL', 'warming up\nround 3 of 5\n')).toBe('SIGKILL: round 3 of 5');
    expect(failureOf('exit 2', '')).toBe('exit 2: it printed nothing');
  });
});

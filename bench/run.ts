// Runs every bench/*.bench.ts in turn, each in its own process (a benchmark never inherits
// another's warm caches or heap); each prints its table and writes bench/results/<name>.json. A new
// benchmark is a new bench/<name>.bench.ts that reports through bench/lib/report.ts. When every
// benchmark was run, docs/performance.md is written from the results of this run.
//
//   npm run bench                  every benchmark, then docs/performance.md
//   npm run bench -- timeline      those whose file name contains "timeline" (the report is kept)
//
// Exit code 0 when every benchmark ran, whether or not its targets were met (the tables say);
// 1 when one of them failed to run.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { BUILT_BY_RUNNER, benchDir, ensureRendererBuilt, repoRoot } from './lib/paths';
import { failureOf, performanceReport, type BenchRun } from './lib/performance-report';
import { RUN_ID, loadNow, type BenchResult } from './lib/report';

const REPORT_FILE = join(repoRoot, 'docs', 'performance.md');
const resultsDir = join(benchDir, 'results');
/** Enough of a failed benchmark's stderr to find the error it printed. */
const STDERR_KEPT = 64 * 1024;

/** Runs one benchmark, its output shown as it comes; resolves with how it ended. */
function runOne(file: string, runId: string): Promise<{ failure?: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(repoRoot, 'node_modules', '.bin', 'tsx'), [join(benchDir, file)], {
      cwd: repoRoot,
      env: { ...process.env, [BUILT_BY_RUNNER]: '1', [RUN_ID]: runId },
      stdio: ['inherit', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    child.once('error', (error) => resolve({ failure: `it could not start: ${error.message}` }));
    child.once('close', (code, signal) =>
      resolve(code === 0 ? {} : { failure: failureOf(signal ?? `exit ${code}`, stderr) }),
    );
  });
}

/** The results this run's `runId` wrote (a benchmark run directly meanwhile is not counted). */
function resultsOf(runId: string): BenchResult[] {
  if (!existsSync(resultsDir)) return [];
  return readdirSync(resultsDir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
    .map((entry) => {
      try {
        return JSON.parse(readFileSync(join(resultsDir, entry.name), 'utf8')) as BenchResult;
      } catch {
        return null; // being written by a benchmark started elsewhere
      }
    })
    .filter((result): result is BenchResult => result?.runId === runId);
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2);
  const files = readdirSync(benchDir)
    .filter((name) => name.endsWith('.bench.ts'))
    .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
    .sort();
  if (files.length === 0) {
    process.stderr.write(`bench: no bench/*.bench.ts matches ${filters.join(', ')}\n`);
    process.exit(1);
  }

  const startedAt = new Date();
  const loadAtStart = loadNow();
  ensureRendererBuilt();
  const runs: BenchRun[] = [];
  for (const file of files) {
    process.stdout.write(`\n=== ${file}\n`);
    const runId = `${randomUUID()}/${file}`;
    const { failure } = await runOne(file, runId);
    const results = resultsOf(runId);
    runs.push({
      file,
      results,
      failure:
        failure ??
        (results.length === 0
          ? 'it exited 0, but bench/results/ holds no results of this run'
          : undefined),
    });
  }
  const failed = runs.filter((run) => run.failure !== undefined);
  process.stdout.write(
    `\nbench: ${files.length - failed.length} of ${files.length} ran` +
      (failed.length > 0
        ? `; failed to run: ${failed.map((r) => `${r.file} (${r.failure})`).join(', ')}`
        : '') +
      '. Targets met or missed: see the tables above and bench/results/.\n',
  );

  if (filters.length > 0) {
    process.stdout.write(
      'bench: docs/performance.md is written only by a run of every benchmark.\n',
    );
  } else {
    const all = cpus();
    const markdown = performanceReport(
      {
        startedAt,
        endedAt: new Date(),
        cpu: all[0]?.model ?? 'unknown',
        cores: all.length,
        node: process.version,
        loadAtStart,
        loadAtEnd: loadNow(),
      },
      runs,
    );
    // Formatted as `npm run format:check` expects it.
    const options = (await resolveConfig(REPORT_FILE)) ?? {};
    writeFileSync(REPORT_FILE, await format(markdown, { ...options, filepath: REPORT_FILE }));
    process.stdout.write(`bench: wrote ${REPORT_FILE}\n`);
  }
  process.exit(failed.length > 0 ? 1 : 0);
}

await main();

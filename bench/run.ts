// Runs every bench/*.bench.ts in turn, each in its own process (a benchmark never inherits
// another's warm caches or heap); each prints its table and writes bench/results/<name>.json. A new
// benchmark is a new bench/<name>.bench.ts that reports through bench/lib/report.ts.
//
//   npm run bench                  every benchmark
//   npm run bench -- timeline      those whose file name contains "timeline"
//
// Exit code 0 when every benchmark ran, whether or not its targets were met (the tables say);
// 1 when one of them failed to run.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_BY_RUNNER, benchDir, ensureRendererBuilt, repoRoot } from './lib/paths';

const filters = process.argv.slice(2);
const files = readdirSync(benchDir)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((f) => name.includes(f)))
  .sort();
if (files.length === 0) {
  process.stderr.write(`bench: no bench/*.bench.ts matches ${filters.join(', ')}\n`);
  process.exit(1);
}

ensureRendererBuilt();
const failed: string[] = [];
for (const file of files) {
  process.stdout.write(`\n=== ${file}\n`);
  const run = spawnSync(join(repoRoot, 'node_modules', '.bin', 'tsx'), [join(benchDir, file)], {
    cwd: repoRoot,
    env: { ...process.env, [BUILT_BY_RUNNER]: '1' },
    stdio: 'inherit',
  });
  if (run.status !== 0) failed.push(`${file} (${run.signal ?? `exit ${run.status}`})`);
}
process.stdout.write(
  `\nbench: ${files.length - failed.length} of ${files.length} ran` +
    (failed.length > 0 ? `; failed to run: ${failed.join(', ')}` : '') +
    '. Targets met or missed: see the tables above and bench/results/.\n',
);
process.exit(failed.length > 0 ? 1 : 0);

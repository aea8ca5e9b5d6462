import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const benchDir = join(repoRoot, 'bench');

/** Set by bench/run.ts for the benchmarks it starts, once it has built the renderer. */
export const BUILT_BY_RUNNER = 'EARMARK_BENCH_RENDERER_BUILT';

const rendererIndex = join(repoRoot, 'out', 'renderer', 'index.html');

function newestIn(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestIn(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the renderer when out/renderer is missing or older than its sources (src/renderer,
 * src/shared), so a benchmark never measures a stale build. The build's output goes to stderr.
 */
export function ensureRendererBuilt(): void {
  if (process.env[BUILT_BY_RUNNER] === '1') return; // bench/run.ts built it just before
  const sources = ['src/renderer', 'src/shared'].map((dir) => newestIn(join(repoRoot, dir)));
  if (existsSync(rendererIndex) && statSync(rendererIndex).mtimeMs >= Math.max(...sources)) return;
  process.stderr.write('bench: building the renderer (out/renderer is missing or stale)…\n');
  const build = spawnSync(join(repoRoot, 'node_modules', '.bin', 'electron-vite'), ['build'], {
    cwd: repoRoot,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (build.status !== 0) throw new Error('The renderer build failed (see above).');
}

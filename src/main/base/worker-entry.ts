import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BuildOptions, BuildResult } from 'esbuild';
import { writeFileAtomicSync } from './atomic-write';

const isSource = () => import.meta.url.endsWith('.ts');

/** How one of main's worker threads is started: `new Worker(script, { execArgv })`. */
export interface WorkerStart {
  script: URL;
  /** The thread's Node options; undefined: the process's own. */
  execArgv: string[] | undefined;
}

/**
 * The script of a worker thread of the main process: `<builtName>.js` beside the running bundle
 * (each is an input of the main build in electron.vite.config.ts; a shared chunk may sit one
 * folder below it), or, when running from source (the browser shell, tests, tsx), the TypeScript
 * `source` bundled into one file (sourceBundle), started with no Node options: a thread takes
 * the process's otherwise, and from source those load tsx (`--import tsx`), which the bundle does
 * not need (it cost a thread 0.1 s at rest, 0.5 s and more beside the window's first screens).
 */
export function workerStart(source: URL, builtName: string): WorkerStart {
  if (!isSource()) return { script: builtScript(builtName), execArgv: undefined };
  return { script: sourceBundle(source, builtName), execArgv: [] };
}

function builtScript(builtName: string): URL {
  const built = [`./${builtName}.js`, `../${builtName}.js`]
    .map((path) => new URL(path, import.meta.url))
    .find((url) => existsSync(url));
  if (!built)
    throw new Error(
      `No ${builtName}.js beside ${import.meta.url}: the main build must emit it (electron.vite.config.ts).`,
    );
  return built;
}

/** The project's folder, when running from source (this file is src/main/base/worker-entry.ts). */
const projectDir = () => fileURLToPath(new URL('../../../', import.meta.url));

/** The modules a bundle was made of, each with the size and time it had then. */
type Inputs = Record<string, { size: number; mtimeMs: number }>;

/**
 * A worker's TypeScript source as one JavaScript file, its packages left to node_modules, made
 * again only when one of its modules changed. Each thread loading the source through tsx
 * instead registered tsx's loader in the thread (a loader thread of its own) and resolved each
 * module through it: about 0.4 s of CPU per thread, four at launch (the cache's writer and
 * readers, the digest thread), on two cores beside the window's first screens.
 */
function sourceBundle(source: URL, name: string): URL {
  const project = projectDir();
  // Among the project's tool caches: its packages resolve from there.
  const bundlesDir = join(project, 'node_modules', '.cache', 'earmark-workers');
  // Named by its source's path too: checkouts sharing one node_modules keep a bundle each.
  const sourcePath = fileURLToPath(source);
  const file = join(
    bundlesDir,
    `${name}-${createHash('sha256').update(sourcePath).digest('hex').slice(0, 12)}.mjs`,
  );
  const inputsFile = `${file}.inputs.json`;
  if (!isCurrent(file, inputsFile, project)) {
    // esbuild (tsx's own transformer) only from source: the built app never loads it.
    const esbuild = createRequire(import.meta.url)('esbuild') as {
      buildSync(options: BuildOptions): BuildResult;
    };
    const startedAt = Date.now();
    const result = esbuild.buildSync({
      entryPoints: [sourcePath],
      absWorkingDir: project,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs: Inputs = {};
    for (const input of Object.keys(result.metafile!.inputs)) {
      const { size, mtimeMs } = statSync(join(project, input));
      inputs[input] = { size, mtimeMs };
    }
    mkdirSync(bundlesDir, { recursive: true });
    // The bundle first, then what it was made of: a crash between the two makes it again, and
    // so does a module saved while it was made (the bundle may hold what it was before).
    rmSync(inputsFile, { force: true });
    writeFileAtomicSync(file, result.outputFiles![0]!.contents, { mode: 0o644 });
    if (Object.values(inputs).every(({ mtimeMs }) => mtimeMs < startedAt))
      writeFileAtomicSync(inputsFile, JSON.stringify(inputs), { mode: 0o644 });
  }
  return pathToFileURL(file);
}

/** Whether the bundle is there and each of its modules is as it was when it was made. */
function isCurrent(file: string, inputsFile: string, project: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const inputs = JSON.parse(readFileSync(inputsFile, 'utf8')) as Inputs;
    return Object.entries(inputs).every(([input, was]) => {
      const now = statSync(join(project, input), { throwIfNoEntry: false });
      return now?.size === was.size && now.mtimeMs === was.mtimeMs;
    });
  } catch {
    return false;
  }
}

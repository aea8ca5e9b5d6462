import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** What `new Worker(entry, { eval: evaluate })` needs to start one of main's worker threads. */
export interface WorkerEntry {
  entry: string | URL;
  evaluate: boolean;
}

const isSource = () => import.meta.url.endsWith('.ts');

/**
 * The script of a worker thread of the main process: `<builtName>.js` beside the running bundle
 * (each is an input of the main build in electron.vite.config.ts; a shared chunk may sit one
 * folder below it), or, when running from source (tests, tsx), the TypeScript `source` itself,
 * loaded through tsx's ESM API.
 */
export function workerEntry(source: URL, builtName: string): WorkerEntry {
  if (!isSource()) {
    const built = [`./${builtName}.js`, `../${builtName}.js`]
      .map((path) => new URL(path, import.meta.url))
      .find((url) => existsSync(url));
    if (!built)
      throw new Error(
        `No ${builtName}.js beside ${import.meta.url}: the main build must emit it (electron.vite.config.ts).`,
      );
    return { entry: built, evaluate: false };
  }
  const tsxApi = pathToFileURL(
    join(
      dirname(createRequire(import.meta.url).resolve('tsx/package.json')),
      'dist/esm/api/index.mjs',
    ),
  ).href;
  return {
    entry: `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`,
    evaluate: true,
  };
}

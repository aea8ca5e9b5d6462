import { mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { workerStart, type WorkerStart } from '../../../src/main/base/worker-entry';

/** What a worker thread started so posts first. */
function firstMessage({ script, execArgv }: WorkerStart): Promise<unknown> {
  const worker = new Worker(script, { execArgv });
  return new Promise<unknown>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  }).finally(() => void worker.terminate());
}

describe('workerStart from source', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const path of made.splice(0)) rmSync(path, { recursive: true, force: true });
  });

  /** A worker's source in two modules, the second saying `word`. */
  function source(word: string) {
    const dir = mkdtempSync(join(tmpdir(), 'earmark-worker-source-'));
    made.push(dir);
    const dep = join(dir, 'word.ts');
    writeFileSync(dep, `export const word: string = ${JSON.stringify(word)};\n`);
    writeFileSync(
      join(dir, 'entry.ts'),
      `import { parentPort } from 'node:worker_threads';\nimport { word } from './word';\nparentPort!.postMessage(word);\n`,
    );
    return { entry: pathToFileURL(join(dir, 'entry.ts')), dep };
  }

  const bundleOf = (entry: URL) => {
    const start = workerStart(entry, 'test-worker');
    const file = fileURLToPath(start.script);
    made.push(file, `${file}.inputs.json`);
    return { start, file };
  };

  it('is one JavaScript file a worker thread runs with no Node options (no TypeScript loader)', async () => {
    const { entry } = source('woof');
    const { start, file } = bundleOf(entry);
    expect(file).toMatch(/node_modules\/\.cache\/earmark-workers\/test-worker-[0-9a-f]{12}\.mjs$/);
    expect(start.execArgv).toEqual([]);
    expect(await firstMessage(start)).toBe('woof');
  });

  it('is made again when one of its modules changes, and kept while none does', async () => {
    const { entry, dep } = source('woof');
    const { start, file } = bundleOf(entry);
    expect(await firstMessage(start)).toBe('woof');
    const made = statSync(file);

    expect(bundleOf(entry).file).toBe(file);
    expect(statSync(file).ino).toBe(made.ino); // not written again

    // The same size, another time (a minute back, as a checkout may leave it): it changed.
    writeFileSync(dep, `export const word: string = "purr";\n`);
    const earlier = new Date(Date.now() - 60_000);
    utimesSync(dep, earlier, earlier);
    expect(await firstMessage(bundleOf(entry).start)).toBe('purr');
  });

  it('keeps a bundle per source: two with the same name do not take each other’s', async () => {
    const one = source('woof');
    const other = source('meow');
    expect(await firstMessage(bundleOf(one.entry).start)).toBe('woof');
    expect(await firstMessage(bundleOf(other.entry).start)).toBe('meow');
    expect(await firstMessage(bundleOf(one.entry).start)).toBe('woof');
  });
});

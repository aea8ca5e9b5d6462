import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first of `names` found in a folder of PATH, in PATH's order. */
export function findOnPath(
  names: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    for (const name of names) {
      const path = join(folder, name);
      if (folder && existsSync(path)) return path;
    }
  }
  return undefined;
}

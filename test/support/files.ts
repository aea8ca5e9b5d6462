import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `root`, recursively. */
const filesUnder = (root: string): string[] =>
  readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));

/**
 * The files under `root` that hold any of `needles` as bytes (a string as UTF-8), SQLite files
 * and caches included; a file gone while it is read (a browser's, say) holds nothing. `read`
 * gives a file's bytes (its plain bytes, for sealed files: sealed-files.ts).
 */
export function filesHolding(
  root: string,
  needles: readonly (string | Buffer)[],
  read: (file: string) => Buffer = (file) => readFileSync(file),
): string[] {
  const wanted = needles.map((needle) =>
    typeof needle === 'string' ? Buffer.from(needle) : needle,
  );
  return filesUnder(root).filter((file) => {
    let bytes: Buffer;
    try {
      bytes = read(file);
    } catch {
      return false;
    }
    return wanted.some((needle) => bytes.includes(needle));
  });
}

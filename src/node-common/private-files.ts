import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Clinical data stays private on disk: every file and folder this process creates — the account's
 * cache with its WAL, the audio cache, export journals, the embedded demo clinic's database,
 * exported files — is readable by this user only (0600 files, 0700 folders), whatever the user's
 * umask. Set once, first thing, by each entry point (both shells and the service's CLI).
 */
export function keepFilesPrivate(): void {
  process.umask(0o077);
}

/** Group and others: what an owner-only file or folder grants them (nothing). */
const OTHERS = 0o077;

/**
 * Makes everything under `folder` (and it) this user's alone: the group and others bits come off
 * every file and folder an earlier version made before it set the umask (0644 files, 0755
 * folders). Symbolic links are left as they are, never followed. Each entry point runs it on its
 * data folder at start, beside the umask; a folder that is not there yet is nothing to fix.
 * Answers how many it changed.
 */
export async function makeOwnerOnly(folder: string): Promise<number> {
  const entries = await readdir(folder, { recursive: true }).catch(() => null);
  if (entries === null) return 0;
  let changed = 0;
  for (const path of [folder, ...entries.map((entry) => join(folder, entry))]) {
    const info = await lstat(path).catch(() => null);
    if (!info || info.isSymbolicLink() || (info.mode & OTHERS) === 0) continue;
    // Owned by someone else (a shared folder's files): not this process's to change.
    if (typeof process.getuid === 'function' && info.uid !== process.getuid()) continue;
    await chmod(path, info.mode & 0o7777 & ~OTHERS).then(
      () => changed++,
      () => undefined,
    );
  }
  return changed;
}

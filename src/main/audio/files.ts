import { randomBytes } from 'node:crypto';
import { link, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fsyncFolder, removeQuietly, writeTemporary } from '../base/atomic-write';
import { AudioError, fileErrorOf, isAudioError } from './errors';
import { numberedName } from './names';

/** What to do when the final name is taken. */
export type OnExists = 'ask' | 'replace' | 'keep-both';

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

export const exists = async (path: string): Promise<boolean> => {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'ENOENT' || codeOf(error) === 'ENOTDIR') return false;
    throw error;
  }
};

/**
 * Checks before any download that the folder exists and takes new files: creates and removes a
 * hidden probe file. Throws folder_missing, folder_not_writable or disk_full.
 */
export async function assertWritableFolder(folder: string): Promise<void> {
  let info;
  try {
    info = await stat(folder);
  } catch (error) {
    throw fileErrorOf(error, folder);
  }
  if (!info.isDirectory()) {
    throw new AudioError('folder_missing', { detail: `${folder} is not a folder`, path: folder });
  }
  const probe = join(folder, `.earmark-probe-${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(probe, '', { flag: 'wx' });
  } catch (error) {
    throw fileErrorOf(error, folder);
  }
  await removeQuietly(probe);
}

/** Names taken in the folder: the file itself or any of its companions (same stem, other extension). */
async function taken(
  folder: string,
  name: string,
  companions: readonly string[],
): Promise<boolean> {
  const stem = name.slice(0, Math.max(0, name.lastIndexOf('.'))) || name;
  for (const candidate of [name, ...companions.map((ext) => `${stem}.${ext}`)]) {
    if (await exists(join(folder, candidate))) return true;
  }
  return false;
}

/**
 * The name to write under the `onExists` rule: `name` when it is free (with its companions, e.g.
 * the transcript .txt that goes beside an export's audio), else for 'keep-both' the first free
 * "name (n).ext", for 'replace' `name` itself; 'ask' throws file_exists for the UI to ask.
 */
export async function chooseName(
  folder: string,
  name: string,
  onExists: OnExists,
  companions: readonly string[] = [],
): Promise<string> {
  if (onExists === 'replace' || !(await taken(folder, name, companions))) return name;
  if (onExists === 'ask') {
    throw new AudioError('file_exists', { path: join(folder, name), name });
  }
  for (let n = 2; n < 10_000; n++) {
    const candidate = numberedName(name, n);
    if (!(await taken(folder, candidate, companions))) return candidate;
  }
  throw new AudioError('io_error', { detail: `no free name like ${name}`, path: folder });
}

/**
 * Gives the finished temporary file its final name. 'replace' renames over whatever is there
 * (atomic on one file system). Otherwise the name must still be free: a hard link fails with
 * EEXIST rather than overwrite a file that appeared since the name was chosen; where links are
 * not supported (FAT, some network shares) a check then rename does.
 */
export async function publish(temporary: string, final: string, replace: boolean): Promise<void> {
  if (replace) {
    await rename(temporary, final);
    return;
  }
  try {
    await link(temporary, final);
  } catch (error) {
    if (codeOf(error) === 'EEXIST') {
      throw new AudioError('file_exists', { path: final, name: basename(final) });
    }
    if (
      !['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV', 'EMLINK'].includes(
        String(codeOf(error)),
      )
    )
      throw error;
    if (await exists(final)) {
      throw new AudioError('file_exists', { path: final, name: basename(final) });
    }
    await rename(temporary, final);
    return;
  }
  await unlink(temporary);
}

/**
 * Writes a new file whole (temporary file, flush, publish) under the onExists rule, never over
 * a file that appeared meanwhile unless 'replace'; returns the name it got.
 */
export async function writeNewFile(
  folder: string,
  name: string,
  data: string,
  onExists: OnExists,
): Promise<string> {
  let temporary: string | undefined;
  try {
    // Exported files are the user's, to hand on: the mode of the exported audio beside them.
    temporary = await writeTemporary(folder, data, { mode: 0o644 });
    for (let tries = 0; ; tries++) {
      const chosen = await chooseName(folder, name, onExists);
      try {
        await publish(temporary, join(folder, chosen), onExists === 'replace');
        await fsyncFolder(folder);
        return chosen;
      } catch (error) {
        const again = isAudioError(error, 'file_exists') && onExists === 'keep-both' && tries < 5;
        if (!again) throw error;
      }
    }
  } catch (error) {
    if (temporary) await removeQuietly(temporary).catch(() => undefined);
    throw fileErrorOf(error, join(folder, name));
  }
}

import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fsyncSync,
  openSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, readdir, rename, stat, unlink, writeFile, type FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Files that appear whole or not at all: every file main writes in place (accounts.json, the
 * comments, the window state, the audio cache's index, a download's state and peaks, an export's
 * journal) goes through writeFileAtomic, and the audio and export code builds its own files from
 * the same temporary files. Private (0600) unless a caller says otherwise: clinic data stays
 * this user's.
 */

export interface AtomicWriteOptions {
  /**
   * Flush the data and the rename to disk (default): survives a power cut. Without, the file is
   * safe against a crash of this process only (a cache the next start rebuilds).
   */
  durable?: boolean;
  /** The new file's mode (default 0600). */
  mode?: number;
}

const codeOf = (error: unknown) => (error as { code?: unknown } | null)?.code;

/** Writes all of `bytes` at `position` of an open file (a short write is continued). */
export async function writeAll(
  handle: FileHandle,
  bytes: Uint8Array,
  position: number,
): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, done, bytes.length - done, position + done);
    // A nearly full disk takes part of a write without an error; the rest then fails (ENOSPC).
    // A write that takes nothing at all would never end.
    if (bytesWritten === 0)
      throw Object.assign(new Error('a write took no bytes'), { code: 'EIO' });
    done += bytesWritten;
  }
}

/** Removes a file; one that is already gone is fine. */
export async function removeQuietly(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if (codeOf(error) !== 'ENOENT') throw error;
  }
}

/**
 * Errors of a folder's fsync that mean it cannot be done here: Windows cannot open a folder for
 * fsync (EPERM/EISDIR), where NTFS journals the rename itself.
 */
const FOLDER_SYNC_UNSUPPORTED = ['EPERM', 'EISDIR', 'EINVAL', 'EACCES'];

/** Flushes a folder so a rename in it survives a power cut. */
export async function fsyncFolder(folder: string): Promise<void> {
  let handle;
  try {
    handle = await open(folder, constants.O_RDONLY);
    await handle.sync();
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.includes(String(codeOf(error)))) throw error;
  } finally {
    await handle?.close();
  }
}

function fsyncFolderSync(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, constants.O_RDONLY);
    fsyncSync(fd);
  } catch (error) {
    if (!FOLDER_SYNC_UNSUPPORTED.includes(String(codeOf(error)))) throw error;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A new hidden temporary name in `folder`, as removeStaleTemporaries recognizes them. */
const temporaryIn = (folder: string) =>
  join(folder, `.earmark-${randomBytes(6).toString('hex')}.tmp`);
const TEMPORARY = /^\.earmark-[0-9a-f]{12}\.tmp$/;

/**
 * Writes `data` to a new hidden temporary file in `folder` and returns its path (then renamed,
 * or published under a free name by the export code). With `durable` the data is flushed.
 */
export async function writeTemporary(
  folder: string,
  data: string | Uint8Array,
  { durable = true, mode = 0o600 }: AtomicWriteOptions = {},
): Promise<string> {
  const temporary = temporaryIn(folder);
  try {
    if (!durable) {
      await writeFile(temporary, data, { flag: 'wx', mode });
      return temporary;
    }
    const handle = await open(temporary, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    return temporary;
  } catch (error) {
    await removeQuietly(temporary).catch(() => undefined);
    throw error;
  }
}

/**
 * Removes the temporary files a crash left in a folder: those named as writeTemporary names them
 * and last written before `before` (the start of this process, so none is a write under way).
 */
export async function removeStaleTemporaries(folder: string, before: number): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  for (const name of names.filter((n) => TEMPORARY.test(n))) {
    const path = join(folder, name);
    const info = await stat(path).catch(() => null);
    if (info?.isFile() && info.mtimeMs < before) await removeQuietly(path).catch(() => {});
  }
}

/**
 * Writes a file so that it appears whole or not at all: a temporary file in the same folder,
 * then a rename over the target (atomic on one file system); durable by default (see options).
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  let temporary: string | undefined;
  try {
    temporary = await writeTemporary(dirname(path), data, options);
    await rename(temporary, path);
  } catch (error) {
    if (temporary) await removeQuietly(temporary).catch(() => undefined);
    throw error;
  }
  if (options.durable ?? true) await fsyncFolder(dirname(path));
}

/**
 * writeFileAtomic for the few callers that must finish before they return (the accounts store
 * changes its state only once the file is written; the window state is saved as it closes):
 * the same temporary file, flush, rename and folder flush, durable always.
 */
export function writeFileAtomicSync(
  path: string,
  data: string | Uint8Array,
  { mode = 0o600 }: Pick<AtomicWriteOptions, 'mode'> = {},
): void {
  const temporary = temporaryIn(dirname(path));
  try {
    writeFileSync(temporary, data, { flag: 'wx', mode, flush: true });
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // Never written, or already renamed.
    }
    throw error;
  }
  fsyncFolderSync(dirname(path));
}

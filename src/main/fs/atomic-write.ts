import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file so that it appears whole or not at all: a temporary file in the same folder,
 * flushed to disk, then renamed over the target (atomic on one file system), then the folder
 * flushed so the rename itself survives a crash.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const folder = dirname(path);
  const temporary = join(folder, `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temporary, 'w', mode);
  try {
    writeSync(fd, typeof data === 'string' ? Buffer.from(data) : data);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
  const folderFd = openSync(folder, 'r');
  try {
    fsyncSync(folderFd);
  } finally {
    closeSync(folderFd);
  }
}

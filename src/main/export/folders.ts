import { randomUUID } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { ExportFolder } from '../../shared/ipc';
import { AppError, invalidInput } from '../base/errors';
import { AudioError, type AudioErrorKind } from '../audio/errors';
import { assertWritableFolder } from '../audio/files';

/** The folder errors that stop an export, in words that name the folder. */
const FOLDER_MESSAGES: Partial<Record<AudioErrorKind, (folder: string) => string>> = {
  folder_missing: (folder) => `There is no folder ${folder}. Choose another folder.`,
  folder_not_writable: (folder) => `Earmark cannot write to ${folder}. Choose another folder.`,
  disk_full: (folder) =>
    `The disk holding ${folder} is full. Free some space or choose another folder.`,
  io_error: (folder) => `Earmark could not write to ${folder}.`,
};

/**
 * An error about the export folder as the user should read it (it names the folder); any other
 * error passes through unchanged.
 */
export function folderProblem(error: unknown, folder: string): unknown {
  if (!(error instanceof AudioError)) return error;
  const message = FOLDER_MESSAGES[error.kind];
  return message ? new AppError(error.kind, message(folder)) : error;
}

/**
 * The folders picked for exports in this run of the app. The renderer refers to a folder by the
 * id main gave it, never by a path: in Electron only the system's folder dialog (the user's own
 * choice) registers one, so a compromised renderer cannot write exports anywhere it likes.
 */
export class ExportFolders {
  private readonly paths = new Map<string, string>();

  /** Checks that the folder takes new files, and gives it an id (the same id for the same folder). */
  async register(path: string): Promise<ExportFolder> {
    const folder = resolve(path);
    try {
      await assertWritableFolder(folder);
    } catch (error) {
      throw folderProblem(error, folder);
    }
    for (const [folderId, known] of this.paths) {
      if (known === folder) return { folderId, path: folder };
    }
    const folderId = randomUUID();
    this.paths.set(folderId, folder);
    return { folderId, path: folder };
  }

  /** A path the user typed (the browser shell): absolute, an existing folder, writable. */
  async registerTyped(path: string): Promise<ExportFolder> {
    if (!isAbsolute(path)) {
      throw invalidInput(
        `"${path}" is not a full path. Type the folder's full path, starting with ${resolve('/')}.`,
      );
    }
    const info = await stat(path).catch(() => undefined);
    if (info && !info.isDirectory()) throw invalidInput(`${path} is a file, not a folder.`);
    return this.register(path);
  }

  /** The path of a registered folder. */
  path(folderId: string): string {
    const path = this.paths.get(folderId);
    if (path === undefined) {
      throw new AppError(
        'not_found',
        'Earmark does not know this export folder (folders are forgotten when it restarts). Choose the folder again.',
      );
    }
    return path;
  }
}

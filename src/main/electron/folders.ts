import type { BaseWindow, Dialog, OpenDialogOptions, Shell } from 'electron';
import { AppError } from '../base/errors';

/**
 * The export folder picked in the system's dialog (the user's own choice: the only way a folder
 * gets registered in Electron), starting in `defaultPath`; null when the user cancels.
 */
export function folderDialog(
  dialog: Pick<Dialog, 'showOpenDialog'>,
  parent: () => BaseWindow | undefined,
): (defaultPath: string) => Promise<string | null> {
  return async (defaultPath) => {
    const options: OpenDialogOptions = {
      title: 'Export to folder',
      buttonLabel: 'Export here',
      defaultPath,
      properties: ['openDirectory', 'createDirectory'],
    };
    const window = parent();
    const result = window
      ? await dialog.showOpenDialog(window, options)
      : await dialog.showOpenDialog(options);
    return result.canceled ? null : (result.filePaths[0] ?? null);
  };
}

/** Shows a folder in the system's file manager; shell.openPath answers an error message, or ''. */
export function folderOpener(shell: Pick<Shell, 'openPath'>): (path: string) => Promise<void> {
  return async (path) => {
    const failure = await shell.openPath(path);
    if (failure) throw new AppError('open_failed', `${path} could not be opened: ${failure}`);
  };
}

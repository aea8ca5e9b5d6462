// The Electron shell's export folder hooks, with a mocked 'electron' module (its runtime cannot
// run here): the system's folder dialog and shell.openPath.
import { describe, expect, it, vi } from 'vitest';
import type { BaseWindow, OpenDialogOptions } from 'electron';

const electron = vi.hoisted(() => ({
  dialog: {
    showOpenDialog:
      vi.fn<(...args: unknown[]) => Promise<{ canceled: boolean; filePaths: string[] }>>(),
  },
  shell: { openPath: vi.fn<(path: string) => Promise<string>>() },
}));
vi.mock('electron', () => electron);

const { dialog, shell } = await import('electron');
const { folderDialog, folderOpener } = await import('../../src/main/electron/folders');

describe('the export folder dialog', () => {
  it('asks for a folder (one that may be created there), starting in the default folder', async () => {
    const window = { id: 1 } as unknown as BaseWindow;
    electron.dialog.showOpenDialog.mockResolvedValueOnce({
      canceled: false,
      filePaths: ['/home/vet/Exports'],
    });
    const choose = folderDialog(dialog, () => window);
    await expect(choose('/home/vet/Downloads')).resolves.toBe('/home/vet/Exports');
    const [parent, options] = electron.dialog.showOpenDialog.mock.calls.at(-1)! as [
      BaseWindow,
      OpenDialogOptions,
    ];
    expect(parent).toBe(window);
    expect(options.defaultPath).toBe('/home/vet/Downloads');
    expect(options.properties).toEqual(['openDirectory', 'createDirectory']);
  });

  it('answers null when the user cancels, and works without a window', async () => {
    electron.dialog.showOpenDialog.mockResolvedValueOnce({ canceled: true, filePaths: [] });
    await expect(folderDialog(dialog, () => undefined)('/tmp')).resolves.toBeNull();
    const [options] = electron.dialog.showOpenDialog.mock.calls.at(-1)! as [OpenDialogOptions];
    expect(options.properties).toContain('openDirectory');
  });
});

describe('opening an export folder', () => {
  it('hands the folder to shell.openPath', async () => {
    electron.shell.openPath.mockResolvedValueOnce('');
    await folderOpener(shell)('/home/vet/Exports');
    expect(electron.shell.openPath).toHaveBeenLastCalledWith('/home/vet/Exports');
  });

  it('turns the message openPath answers on failure into an error naming the folder', async () => {
    electron.shell.openPath.mockResolvedValueOnce('No application is registered for folders');
    await expect(folderOpener(shell)('/home/vet/Exports')).rejects.toMatchObject({
      kind: 'open_failed',
      message: '/home/vet/Exports could not be opened: No application is registered for folders',
    });
  });
});

// Imports nothing of Electron: electron-builder.config.ts takes the id from here too.

/**
 * The app's id: electron-builder's appId, which the Windows installer gives the Start menu
 * shortcut as its AppUserModelID. Windows shows a notification only from a process carrying the
 * same id (app.setAppUserModelId), so the shell and the package must agree.
 */
export const APP_ID = 'app.earmark.desktop';

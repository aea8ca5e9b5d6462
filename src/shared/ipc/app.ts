import { Type } from '@sinclair/typebox';
import { channel, None } from './channel';
import type { IpcError } from './results';

export interface AppInfo {
  version: string;
  /** Which shell hosts the app (information only: main decides by capabilities, not by this). */
  shell: 'electron' | 'browser';
  platform: string;
  /**
   * How an export folder is picked: the system's folder dialog (export.chooseFolder, where the
   * shell has one: Electron), or a typed path (export.useFolder, the browser shell).
   */
  folderChoice: 'dialog' | 'path';
  /** Where exports go unless the user picks elsewhere (the Downloads folder when there is one). */
  defaultExportFolder: string;
}

/**
 * Connection to the active account's service: `refused` when the service answers but refuses the
 * account's key (revoked, expired, not valid) — one state every screen shows the same way, with
 * the reason in `lastError`.
 */
export interface ConnectionStatus {
  state: 'online' | 'offline' | 'refused' | 'unknown';
  lastError: IpcError | null;
  checkedAt: string | null;
}

export const APP_CHANNELS = {
  'app.info': channel<AppInfo>()(None),
  /** The connection status as main last saw it (then kept current by connection.changed). */
  'app.connection': channel<ConnectionStatus>()(None),
  /** Opens an http(s) link in the system browser. */
  'app.openExternal': channel<null>()(
    Type.Object(
      { url: Type.String({ minLength: 1, maxLength: 2000 }) },
      { additionalProperties: false },
    ),
  ),
} as const;

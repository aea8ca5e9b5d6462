import type { BrowserWindow, IpcMain, IpcMainInvokeEvent } from 'electron';
import {
  ELECTRON_EVENT_CHANNEL,
  ELECTRON_INVOKE_CHANNEL,
  EVENT_NAMES,
  type IpcResult,
} from '../../shared/ipc';
import type { Core } from '../core';
import { isAppUrl } from './security';

/** Only the app's own top-level frame may call main. */
export const isTrustedSender = (event: IpcMainInvokeEvent) => {
  const frame = event.senderFrame;
  return frame !== null && frame.parent === null && isAppUrl(frame.url);
};

/** Carries the IPC contract over Electron's ipcMain; returns a function that undoes it. */
export function registerIpc(
  ipcMain: IpcMain,
  core: Core,
  windows: () => BrowserWindow[],
): () => void {
  ipcMain.handle(
    ELECTRON_INVOKE_CHANNEL,
    (event, channel: unknown, input: unknown): Promise<IpcResult<unknown>> => {
      if (!isTrustedSender(event)) {
        return Promise.resolve({
          ok: false,
          error: { kind: 'forbidden', message: 'Calls are accepted only from the Earmark window.' },
        });
      }
      return core.rpc.invoke(channel, input);
    },
  );
  const unsubscribe = EVENT_NAMES.map((event) =>
    core.on(event, (payload) => {
      for (const window of windows())
        window.webContents.send(ELECTRON_EVENT_CHANNEL, { event, payload });
    }),
  );
  return () => {
    ipcMain.removeHandler(ELECTRON_INVOKE_CHANNEL);
    unsubscribe.forEach((stop) => stop());
  };
}

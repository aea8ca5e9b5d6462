import { contextBridge, ipcRenderer } from 'electron';
import {
  ELECTRON_EVENT_CHANNEL,
  ELECTRON_INVOKE_CHANNEL,
  EVENT_NAMES,
  isChannelName,
  type EarmarkApi,
  type EventName,
  type IpcEvents,
  type IpcResult,
} from '../shared/ipc';

type Listener = (payload: unknown) => void;
const listeners = new Map<EventName, Set<Listener>>();

// One ipcRenderer listener for all events; renderer callbacks never see the IPC event object.
ipcRenderer.on(
  ELECTRON_EVENT_CHANNEL,
  (_event, message: { event: EventName; payload: unknown }) => {
    for (const listener of listeners.get(message.event) ?? []) listener(message.payload);
  },
);

/** Exactly the contract of src/shared/ipc.ts, nothing of ipcRenderer itself. */
const api = {
  invoke(channel, input) {
    if (!isChannelName(channel)) {
      return Promise.resolve({
        ok: false,
        error: { kind: 'unknown_channel', message: `Unknown channel ${String(channel)}.` },
      } as IpcResult<never>);
    }
    return ipcRenderer.invoke(ELECTRON_INVOKE_CHANNEL, channel, input);
  },
  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void) {
    if (!EVENT_NAMES.includes(event)) throw new Error(`Unknown event ${String(event)}`);
    const set = listeners.get(event) ?? new Set<Listener>();
    set.add(listener as Listener);
    listeners.set(event, set);
    return () => {
      set.delete(listener as Listener);
    };
  },
} satisfies EarmarkApi;

contextBridge.exposeInMainWorld('earmark', api);

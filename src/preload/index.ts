import { contextBridge, ipcRenderer } from 'electron';
// A sandboxed preload can require only electron, events, timers and url: everything else must be
// bundled into it, and electron-vite leaves dependencies (TypeBox) outside. So the preload is
// generic and imports the contract's schema-free values only — the channels' names travel, main
// validates every call (src/main/rpc.ts) — and test/packaging/preload-bundle.test.ts runs the
// built bundle in a sandboxed preload's shape.
import { ELECTRON_EVENT_CHANNEL, ELECTRON_INVOKE_CHANNEL } from '../shared/ipc/constants';
import { isEventName, type EventName, type IpcEvents } from '../shared/ipc/events';
import type { EarmarkApi } from '../shared/ipc';

type Listener = (payload: unknown) => void;
const listeners = new Map<EventName, Set<Listener>>();

// One ipcRenderer listener for all events; renderer callbacks never see the IPC event object.
ipcRenderer.on(
  ELECTRON_EVENT_CHANNEL,
  (_event, message: { event: EventName; payload: unknown }) => {
    for (const listener of listeners.get(message.event) ?? []) listener(message.payload);
  },
);

/** Exactly the contract of src/shared/ipc, nothing of ipcRenderer itself. */
const api = {
  // Main answers an unknown channel or an invalid input with an error, as data.
  invoke: (channel, input) => ipcRenderer.invoke(ELECTRON_INVOKE_CHANNEL, channel, input),
  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void) {
    if (!isEventName(event)) throw new Error(`Unknown event ${String(event)}`);
    const set = listeners.get(event) ?? new Set<Listener>();
    set.add(listener as Listener);
    listeners.set(event, set);
    return () => {
      set.delete(listener as Listener);
    };
  },
} satisfies EarmarkApi;

contextBridge.exposeInMainWorld('earmark', api);

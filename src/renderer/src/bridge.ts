import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  EarmarkApi,
  EventName,
  IpcEvents,
  IpcResult,
  WireMessage,
} from '../../shared/ipc';
import { SHELL_RPC_PROTOCOL, SHELL_TOKEN_PROTOCOL_PREFIX } from '../../shared/ipc/constants';
import { shellToken } from './shell-session';

declare global {
  interface Window {
    earmark?: EarmarkApi;
  }
}

const RECONNECT_MS = 1000;

/**
 * The browser shell's side of the contract: the same calls over a WebSocket to the page's own
 * origin, the shell's token offered as a subprotocol. Calls made while disconnected wait for
 * the connection; a dropped connection fails its pending calls and reconnects.
 */
function createWebSocketBridge(token: string): EarmarkApi {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const pending = new Map<number, (result: IpcResult<unknown>) => void>();
  let nextId = 1;
  let socket: WebSocket;
  let open: Promise<void>;

  const connect = () => {
    socket = new WebSocket(
      `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/rpc`,
      [SHELL_RPC_PROTOCOL, `${SHELL_TOKEN_PROTOCOL_PREFIX}${token}`],
    );
    open = new Promise((resolve) =>
      socket.addEventListener('open', () => resolve(), { once: true }),
    );
    socket.addEventListener('message', (message) => {
      const data = JSON.parse(String(message.data)) as WireMessage;
      if ('id' in data) {
        pending.get(data.id)?.(data.result);
        pending.delete(data.id);
      } else {
        for (const listener of listeners.get(data.event) ?? []) listener(data.payload);
      }
    });
    socket.addEventListener('close', () => {
      for (const resolve of pending.values()) {
        resolve({
          ok: false,
          error: { kind: 'disconnected', message: 'Lost the connection to Earmark. Retrying…' },
        });
      }
      pending.clear();
      setTimeout(connect, RECONNECT_MS);
    });
  };
  connect();

  return {
    async invoke<C extends ChannelName>(channel: C, input: ChannelInput<C>) {
      await open;
      const id = nextId++;
      return new Promise<IpcResult<ChannelOutput<C>>>((resolve) => {
        pending.set(id, resolve as (result: IpcResult<unknown>) => void);
        socket.send(JSON.stringify({ id, channel, input }));
      });
    },
    on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: unknown) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };
}

/** A tab without the shell's token: every call says so (main.ts shows only that, too). */
const unreachable: EarmarkApi = {
  invoke: async () => ({
    ok: false,
    error: {
      kind: 'disconnected',
      message: 'This window cannot reach Earmark. Open Earmark from the address it printed.',
    },
  }),
  on: () => () => {},
};

/** The preload's API in Electron, else the WebSocket: screens never know which. */
export const earmark: EarmarkApi =
  window.earmark ?? (shellToken === null ? unreachable : createWebSocketBridge(shellToken));

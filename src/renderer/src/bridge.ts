import type {
  ChannelInput,
  ChannelName,
  ChannelOutput,
  EarmarkApi,
  EventName,
  IpcError,
  IpcEvents,
  IpcResult,
  WireMessage,
} from '../../shared/ipc';
import { SHELL_RPC_PROTOCOL, SHELL_TOKEN_PROTOCOL_PREFIX } from '../../shared/ipc/constants';
import type { ShellLinkStore } from './lib/shell-link.svelte';

declare global {
  interface Window {
    earmark?: EarmarkApi;
  }
}

const RECONNECT_MS = 1000;
/** WebSocket.OPEN. */
const OPEN = 1;

const OUTDATED: IpcError = {
  kind: 'disconnected',
  message:
    'This window was opened by an earlier run of Earmark. Open Earmark from the address it printed.',
};

/** What the WebSocket bridge needs of the browser (a test gives its own). */
export interface SocketEnv {
  /** Opens a WebSocket to Earmark offering these subprotocols. */
  open(protocols: string[]): Pick<WebSocket, 'addEventListener' | 'send' | 'readyState'>;
  /** Whether Earmark answers and refuses this token (a later run made a new one). */
  tokenRefused(token: string): Promise<boolean>;
  /** A later run refused the token: a reload must not offer it again. */
  forgetToken(): void;
  /** Runs `retry` after `ms`. */
  later(retry: () => void, ms: number): void;
}

/** The page's own: a WebSocket to its origin, fetch, setTimeout; `forgetToken` the session's. */
const browserSocketEnv = (forgetToken: () => void): SocketEnv => ({
  open: (protocols) =>
    new WebSocket(
      `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/rpc`,
      protocols,
    ),
  async tokenRefused(token) {
    try {
      const answer = await fetch(`/?token=${encodeURIComponent(token)}`, {
        method: 'HEAD',
        cache: 'no-store',
      });
      return answer.status === 401;
    } catch {
      return false; // Nothing answers: Earmark is not running.
    }
  },
  forgetToken,
  later: (retry, ms) => void setTimeout(retry, ms),
});

/**
 * The browser shell's side of the contract: the same calls over a WebSocket to the page's own
 * origin, the shell's token offered as a subprotocol. Calls made while disconnected wait for
 * the connection; a dropped connection fails its pending calls and reconnects. A connection
 * that never opens is told apart (`link`): Earmark stopped (keep trying) or a later run that
 * refuses this token (stop, forget it, and say so — retrying could never succeed).
 */
export function createWebSocketBridge(
  token: string,
  link: ShellLinkStore,
  env: SocketEnv,
): EarmarkApi {
  const listeners = new Map<EventName, Set<(payload: unknown) => void>>();
  const pending = new Map<number, (result: IpcResult<unknown>) => void>();
  /** Calls waiting for the link: told whether it opened (false: outdated). */
  let waiting: ((linked: boolean) => void)[] = [];
  let nextId = 1;
  let socket: ReturnType<SocketEnv['open']>;

  const release = (linked: boolean) => {
    for (const resume of waiting) resume(linked);
    waiting = [];
  };

  const connect = () => {
    const attempt = env.open([SHELL_RPC_PROTOCOL, `${SHELL_TOKEN_PROTOCOL_PREFIX}${token}`]);
    socket = attempt;
    let opened = false;
    attempt.addEventListener('open', () => {
      opened = true;
      link.opened();
      release(true);
    });
    attempt.addEventListener('message', (message) => {
      const data = JSON.parse(String(message.data)) as WireMessage;
      if ('id' in data) {
        pending.get(data.id)?.(data.result);
        pending.delete(data.id);
      } else {
        for (const listener of listeners.get(data.event) ?? []) listener(data.payload);
      }
    });
    attempt.addEventListener('close', () => {
      for (const resolve of pending.values()) {
        resolve({
          ok: false,
          error: { kind: 'disconnected', message: 'Lost the connection to Earmark. Retrying…' },
        });
      }
      pending.clear();
      void reconnect(opened);
    });
  };

  const reconnect = async (wasOpen: boolean) => {
    if (wasOpen) {
      link.connecting();
      return connect();
    }
    if (await env.tokenRefused(token)) {
      env.forgetToken();
      link.outdated();
      return release(false);
    }
    link.stopped();
    env.later(connect, RECONNECT_MS);
  };
  link.connecting();
  connect();

  /** Whether the link opens (false: a later run refuses this token). */
  const linked = (): Promise<boolean> =>
    link.isOutdated ? Promise.resolve(false) : new Promise((resume) => waiting.push(resume));

  return {
    invoke<C extends ChannelName>(channel: C, input: ChannelInput<C>) {
      const send = () => {
        const id = nextId++;
        return new Promise<IpcResult<ChannelOutput<C>>>((resolve) => {
          pending.set(id, resolve as (result: IpcResult<unknown>) => void);
          socket.send(JSON.stringify({ id, channel, input }));
        });
      };
      // Sent at once when the link is up, so main works on it while this thread goes on (a
      // screen asks before it builds its DOM).
      if (socket.readyState === OPEN) return send();
      return linked().then((ok) => (ok ? send() : { ok: false as const, error: OUTDATED }));
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

/**
 * The preload's API in Electron, else the WebSocket with the shell's token (`forgetToken` drops
 * it once a later run refuses it): screens never know which.
 */
export function connectBridge(
  link: ShellLinkStore,
  token: string | null,
  forgetToken: () => void,
): EarmarkApi {
  if (window.earmark) return window.earmark;
  return token === null
    ? unreachable
    : createWebSocketBridge(token, link, browserSocketEnv(forgetToken));
}

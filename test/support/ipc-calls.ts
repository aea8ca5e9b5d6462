import type { Core } from '../../src/main/core';
import { until } from '../service/poll';
import type { ChannelInput, ChannelName, ChannelOutput, IpcError } from '../../src/shared/ipc';

export interface IpcCalls {
  /** Invokes a channel as the renderer does and answers its value; throws with the error if refused. */
  call<C extends ChannelName>(channel: C, input: ChannelInput<C>): Promise<ChannelOutput<C>>;
  /** Invokes a channel that must be refused and answers the IpcError the renderer gets. */
  refused(channel: ChannelName, input: unknown): Promise<IpcError>;
}

/** Starts a sync of the active account and waits for it to end (idle, having synced). */
export async function syncToEnd(call: IpcCalls['call']): Promise<void> {
  await call('sync.run', {});
  await until(
    () => call('sync.status', {}),
    (status) => status.state === 'idle' && status.lastSyncAt !== null,
    30_000,
  );
}

/** Typed calls of a core's RPC (`core` is read at each call, so a test may open it again). */
export function ipcCalls(core: () => Core): IpcCalls {
  return {
    async call(channel, input) {
      const result = await core().rpc.invoke(channel, input);
      if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
      return result.value as ChannelOutput<typeof channel>;
    },
    async refused(channel, input) {
      const result = await core().rpc.invoke(channel, input);
      if (result.ok) throw new Error(`${channel} succeeded: ${JSON.stringify(result.value)}`);
      return result.error;
    },
  };
}

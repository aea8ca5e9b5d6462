import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { FormatRegistry, type TSchema } from '@sinclair/typebox';
import {
  CHANNEL_NAMES,
  IPC_CHANNELS,
  isChannelName,
  type ChannelName,
  type ChannelTable,
  type IpcChannels,
  type IpcError,
  type IpcResult,
  type TableInput,
  type TableOutput,
} from '../shared/ipc';
import { AppError } from './base/errors';

/**
 * The handlers of a table of channels: an area's module (handlers/<area>.ts) implements exactly
 * its area's table (`RpcHandlers<typeof HUB_CHANNELS>`); core.ts merges them into the whole.
 */
export type RpcHandlers<Table extends ChannelTable = IpcChannels> = {
  [C in keyof Table]: (
    input: TableInput<Table, C>,
  ) => Promise<TableOutput<Table, C>> | TableOutput<Table, C>;
};

/** Turns any thrown value into an error the renderer can show; never leaks internals. */
export type ErrorTranslator = (error: unknown) => IpcError | undefined;

export interface RpcRouter {
  /** Validates and dispatches one call; never throws. */
  invoke(channel: unknown, input: unknown): Promise<IpcResult<unknown>>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
if (!FormatRegistry.Has('uuid')) FormatRegistry.Set('uuid', (value) => UUID.test(value));
// RFC 3339 date-time with a zone, as the service's timestamps are.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set(
    'date-time',
    (value) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
  );

const checkers = Object.fromEntries(
  CHANNEL_NAMES.map((name) => [name, TypeCompiler.Compile(IPC_CHANNELS[name].input as TSchema)]),
) as Record<ChannelName, TypeCheck<TSchema>>;

/** A channel name fit for a message; never calls into the value (it may be hostile). */
const describeChannel = (channel: unknown) =>
  typeof channel === 'string' ? JSON.stringify(channel.slice(0, 80)) : `of type ${typeof channel}`;

function describeInvalid(channel: ChannelName, input: unknown): string {
  const first = checkers[channel].Errors(input).First();
  const where = first?.path ? `"${first.path.slice(1).replaceAll('/', '.')}"` : 'the input';
  return `Invalid input for ${channel}: ${where} ${first?.message.toLowerCase() ?? 'is not valid'}.`;
}

/** The channel → handler table: every input validated against the contract before a handler sees it. */
export function createRpcRouter(
  handlers: RpcHandlers,
  translate: ErrorTranslator,
  log: (message: string) => void,
): RpcRouter {
  return {
    async invoke(channel, input) {
      if (!isChannelName(channel)) {
        return {
          ok: false,
          error: {
            kind: 'unknown_channel',
            message: `Unknown channel ${describeChannel(channel)}.`,
          },
        };
      }
      if (!checkers[channel].Check(input)) {
        return {
          ok: false,
          error: { kind: 'invalid_input', message: describeInvalid(channel, input) },
        };
      }
      try {
        const handler = handlers[channel] as (input: unknown) => unknown;
        return { ok: true, value: await handler(input) };
      } catch (error) {
        if (error instanceof AppError) return { ok: false, error: error.toIpcError() };
        const translated = translate(error);
        if (translated) return { ok: false, error: translated };
        log(
          `${channel} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        return {
          ok: false,
          error: {
            kind: 'internal',
            message:
              'Something went wrong inside Earmark. Try again; if it persists, restart the app.',
          },
        };
      }
    },
  };
}

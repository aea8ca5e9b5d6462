import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { ConversationId, DeviceId } from '../api';

/**
 * How a channel is declared: its input schema (main validates every input against it) and its
 * output type (a phantom, never a value). Each area's module declares its table of channels.
 */
export interface Channel<I extends TSchema, O> {
  input: I;
  /** Phantom: the output type, never a value. */
  output?: O;
}

export const channel =
  <O>() =>
  <I extends TSchema>(input: I): Channel<I, O> => ({ input });

/** A table of channels, by name. */
export type ChannelTable = Record<string, Channel<TSchema, unknown>>;

export type TableInput<T extends ChannelTable, C extends keyof T> = Static<T[C]['input']>;
export type TableOutput<T extends ChannelTable, C extends keyof T> = Exclude<
  T[C]['output'],
  undefined
>;

/** The input of a channel that takes nothing. */
export const None = Type.Object({}, { additionalProperties: false });

/** A conversation is named by its device and its id. */
export const ConversationRef = Type.Object(
  { deviceId: DeviceId, conversationId: ConversationId },
  { additionalProperties: false },
);

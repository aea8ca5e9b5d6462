import { ACCOUNT_CHANNELS } from './accounts';
import { ADMIN_CHANNELS } from './admin';
import { APP_CHANNELS } from './app';
import { AUDIO_CHANNELS } from './audio';
import type { TableInput, TableOutput } from './channel';
import { CONVERSATION_CHANNELS } from './conversations';
import type { EventName, IpcEvents } from './events';
import { EXPORT_CHANNELS } from './export';
import { FOLLOW_UP_CHANNELS } from './follow-ups';
import { HUB_CHANNELS } from './hub';
import { RECORDING_CHANNELS } from './recordings';
import { REVIEW_CHANNELS } from './review';
import { RETENTION_CHANNELS } from './retention';
import type { IpcResult } from './results';
import { SPEAKER_CHANNELS } from './speakers';
import { SYNC_CHANNELS } from './sync';

/**
 * The renderer↔main contract: every channel with its input schema and output type, and the
 * events main pushes. One module per area (matching main's handlers/<area>.ts), merged here.
 * Main validates every input against these schemas; the preload and the browser shell's
 * WebSocket carry exactly these channels; the renderer imports only types (and the schema-free
 * values of constants.ts, results.ts and events.ts).
 */
export const IPC_CHANNELS = {
  ...APP_CHANNELS,
  ...ACCOUNT_CHANNELS,
  ...HUB_CHANNELS,
  ...CONVERSATION_CHANNELS,
  ...RECORDING_CHANNELS,
  ...SPEAKER_CHANNELS,
  ...AUDIO_CHANNELS,
  ...EXPORT_CHANNELS,
  ...SYNC_CHANNELS,
  ...FOLLOW_UP_CHANNELS,
  ...ADMIN_CHANNELS,
  ...REVIEW_CHANNELS,
  ...RETENTION_CHANNELS,
} as const;

export * from './constants';
export * from './results';
export * from './events';
export type { ChannelTable, TableInput, TableOutput } from './channel';
export * from './app';
export * from './accounts';
export * from './hub';
export * from './conversations';
export * from './recordings';
export * from './speakers';
export * from './audio';
export * from './export';
export * from './sync';
export * from './follow-ups';
export * from './admin';
export * from './review';
export * from './retention';

export type IpcChannels = typeof IPC_CHANNELS;
export type ChannelName = keyof IpcChannels;
export type ChannelInput<C extends ChannelName> = TableInput<IpcChannels, C>;
export type ChannelOutput<C extends ChannelName> = TableOutput<IpcChannels, C>;
export const CHANNEL_NAMES = Object.keys(IPC_CHANNELS) as ChannelName[];

export const isChannelName = (name: unknown): name is ChannelName =>
  typeof name === 'string' && Object.prototype.hasOwnProperty.call(IPC_CHANNELS, name);

/** What the preload exposes as `window.earmark`, and the browser shell's bridge implements. */
export interface EarmarkApi {
  invoke<C extends ChannelName>(
    channel: C,
    input: ChannelInput<C>,
  ): Promise<IpcResult<ChannelOutput<C>>>;
  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void): () => void;
}

/** Browser shell WebSocket messages. */
export type WireRequest = { id: number; channel: string; input: unknown };
export type WireMessage =
  { id: number; result: IpcResult<unknown> } | { event: EventName; payload: unknown };

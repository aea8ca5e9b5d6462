import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  CONVERSATION_STATUSES,
  DeviceId,
  EpochMs,
  Uuid,
  type Conversation,
  type ConversationList,
  type CreateConversationResponse,
  type Device,
  type Entitlements,
  type Identity,
  type Label,
  type Preview,
  type TimelineMinute,
} from './api';

/**
 * The renderer↔main contract: every channel with its input schema and output type, and the
 * events main pushes. Main validates every input against these schemas; the preload and the
 * browser shell's WebSocket carry exactly these channels; the renderer imports only types.
 */

/** What is remembered of an account between runs (accounts.json): never the key itself. */
export interface AccountRecord {
  id: string;
  baseUrl: string;
  organizationId: string;
  organizationName: string;
  email: string;
  entitlements: Entitlements | null;
  allowedFeatures: string[];
  keyId: string | null;
  keyName: string | null;
  keyPrefix: string | null;
  expiresAt: string | null;
  /** Where the key lives: the OS keychain, or memory for this session only. */
  keyStorage: 'keychain' | 'session';
  /** The embedded demo clinic. */
  demo: boolean;
}

/** An account as the renderer sees it. */
export interface AccountSummary extends AccountRecord {
  /** False when the key is gone (a session-only key after a restart): add it again. */
  hasKey: boolean;
  active: boolean;
}

export type DiagnosticStep = 'identity' | 'devices' | 'conversations';

export interface DiagnosticCheck {
  step: DiagnosticStep;
  ok: boolean;
  /** What was found, in plain words. */
  summary: string;
  /** What to do next when the check failed. */
  advice?: string;
}

/** Seed §7: why a conversation list is empty, checked step by step. */
export interface DiagnosticsReport {
  checks: DiagnosticCheck[];
  /** The first failing step, if any. */
  failedStep: DiagnosticStep | null;
}

export interface AppInfo {
  version: string;
  shell: 'electron' | 'browser';
  platform: string;
}

/** Every error that crosses the boundary: a kind the UI can explain and a message to show. */
export interface IpcError {
  kind: string;
  message: string;
  status?: number;
  /** The service's own message, verbatim. */
  detail?: string;
  retryAfterMs?: number;
}

export type IpcResult<T> = { ok: true; value: T } | { ok: false; error: IpcError };

/** A conversation this app created, with the range it covers (the seed's conversation carries no times). */
export interface CreatedRange {
  conversationId: string;
  deviceId: string;
  startMs: number;
  endMs: number;
  createdAt: string;
}

/** The recorded minutes of [startMs, endMs) on a device, fetched as windows of at most 6 hours. */
export interface DayMinutes {
  deviceId: string;
  startMs: number;
  endMs: number;
  minutes: TimelineMinute[];
}

const Range = { deviceId: DeviceId, startMs: EpochMs, endMs: EpochMs };
const ConversationRef = Type.Object(
  { deviceId: DeviceId, conversationId: Type.String({ minLength: 1, maxLength: 64 }) },
  { additionalProperties: false },
);

const AccountId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
const None = Type.Object({}, { additionalProperties: false });

interface Channel<I extends TSchema, O> {
  input: I;
  /** Phantom: the output type, never a value. */
  output?: O;
}
const channel =
  <O>() =>
  <I extends TSchema>(input: I): Channel<I, O> => ({ input });

export const IPC_CHANNELS = {
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
  'accounts.list': channel<AccountSummary[]>()(None),
  /**
   * Validates the key with GET /auth/me, then stores it in the OS keychain. With no keychain the
   * call fails with kind `keychain_unavailable` unless `sessionOnly` accepts keeping the key in
   * memory until the app quits.
   */
  'accounts.add': channel<AccountSummary>()(
    Type.Object(
      {
        baseUrl: Type.String({ minLength: 1, maxLength: 500 }),
        apiKey: Type.String({ minLength: 8, maxLength: 500 }),
        sessionOnly: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  'accounts.remove': channel<AccountSummary[]>()(
    Type.Object({ accountId: AccountId }, { additionalProperties: false }),
  ),
  'accounts.activate': channel<AccountSummary[]>()(
    Type.Object({ accountId: AccountId }, { additionalProperties: false }),
  ),
  /** Starts the embedded demo clinic (the reference service on loopback) and activates its account. */
  'accounts.openDemo': channel<AccountSummary>()(None),
  /** Runs the seed's three checks for an empty conversation list on the active account. */
  'accounts.diagnose': channel<DiagnosticsReport>()(None),
  /** GET /auth/me of the active account, fresh from the service. */
  'identity.me': channel<Identity>()(None),
  'devices.list': channel<Device[]>()(None),
  /** A day (at most 26 hours) of a device's minutes; main fetches it as parallel 6-hour windows. */
  'hub.minutes': channel<DayMinutes>()(Type.Object(Range, { additionalProperties: false })),
  'hub.preview': channel<Preview>()(Type.Object(Range, { additionalProperties: false })),
  /** POST create; on success the range is remembered locally for drawing. */
  'hub.create': channel<CreateConversationResponse>()(
    Type.Object(Range, { additionalProperties: false }),
  ),
  'hub.complete': channel<Conversation>()(ConversationRef),
  /** The ranges this app created on a device that intersect [startMs, endMs). */
  'hub.createdRanges': channel<CreatedRange[]>()(
    Type.Object(Range, { additionalProperties: false }),
  ),
  'conversations.list': channel<ConversationList>()(
    Type.Object(
      {
        pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
        pageToken: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
        // Literals, not the API's one-enum schema: main checks IPC with TypeBox's own compiler.
        status: Type.Optional(
          Type.Union(CONVERSATION_STATUSES.map((status) => Type.Literal(status))),
        ),
        deviceId: Type.Optional(DeviceId),
      },
      { additionalProperties: false },
    ),
  ),
  'conversations.get': channel<Conversation>()(ConversationRef),
  /**
   * The record (label) an UPLOADED conversation became, found by its remembered range (the seed
   * links them by nothing else); null when this app did not create it or it is not there yet.
   */
  'conversations.record': channel<Label | null>()(ConversationRef),
  'labels.get': channel<Label>()(Type.Object({ labelId: Uuid }, { additionalProperties: false })),
} as const;

export type IpcChannels = typeof IPC_CHANNELS;
export type ChannelName = keyof IpcChannels;
export type ChannelInput<C extends ChannelName> = Static<IpcChannels[C]['input']>;
export type ChannelOutput<C extends ChannelName> = Exclude<IpcChannels[C]['output'], undefined>;
export const CHANNEL_NAMES = Object.keys(IPC_CHANNELS) as ChannelName[];

export const isChannelName = (name: unknown): name is ChannelName =>
  typeof name === 'string' && Object.prototype.hasOwnProperty.call(IPC_CHANNELS, name);

/** Connection to the active account's service. */
export interface ConnectionStatus {
  state: 'online' | 'offline' | 'unknown';
  lastError: IpcError | null;
  checkedAt: string | null;
}

/** Events main pushes to the renderer. */
export interface IpcEvents {
  'accounts.changed': AccountSummary[];
  'connection.changed': ConnectionStatus;
}
export type EventName = keyof IpcEvents;
export const EVENT_NAMES: readonly EventName[] = ['accounts.changed', 'connection.changed'];

/** What the preload exposes as `window.earmark`, and the browser shell's bridge implements. */
export interface EarmarkApi {
  invoke<C extends ChannelName>(
    channel: C,
    input: ChannelInput<C>,
  ): Promise<IpcResult<ChannelOutput<C>>>;
  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void): () => void;
}

/** Electron ipc channel names carrying the contract. */
export const ELECTRON_INVOKE_CHANNEL = 'earmark:invoke';
export const ELECTRON_EVENT_CHANNEL = 'earmark:event';

/** Browser shell WebSocket messages. */
export type WireRequest = { id: number; channel: string; input: unknown };
export type WireMessage =
  { id: number; result: IpcResult<unknown> } | { event: EventName; payload: unknown };

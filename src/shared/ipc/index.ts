import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  CONVERSATION_STATUSES,
  DeviceId,
  EpochMs,
  EVENT_TYPES,
  FIELD_TYPES,
  LABEL_SORTING_PROPERTIES,
  RECORD_TYPES,
  STATUS_CATEGORIES,
  Timestamp,
  Uuid,
  type ApiKey,
  type Comment,
  type Conversation,
  type ConversationList,
  type CreatedWebhook,
  type CreateConversationResponse,
  type Delivery,
  type Device,
  type Entitlements,
  type Identity,
  type InvalidFieldValues,
  type Label,
  type Preview,
  type StatusInUse,
  type Task,
  type TaskBoard,
  type TimelineMinute,
  type Webhook,
  type WebhookTestResponse,
} from '../api';
import type { SearchHit } from '../search';
import { EXPORT_MAX_LABELS } from './constants';

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
  /**
   * How an export folder is picked: the system's folder dialog (export.chooseFolder, Electron),
   * or a typed path (export.useFolder, the browser shell, which has no native dialog).
   */
  folderChoice: 'dialog' | 'path';
  /** Where exports go unless the user picks elsewhere (the Downloads folder when there is one). */
  defaultExportFolder: string;
}

/** Every error that crosses the boundary: a kind the UI can explain and a message to show. */
export interface IpcError {
  kind: string;
  message: string;
  status?: number;
  /** The service's own message, verbatim. */
  detail?: string;
  retryAfterMs?: number;
  /** PATCH board's 409: what blocks the save, so the UI can offer the choices. */
  boardConflict?: BoardConflict;
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

/**
 * A label's audio, ready to play: `mediaUrl` is relative to the renderer's page, so the same
 * address works in both shells (earmark://app/media/… and http://127.0.0.1:…/media/…), served
 * with Range by main. `waveform` is wavesurfer's precomputed peaks (null for MP4 audio).
 */
export interface PreparedAudio {
  labelId: string;
  mediaUrl: string;
  contentType: string;
  bytes: number;
  waveform: { peaks: [number[], number[]]; duration: number } | null;
}

/** The background sync of the active account's cache. */
export interface SyncStatus {
  state: 'idle' | 'running' | 'offline' | 'failed';
  /** Work done and known so far in the current run (labels listed, notes fetched, …). */
  done: number;
  total: number;
  /** When the last complete run finished, ISO 8601; null before the first. */
  lastSyncAt: string | null;
  /** Why the last run did not complete, in plain words. */
  message: string | null;
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

// ── Recordings (labels): list, assign, export ──────────────────────────────────────────────

/**
 * A page of recordings. From the service, `total` is its X-Total-Count; from the cache (offline,
 * or asked for with source 'cache'), the number of cached rows matching the same query.
 */
export interface LabelPage {
  items: Label[];
  total: number;
  source: ReadSource;
  /** When the cache last completed a sync (for a cached page), ISO 8601. */
  syncedAt: string | null;
}

/** A patient seen on cached recordings (the seed has no patient list), for assigning. */
export interface KnownPatient {
  id: string;
  name: string;
  /** Cached recordings assigned to this patient. */
  recordings: number;
}

/** A folder the user picked for exports; main remembers it, the renderer refers to it by id. */
export interface ExportFolder {
  folderId: string;
  path: string;
}

export type ExportFileState =
  'waiting' | 'downloading' | 'exported' | 'no_audio' | 'skipped' | 'failed' | 'cancelled';

/** An export's progress (the export.progress event), per file and overall. */
export interface ExportProgressEvent {
  exportId: string;
  filesDone: number;
  filesTotal: number;
  bytesDone: number;
  bytesTotal: number;
  file: { labelId: string; state: ExportFileState; bytesDone: number; bytesTotal: number | null };
}

/** One recording of a finished export, as the manifest lists it. */
export interface ExportRow {
  labelId: string;
  patient: string | null;
  type: string | null;
  status: Exclude<ExportFileState, 'waiting' | 'downloading'>;
  file: string | null;
  bytes: number | null;
  sha256: string | null;
  transcriptFile: string | null;
  error: string | null;
}

export interface ExportSummary {
  exportId: string;
  status: 'completed' | 'cancelled';
  folder: string;
  rows: ExportRow[];
  /** The manifest's files in the folder (manifest.csv and manifest.json, or numbered names). */
  manifestFiles: string[];
  /** A resumed export's folder, registered again so that a retry can go there (export.run). */
  folderId?: string;
}

/** An export that stopped before it finished (the app closed or crashed, the disk filled up). */
export interface UnfinishedExport {
  /** The id of the export that started it: export.resume and export.discard name it by this. */
  journalId: string;
  folder: string;
  /** Recordings in the export, and how many of them are finished. */
  total: number;
  done: number;
  startedAt: string;
}

const LabelQueryInput = {
  sortingProperty: Type.Optional(
    Type.Union(LABEL_SORTING_PROPERTIES.map((property) => Type.Literal(property))),
  ),
  isSortingDescending: Type.Optional(Type.Boolean()),
  patientSearch: Type.Optional(Type.String({ maxLength: 200 })),
  types: Type.Optional(
    Type.Array(Type.Union(RECORD_TYPES.map((type) => Type.Literal(type))), {
      maxItems: RECORD_TYPES.length,
    }),
  ),
  fromTime: Type.Optional(Timestamp),
  toTime: Type.Optional(Timestamp),
};
const LabelFilterInput = Type.Object(LabelQueryInput, { additionalProperties: false });
export type LabelFilter = Static<typeof LabelFilterInput>;
const ExportId = Uuid;

const RECORDING_CHANNELS = {
  /**
   * A page of recordings with the service's filters and sorting. source 'service' (the default)
   * asks the service and keeps the rows in the cache, answering from the cache when the service
   * is unreachable; 'cache' answers from the cache at once (the renderer's first paint).
   */
  'labels.list': channel<LabelPage>()(
    Type.Object(
      {
        ...LabelQueryInput,
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
        source: Type.Optional(Type.Union([Type.Literal('service'), Type.Literal('cache')])),
      },
      { additionalProperties: false },
    ),
  ),
  /** Patients of cached recordings whose name contains `search` (all when empty), by name. */
  'labels.patients': channel<KnownPatient[]>()(
    Type.Object(
      {
        search: Type.String({ maxLength: 200 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      },
      { additionalProperties: false },
    ),
  ),
  /** POST assign, then answers the recording as the service now holds it (and caches it). */
  'labels.assign': channel<Label>()(
    Type.Object(
      { labelId: Uuid, patientId: Type.String({ minLength: 1, maxLength: 64 }) },
      { additionalProperties: false },
    ),
  ),
  /** Electron: the system's folder dialog; null when the user cancels it. */
  'export.chooseFolder': channel<ExportFolder | null>()(None),
  /** Browser shell: a typed absolute path to an existing folder (checked writable). */
  'export.useFolder': channel<ExportFolder>()(
    Type.Object(
      { path: Type.String({ minLength: 1, maxLength: 4096 }) },
      { additionalProperties: false },
    ),
  ),
  /**
   * Exports recordings (by id, or every recording matching a filter) into a chosen folder;
   * answers when done or cancelled, with export.progress events meanwhile.
   */
  'export.run': channel<ExportSummary>()(
    Type.Object(
      {
        exportId: ExportId,
        folderId: Uuid,
        labels: Type.Union([
          Type.Object(
            { ids: Type.Array(Uuid, { minItems: 1, maxItems: EXPORT_MAX_LABELS }) },
            { additionalProperties: false },
          ),
          Type.Object({ filter: LabelFilterInput }, { additionalProperties: false }),
        ]),
        transcripts: Type.Boolean(),
        onExists: Type.Union([
          Type.Literal('keep-both'),
          Type.Literal('replace'),
          Type.Literal('skip'),
        ]),
      },
      { additionalProperties: false },
    ),
  ),
  'export.cancel': channel<null>()(
    Type.Object({ exportId: ExportId }, { additionalProperties: false }),
  ),
  /** Opens the folder of an export that finished (never a path from the renderer). */
  'export.openFolder': channel<null>()(
    Type.Object({ exportId: ExportId }, { additionalProperties: false }),
  ),
  /** The active account's exports that stopped before they finished (after a restart too). */
  'export.unfinished': channel<UnfinishedExport[]>()(None),
  /**
   * Goes on with an unfinished export, in its folder with its options: the recordings it had
   * finished are not exported again, and its manifest lists every recording. exportId names this
   * run (its export.progress events, cancel, openFolder).
   */
  'export.resume': channel<ExportSummary>()(
    Type.Object({ exportId: ExportId, journalId: ExportId }, { additionalProperties: false }),
  ),
  /** Gives up an unfinished export: the files it exported stay; its partial downloads go. */
  'export.discard': channel<null>()(
    Type.Object({ journalId: ExportId }, { additionalProperties: false }),
  ),
} as const;

// ── Follow-ups (task boards) and administration (webhooks, API keys) ─────────────────────────

/** Where a read came from: the service now, or what main kept of the last read (offline). */
export type ReadSource = 'service' | 'cache';

/** The 409 of PATCH board, as the UI needs it to offer the two choices. */
export interface BoardConflict {
  /** Removed statuses that tasks still use: choose a status to move them to (migrateTo). */
  statusesInUse: StatusInUse[];
  /** Fields whose stored values would become invalid: confirm dropping them. */
  invalidFieldValues: InvalidFieldValues[];
}

export interface BoardsView {
  boards: TaskBoard[];
  source: ReadSource;
  /** When this list was read from the service (for a cached read: the last time it was). */
  fetchedAt: string | null;
}

/** A board with its tasks (every page, up to a cap) and the comments posted from this app. */
export interface BoardView {
  board: TaskBoard;
  tasks: Task[];
  /** The number of tasks on the board; more than tasks.length when the cap was reached. */
  total: number;
  /**
   * Comments by task id. The service has no endpoint that lists comments, so these are the ones
   * posted from this app, as the service returned them, oldest first.
   */
  comments: Record<string, Comment[]>;
  source: ReadSource;
  fetchedAt: string | null;
}

/** The follow-ups of one visit (the tasks of a groupKey) on every board. */
export interface GroupFollowUps {
  groupKey: string;
  boards: TaskBoard[];
  tasks: Task[];
  source: ReadSource;
}

const Slug = Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z][a-z0-9_]*$' });
const StatusRefInput = Type.String({ minLength: 1, maxLength: 40 });
const BoardStatusInput = Type.Object(
  {
    id: Slug,
    name: Type.String({ minLength: 1, maxLength: 80 }),
    category: Type.Union(STATUS_CATEGORIES.map((category) => Type.Literal(category))),
  },
  { additionalProperties: false },
);
const BoardFieldInput = Type.Object(
  {
    key: Slug,
    name: Type.String({ minLength: 1, maxLength: 80 }),
    type: Type.Union(FIELD_TYPES.map((type) => Type.Literal(type))),
    options: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 100 }),
    ),
  },
  { additionalProperties: false },
);
const BoardStatusesInput = Type.Array(BoardStatusInput, { minItems: 1, maxItems: 50 });
const BoardFieldsInput = Type.Array(BoardFieldInput, { maxItems: 50 });
const FieldValueInput = Type.Union([Type.String({ maxLength: 2000 }), Type.Number()]);
const NullableTextInput = (maxLength: number) =>
  Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));
const TaskInputSchema = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 300 }),
    groupKey: Type.Optional(Type.String({ maxLength: 200 })),
    fields: Type.Optional(Type.Record(Type.String(), FieldValueInput, { maxProperties: 50 })),
    linkUrl: Type.Optional(Type.String({ maxLength: 2000 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    assignee: Type.Optional(Type.String({ maxLength: 200 })),
    dueDate: Type.Optional(Type.String({ maxLength: 40 })),
    statusId: Type.Optional(StatusRefInput),
  },
  { additionalProperties: false },
);
const BoardRef = Type.Object({ boardId: Uuid }, { additionalProperties: false });
const WebhookRef = Type.Object({ webhookId: Uuid }, { additionalProperties: false });

const FOLLOW_UP_AND_ADMIN_CHANNELS = {
  /** The organization's boards (GET /task-boards where the service has it). */
  'followUps.boards': channel<BoardsView>()(Type.Object({}, { additionalProperties: false })),
  /** POST /task-boards; without statuses and fields the service applies its default template. */
  'followUps.createBoard': channel<TaskBoard>()(
    Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        statuses: Type.Optional(BoardStatusesInput),
        fields: Type.Optional(BoardFieldsInput),
      },
      { additionalProperties: false },
    ),
  ),
  /** A board and all its tasks; offline, what main kept of the last read. */
  'followUps.board': channel<BoardView>()(BoardRef),
  /**
   * PATCH board with the complete arrays. A 409 comes back as kind `conflict` with
   * `boardConflict`; send again with `migrateTo` and/or `dropInvalidFieldValues`.
   */
  'followUps.saveBoard': channel<TaskBoard>()(
    Type.Object(
      {
        boardId: Uuid,
        name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        statuses: Type.Optional(BoardStatusesInput),
        fields: Type.Optional(BoardFieldsInput),
        migrateTo: Type.Optional(StatusRefInput),
        dropInvalidFieldValues: Type.Optional(Type.Boolean()),
      },
      { additionalProperties: false },
    ),
  ),
  /** Bulk creation, all or nothing. */
  'followUps.addTasks': channel<Task[]>()(
    Type.Object(
      { boardId: Uuid, items: Type.Array(TaskInputSchema, { minItems: 1, maxItems: 100 }) },
      { additionalProperties: false },
    ),
  ),
  /** The tasks of one visit (groupKey) on every board. */
  'followUps.group': channel<GroupFollowUps>()(
    Type.Object(
      { groupKey: Type.String({ minLength: 1, maxLength: 200 }) },
      { additionalProperties: false },
    ),
  ),
  /** PATCH task: `fields` is a merge patch (null deletes); null text is unchanged, "" clears. */
  'followUps.patchTask': channel<Task>()(
    Type.Object(
      {
        taskId: Uuid,
        patch: Type.Object(
          {
            statusId: Type.Optional(StatusRefInput),
            fields: Type.Optional(
              Type.Record(
                Type.String(),
                Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Null()]),
                { maxProperties: 50 },
              ),
            ),
            description: NullableTextInput(10_000),
            assignee: NullableTextInput(200),
            dueDate: NullableTextInput(40),
            completedAt: NullableTextInput(40),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    ),
  ),
  /** POST a comment; main keeps it, since the service cannot list comments. */
  'followUps.comment': channel<Comment>()(
    Type.Object(
      { taskId: Uuid, body: Type.String({ minLength: 1, maxLength: 10_000 }) },
      { additionalProperties: false },
    ),
  ),
  /** The organization's webhooks (owner or admin). */
  'admin.webhooks': channel<Webhook[]>()(Type.Object({}, { additionalProperties: false })),
  /** The answer holds the signing secret: the only time it is ever shown. */
  'admin.createWebhook': channel<CreatedWebhook>()(
    Type.Object(
      {
        url: Type.String({ minLength: 1, maxLength: 2000, pattern: '^https?://' }),
        description: Type.String({ maxLength: 500 }),
        eventTypes: Type.Optional(
          Type.Array(Type.Union(EVENT_TYPES.map((type) => Type.Literal(type))), {
            maxItems: EVENT_TYPES.length,
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  /** Deletes a webhook; answers the list as it is afterwards. */
  'admin.deleteWebhook': channel<Webhook[]>()(WebhookRef),
  /** Sends a ping to the webhook; answers once the first attempt has an outcome. */
  'admin.testWebhook': channel<WebhookTestResponse>()(WebhookRef),
  /** Re-enables a disabled webhook; answers the list as it is afterwards. */
  'admin.enableWebhook': channel<Webhook[]>()(WebhookRef),
  /** The last 50 delivery attempts, newest first. */
  'admin.deliveries': channel<Delivery[]>()(WebhookRef),
  'admin.apiKeys': channel<ApiKey[]>()(Type.Object({}, { additionalProperties: false })),
  /** Revokes a key (immediate, irreversible); answers the list as it is afterwards. */
  'admin.revokeApiKey': channel<ApiKey[]>()(
    Type.Object({ keyId: Uuid }, { additionalProperties: false }),
  ),
} as const;

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
  /**
   * The range this app created the conversation from (kept in the cache, so offline too); null
   * when it was created elsewhere (a hub in auto mode, another program): the seed's conversation
   * carries no times of its own.
   */
  'conversations.createdRange': channel<CreatedRange | null>()(ConversationRef),
  /** Downloads (or finds cached) a label's audio and its peaks; progress as audio.progress. */
  'audio.prepare': channel<PreparedAudio>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
  /** Starts a sync of the active account now (if none is running) and answers its status. */
  'sync.run': channel<SyncStatus>()(None),
  'sync.status': channel<SyncStatus>()(None),
  /** Full-text search over everything cached (works offline): ranked, with marked snippets. */
  search: channel<SearchHit[]>()(
    Type.Object(
      {
        query: Type.String({ maxLength: 200 }),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      },
      { additionalProperties: false },
    ),
  ),
  'labels.get': channel<Label>()(Type.Object({ labelId: Uuid }, { additionalProperties: false })),
  ...RECORDING_CHANNELS,
  ...FOLLOW_UP_AND_ADMIN_CHANNELS,
} as const;

export * from './constants';

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
  'audio.progress': { labelId: string; bytesDone: number; bytesTotal: number | null };
  'sync.changed': SyncStatus;
  'export.progress': ExportProgressEvent;
}
export type EventName = keyof IpcEvents;
export const EVENT_NAMES: readonly EventName[] = [
  'accounts.changed',
  'connection.changed',
  'audio.progress',
  'sync.changed',
  'export.progress',
];

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

import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MEDIA_PATH_PREFIX, type EventName, type IpcEvents } from '../shared/ipc';
import { AccountScopes } from './account-scope';
import { AccountStore } from './accounts/account-store';
import { AccountService } from './accounts/accounts';
import { keychainCredentials } from './accounts/demo-credentials';
import { KeychainSecretStore, SessionSecretStore, type SecretStore } from './accounts/secret-store';
import { ActiveService } from './connection/active-service';
import { Administration } from './admin/administration';
import type { MediaRequest, MediaResponse } from './audio/media';
import { AudioPreparation } from './audio/prepare';
import type { ShellCapabilities } from './base/capabilities';
import { Closables } from './base/closables';
import type { CoreContext } from './context';
import { Conversations } from './conversations/conversations';
import { ConversationRanges } from './conversations/ranges';
import type { ServiceDialect } from '../service/app';
import { DemoClinic } from './accounts/demo-clinic';
import { makeOwnerOnly } from '../node-common/private-files';
import { Exports } from './export/exports';
import { CommentStore } from './follow-ups/comment-store';
import { FollowUps } from './follow-ups/follow-ups';
import { accountHandlers } from './handlers/accounts';
import { adminHandlers } from './handlers/admin';
import { appHandlers } from './handlers/app';
import { audioHandlers } from './handlers/audio';
import { conversationHandlers } from './handlers/conversations';
import { exportHandlers } from './handlers/export';
import { followUpHandlers } from './handlers/follow-ups';
import { hubHandlers } from './handlers/hub';
import { recordingHandlers } from './handlers/recordings';
import { reviewHandlers } from './handlers/review';
import { speakerHandlers } from './handlers/speakers';
import { retentionHandlers } from './handlers/retention';
import { syncHandlers } from './handlers/sync';
import { Hub } from './hub/hub';
import { defaultExportFolder } from './base/paths';
import { Recordings } from './recordings/recordings';
import { SpeakerNames } from './recordings/speaker-names';
import { TimedTranscripts } from './recordings/timed-transcripts';
import { ReadyNotifier } from './review/notifications';
import { Review } from './review/review';
import { SignOffs } from './review/sign-off';
import { PatientSuggestions } from './review/suggestions';
import { nameFromEmail } from '../shared/accounts/names';
import { isApiError } from './service-client/errors';
import { AppError, messageOf } from './base/errors';
import { Retention } from './retention/retention';
import type { CleanupSchedule } from './retention/runner';
import { createRpcRouter, type RpcRouter } from './rpc';
import {
  connectService,
  translateServiceError,
  type ServiceClient,
} from './service-client/connect';

export interface CoreOptions extends ShellCapabilities {
  /** The app's data folder (accounts.json; later the cache). Never holds a key. */
  dataDir: string;
  /** Which shell hosts the core: information for app.info only (main acts on capabilities). */
  shell: 'electron' | 'browser';
  version: string;
  /** Where keys live; the OS keychain unless a test or a platform says otherwise. */
  keychain?: SecretStore;
  /** Makes the API client of an account (tests can point it through a proxy). */
  connect?: (baseUrl: string, apiKey: string) => ServiceClient;
  /** Where exports go by default, instead of Downloads (tests, managed desktops). */
  exportFolder?: string;
  /** How long the demo clinic takes to process a completed conversation. */
  demoProcessingMs?: number;
  /** How the demo clinic's service behaves: as the seed says (default) or as in the field. */
  demoDialect?: ServiceDialect;
  /** The folder holding demo-speech/ (the source tree's resources/ unless packaged elsewhere). */
  resourcesDir?: string;
  /** The SQLite addon for this runtime, when not the default (Electron). */
  sqliteBinding?: string;
  /**
   * How the accounts' caches are kept: sealed under each account's key (the default; the app
   * always) or in the clear as before issue 30 — the benchmarks' baseline and the test that
   * shows what that gives away. No shell sets it.
   */
  atRest?: 'sealed' | 'plain';
  /**
   * When the active account's cleanup runs by itself: both shells give the app's (at start and
   * daily, retention/runner.ts). Without one it runs only when asked ("Remove now"; tests).
   */
  cleanupSchedule?: CleanupSchedule;
  log?: (message: string) => void;
}

export interface Core {
  rpc: RpcRouter;
  /**
   * The shells' media route: a label's audio of the active account with Range, from the cache or
   * streaming into it (a 404 for what is not a label id, or with no account).
   */
  media(request: MediaRequest, labelId: string): Promise<MediaResponse>;
  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void): () => void;
  close(): Promise<void>;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Wires what both shells host: accounts, the active account's service and its scope (caches,
 * sync, follows), the demo clinic, the services of each area, and the RPC table of their
 * handlers. Everything it opens is closed by `close`, in the reverse order it was opened.
 */
export function createCore(options: CoreOptions): Core {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  void makeOwnerOnly(options.dataDir); // what earlier versions made before the umask
  const connect = options.connect ?? connectService;
  const closables = new Closables();
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const emit = <E extends EventName>(event: E, payload: IpcEvents[E]) => {
    for (const listener of listeners.get(event) ?? [])
      (listener as (p: IpcEvents[E]) => void)(payload);
  };
  const on = <E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void) => {
    const set = listeners.get(event) ?? new Set();
    set.add(listener as (payload: never) => void);
    listeners.set(event, set);
    return () => set.delete(listener as (payload: never) => void);
  };

  const keychain = options.keychain ?? new KeychainSecretStore();
  const accounts = new AccountService(
    new AccountStore(join(options.dataDir, 'accounts.json')),
    keychain,
    new SessionSecretStore(),
    async (baseUrl, apiKey) => {
      const client = connect(baseUrl, apiKey);
      try {
        return await client.me();
      } finally {
        await client.close();
      }
    },
  );
  const activeAccountId = () => accounts.active().account.id;
  const organizationId = () => accounts.active().account.organizationId;
  const demoDir = join(options.dataDir, 'demo-service');
  const demo = new DemoClinic({
    dataDir: demoDir,
    credentials: keychainCredentials(keychain, demoDir),
    processingMs: options.demoProcessingMs,
    dialect: options.demoDialect,
    resourcesDir: options.resourcesDir,
    nativeBinding: options.sqliteBinding,
  });
  closables.add('the demo clinic', () => demo.stop());
  // The active account's scope holds its caches, its sync and its follows (account-scope.ts).
  const cache = () => scopes.active().cache();

  const service: ActiveService = new ActiveService({
    accounts,
    demo,
    connect,
    cache,
    changed: (status) => emit('connection.changed', status),
    answered: () => scopes.active().serviceAnswered(),
    log,
  });
  closables.add('the service client', () => service.close());

  const ranges = new ConversationRanges({ service, cache, organizationId });
  const recordings = new Recordings({
    service,
    cache,
    organizationId,
    lastSyncAt: () => scopes.syncStatus().lastSyncAt,
  });
  const speakerNames = new SpeakerNames({
    cache,
    record: async (labelId) => (await recordings.get(labelId)).value,
  });
  const conversations = new Conversations({
    service,
    cache,
    organizationId,
    ranges,
    record: (labelId) => recordings.get(labelId),
  });
  const audio = new AudioPreparation({
    audioCache: () => scopes.active().audioCache(),
    service,
    accountId: activeAccountId,
    mediaUrl: options.mediaUrl ?? ((labelId) => `${MEDIA_PATH_PREFIX}${labelId}`),
    progress: (progress) => emit('audio.progress', progress),
  });
  const shell: ShellCapabilities = {
    openExternal: options.openExternal,
    chooseFolder: options.chooseFolder,
    openFolder: options.openFolder,
  };
  const exportFolder = () => options.exportFolder ?? defaultExportFolder();
  const hub = new Hub({ service, cache, organizationId, ranges });
  const timedTranscripts = new TimedTranscripts(hub);
  // The key the active account's files beside its cache are sealed under (comments, export
  // journals); another account's data is not opened here.
  const activeAccountKey = async (accountId: string) => {
    const scope = scopes.active();
    if (scope.accountId !== accountId)
      throw new AppError('cancelled', 'Another clinic account became active.');
    return scope.sealingKey();
  };
  const followUps = new FollowUps({
    service,
    cache,
    comments: new CommentStore({
      folder: join(options.dataDir, 'comments'),
      legacyFile: join(options.dataDir, 'follow-ups.json'),
      keyOf: activeAccountKey,
      log,
    }),
    accountId: activeAccountId,
  });
  const administration = new Administration({ accounts, service });
  const review = new Review({
    cache,
    changed: (count) => emit('review.changed', { count }),
    // Only an owner or admin may list the clinic's webhooks: the service says who the user is.
    async mayTurnOnSignOff() {
      try {
        await administration.webhooks();
      } catch (error) {
        if (isApiError(error) && error.kind === 'scope_missing')
          throw new AppError(
            'scope_missing',
            'Only an owner or admin of the clinic can turn on sign-off: it writes to the clinic’s task boards.',
          );
        throw error;
      }
    },
  });
  const signOffs = new SignOffs({
    service,
    cache,
    review,
    userName: () => nameFromEmail(accounts.active().account.email),
  });
  // A conversation created here that the active account's follower sees reach its end.
  const readyNotifier = new ReadyNotifier({
    cache,
    review,
    conversations,
    notify: (notification) => emit('review.notification', notification),
    log,
  });
  const unfollow = on('conversation.changed', (change) => readyNotifier.changed(change));
  closables.add('the notifications', async () => void unfollow());
  // Another clinic's queue: its count, at once.
  const unswitch = accounts.onActiveChange((activeId) => {
    if (activeId) void review.refresh().catch(() => undefined);
  });
  closables.add('the review count', async () => void unswitch());

  const exports = new Exports({
    journalFolder: join(options.dataDir, 'exports'),
    keyOf: activeAccountKey,
    accounts,
    service,
    cache,
    shell,
    defaultExportFolder: exportFolder,
    progress: (event) => emit('export.progress', event),
    timedTranscripts,
    speakerNames,
  });

  // When the user last asked anything of the app (a call from a screen, a recording's bytes):
  // the cache's weekly check waits for them to be away. The app's start counts as one.
  let askedAt = Date.now();
  const scopes: AccountScopes = new AccountScopes({
    accounts,
    dataDir: options.dataDir,
    atRest: options.atRest ?? 'sealed',
    sqliteBinding: options.sqliteBinding,
    service,
    conversations,
    emit,
    syncEnded: (result) => {
      service.syncEnded(result);
      // New transcript versions the sync brought get the names that still fit (and the search
      // their lines) without waiting for the record to be opened.
      void speakerNames
        .refresh()
        .catch((error: unknown) => log(`speaker names: ${messageOf(error)}`));
      void followUps
        .openComments()
        .catch((error: unknown) => log(`follow-up comments: ${messageOf(error)}`));
      // What a sync brought (and the clinic's sign-offs, read after it) changes the queue.
      // Either may fail once the app is closing (the account's cache is gone): nothing to show then.
      const queueRead =
        result.outcome === 'complete'
          ? signOffs.refresh().catch(() => review.refresh())
          : review.refresh();
      void queueRead.catch(() => undefined);
    },
    resumeAudio: () => audio.resumePartials(),
    retention: (accountId) => accounts.retentionOf(accountId),
    recordsInUse: (accountId) => exports.recordsInUse(accountId),
    cleanupSchedule: options.cleanupSchedule,
    idleMs: () => Date.now() - askedAt,
    // What removing an account deletes besides its cache and audio: its running exports and
    // their journals, its follow-up comments, and what the hosting shell keeps of it (the
    // browser shell's Chromium cache).
    holders: [
      exports,
      { forgetAccount: async (accountId) => followUps.forgetAccount(accountId) },
      { forgetAccount: async (accountId) => options.forgetAccount?.(accountId) },
    ],
    log,
  });
  closables.add('the account', () => scopes.close());
  // Quitting cancels the exports under way first, so none is left with a partial file.
  closables.add('the exports', () => exports.stopAll());

  const context: CoreContext = {
    about: { version: options.version, shell: options.shell },
    shell,
    accounts,
    demo,
    emit,
    service,
    cache,
    defaultExportFolder: exportFolder,
    sync: () => scopes.active().startSync(),
    syncStatus: () => scopes.syncStatus(),
    cacheLocked: () => scopes.locked(),
    startFreshCache: (accountId) => scopes.startFresh(accountId),
    hub,
    timedTranscripts,
    speakerNames,
    forgetAccountData: async (accountId) => {
      await scopes.removeEverything(accountId);
    },
    retention: new Retention({
      accounts,
      cache,
      audioCache: () => scopes.active().audioCache(),
      cleanup: () => scopes.active().cleanup,
      recordsInUse: (accountId) => exports.recordsInUse(accountId),
      sync: () => void scopes.active().startSync(),
      record: (labelId) => recordings.get(labelId),
      removeEverything: (accountId) => scopes.removeEverything(accountId),
    }),
    recordings,
    conversations,
    conversationFollower: { follow: (ref) => scopes.active().follower.follow(ref) },
    exports,
    followUps,
    audio,
    administration,
    review,
    signOffs,
    patientSuggestions: new PatientSuggestions({ cache }),
  };
  const router = createRpcRouter(
    {
      ...appHandlers(context),
      ...accountHandlers(context),
      ...hubHandlers(context),
      ...conversationHandlers(context),
      ...recordingHandlers(context),
      ...speakerHandlers(context),
      ...audioHandlers(context),
      ...exportHandlers(context),
      ...syncHandlers(context),
      ...followUpHandlers(context),
      ...adminHandlers(context),
      ...reviewHandlers(context),
      ...retentionHandlers(context),
    },
    translateServiceError,
    log,
  );

  return {
    rpc: {
      invoke(channel, input) {
        askedAt = Date.now();
        return router.invoke(channel, input);
      },
    },
    async media(request, labelId) {
      askedAt = Date.now();
      if (!UUID_PATTERN.test(labelId)) return { status: 404, headers: {}, body: null };
      try {
        return await audio.media(request, labelId);
      } catch (error) {
        // Whatever went wrong serving one file: that request's answer, never the process's end.
        log(`media ${labelId}: ${error instanceof Error ? error.message : String(error)}`);
        return {
          status: 503,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
          body: Readable.from(['The audio cannot be served now.\n']),
        };
      }
    },
    on,
    close: () => closables.close(),
  };
}

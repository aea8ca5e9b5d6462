import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { MEDIA_PATH_PREFIX, type EventName, type IpcEvents } from '../shared/ipc';
import { AccountStore } from './accounts/account-store';
import { AccountService } from './accounts/accounts';
import { keychainCredentials } from './accounts/demo-credentials';
import { KeychainSecretStore, SessionSecretStore, type SecretStore } from './accounts/secret-store';
import { ActiveService } from './active-service';
import { Administration } from './admin/administration';
import { AudioCache } from './audio/audio-cache';
import type { MediaRequest, MediaResponse } from './audio/media';
import { AudioPreparation } from './audio/prepare';
import { cacheFileOf, openCache, type Cache } from './cache';
import type { ShellCapabilities } from './capabilities';
import type { CoreContext } from './context';
import { Conversations } from './conversations/conversations';
import { ConversationRanges } from './conversations/ranges';
import { ConversationFollower } from './conversations/follow';
import type { ServiceDialect } from '../service/app';
import { makeOwnerOnly } from '../node/private-files';
import { DemoClinic } from './demo-clinic';
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
import { syncHandlers } from './handlers/sync';
import { Hub } from './hub/hub';
import { defaultExportFolder } from './paths';
import { Recordings } from './recordings/recordings';
import { TimedTranscripts } from './recordings/timed-transcripts';
import { createRpcRouter, type RpcRouter } from './rpc';
import { connectService, translateServiceError, type ServiceClient } from './service-client';
import { SYNC_INTERVAL_MS, SyncRunner } from './sync';

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
  /** better-sqlite3's addon for this runtime, when not the default (Electron). */
  sqliteBinding?: string;
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
 * Wires what both shells host: accounts, the active account's service and caches, the demo
 * clinic, the background sync, the services of each area, and the RPC table of their handlers.
 */
export function createCore(options: CoreOptions): Core {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  void makeOwnerOnly(options.dataDir); // what earlier versions made before the umask
  const connect = options.connect ?? connectService;
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const emit = <E extends EventName>(event: E, payload: IpcEvents[E]) => {
    if (event === 'accounts.changed') accountsChanged();
    for (const listener of listeners.get(event) ?? [])
      (listener as (p: IpcEvents[E]) => void)(payload);
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

  const caches = new Map<string, Promise<Cache>>();
  /** The active account's cache, opened on first use and kept until the app quits. */
  const cache = () => {
    const id = activeAccountId();
    let opened = caches.get(id);
    if (!opened) {
      opened = openCache({
        file: cacheFileOf(options.dataDir, id),
        nativeBinding: options.sqliteBinding,
      });
      caches.set(id, opened);
    }
    return opened;
  };

  const audioCaches = new Map<string, Promise<AudioCache>>();
  /** The active account's audio cache, opened on first use and kept until the app quits. */
  const audioCache = () => {
    const id = activeAccountId();
    let opened = audioCaches.get(id);
    if (!opened) {
      opened = AudioCache.open({ folder: join(options.dataDir, 'audio', id) });
      audioCaches.set(id, opened);
    }
    return opened;
  };

  /**
   * Deletes what this computer holds of a removed account: its cache (with its WAL), its audio
   * and its unfinished exports. Clinical data does not outlive the account on this computer.
   */
  async function forgetAccountData(accountId: string): Promise<void> {
    if (syncedAccount === accountId) {
      syncedAccount = undefined;
      await syncRunner.stop();
    }
    const openedCache = caches.get(accountId);
    caches.delete(accountId);
    await (await openedCache?.catch(() => undefined))?.close().catch(() => undefined);
    const openedAudio = audioCaches.get(accountId);
    audioCaches.delete(accountId);
    await (await openedAudio?.catch(() => undefined))?.close().catch(() => undefined);
    const file = cacheFileOf(options.dataDir, accountId);
    await Promise.all(
      ['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${file}${suffix}`, { force: true })),
    );
    await rm(join(options.dataDir, 'audio', accountId), { recursive: true, force: true });
    await exports.forgetAccount(accountId);
    context.followUps.forgetAccount(accountId);
    await options.forgetAccount?.(accountId);
  }

  const audio = new AudioPreparation({
    audioCache,
    service: { call: (run) => service.call(run) },
    accountId: activeAccountId,
    mediaUrl: options.mediaUrl ?? ((labelId) => `${MEDIA_PATH_PREFIX}${labelId}`),
    progress: (progress) => emit('audio.progress', progress),
  });

  const service = new ActiveService({
    accounts,
    demo,
    connect,
    cache,
    changed: (status) => emit('connection.changed', status),
    // The first answer from an account's service starts its background sync, and goes on
    // filling the recordings a crash or a restart left partly cached.
    answered: () => {
      if (syncedAccount !== activeAccountId()) {
        sync();
        void audio.resumePartials().catch(() => undefined);
      }
    },
    log,
  });

  // While the user only reads, the background sync is the app's one contact with the service:
  // what it finds is the connection's state too (an offline app comes back when a sync completes).
  const syncRunner = new SyncRunner(
    (status) => emit('sync.changed', status),
    ({ outcome, error }) => {
      if (outcome === 'offline' && error) {
        const { name: _name, ...lastError } = error;
        service.setConnection('offline', lastError);
      } else if (outcome === 'complete' && service.connection().state !== 'online') {
        service.setConnection('online', null);
      }
    },
  );
  let syncedAccount: string | undefined;
  /** Syncs the active account now, unless a run is under way; a switch of account stops the old run. */
  const sync = () => {
    const { account } = accounts.active();
    if (syncedAccount !== account.id) {
      syncedAccount = account.id;
      void syncRunner.stop();
    }
    void (async () => {
      const accountCache = await cache();
      const client = await service.client();
      // Another account became active while these were opened: they may be its, so this run
      // must not start (with one clinic's cache and another's client); its own sync runs.
      if (accounts.active().account.id !== account.id) return;
      syncRunner.start(accountCache, client, account.organizationId);
    })().catch((error: unknown) =>
      log(`sync did not start: ${error instanceof Error ? error.message : String(error)}`),
    );
    return syncRunner.current;
  };
  const syncTimer = setInterval(() => {
    if (accounts.list().some((a) => a.active && a.hasKey)) sync();
  }, SYNC_INTERVAL_MS);
  syncTimer.unref();

  const ranges = new ConversationRanges({ service, cache, organizationId });
  const conversations = new Conversations({ service, cache, organizationId, ranges });
  const conversationFollower = new ConversationFollower({
    service,
    conversations,
    cache,
    accountId: activeAccountId,
    changed: (change) => emit('conversation.changed', change),
    log,
  });
  /** Another account became active (or none is): the old one's follows stop. */
  function accountsChanged() {
    const active = accounts.list().find((account) => account.active);
    conversationFollower.stopOthers(active?.id ?? '');
  }
  const shell: ShellCapabilities = {
    openExternal: options.openExternal,
    chooseFolder: options.chooseFolder,
    openFolder: options.openFolder,
  };
  const exportFolder = () => options.exportFolder ?? defaultExportFolder();
  const hub = new Hub({ service, cache, organizationId, ranges });
  const timedTranscripts = new TimedTranscripts(hub);
  const exports = new Exports({
    journalFolder: join(options.dataDir, 'exports'),
    accounts,
    service,
    cache,
    shell,
    defaultExportFolder: exportFolder,
    progress: (event) => emit('export.progress', event),
    timedTranscripts,
  });

  const context: CoreContext = {
    about: { version: options.version, shell: options.shell },
    shell,
    accounts,
    demo,
    emit,
    service,
    cache,
    defaultExportFolder: exportFolder,
    sync,
    syncStatus: () => syncRunner.current,
    hub,
    timedTranscripts,
    forgetAccountData,
    recordings: new Recordings({
      service,
      cache,
      organizationId,
      lastSyncAt: () => syncRunner.current.lastSyncAt,
    }),
    conversations,
    conversationFollower,
    exports,
    followUps: new FollowUps({
      service,
      cache,
      comments: new CommentStore(join(options.dataDir, 'follow-ups.json')),
      accountId: activeAccountId,
    }),
    audio,
    administration: new Administration({ accounts, service }),
  };
  const rpc = createRpcRouter(
    {
      ...appHandlers(context),
      ...accountHandlers(context),
      ...hubHandlers(context),
      ...conversationHandlers(context),
      ...recordingHandlers(context),
      ...audioHandlers(context),
      ...exportHandlers(context),
      ...syncHandlers(context),
      ...followUpHandlers(context),
      ...adminHandlers(context),
    },
    translateServiceError,
    log,
  );

  return {
    rpc,
    async media(request, labelId) {
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
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: never) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (payload: never) => void);
    },
    async close() {
      clearInterval(syncTimer);
      // Quitting cancels the exports under way, so none is left with a partial file.
      await exports.stopAll();
      await conversationFollower.stopAll();
      await syncRunner.stop();
      for (const opened of caches.values()) await (await opened).close();
      await service.close();
      for (const opened of audioCaches.values()) await (await opened).close();
      await demo.stop();
    },
  };
}

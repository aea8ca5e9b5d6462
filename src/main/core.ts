import { join } from 'node:path';
import type { ConnectionStatus, EventName, IpcError, IpcEvents } from '../shared/ipc';
import { AccountStore } from './accounts/account-store';
import { AccountService } from './accounts/accounts';
import { AudioCache } from './audio/audio-cache';
import { cacheFileOf, openCache, type Cache, type CacheReader } from './cache';
import { SYNC_INTERVAL_MS, SyncRunner } from './sync';
import type { MediaFile } from './audio/media';
import { KeychainSecretStore, SessionSecretStore, type SecretStore } from './accounts/secret-store';
import { DemoClinic } from './demo-clinic';
import type { CoreContext } from './context';
import { accountHandlers } from './handlers/accounts';
import { audioHandlers } from './handlers/audio';
import { cacheHandlers } from './handlers/cache';
import { adminHandlers } from './handlers/admin';
import { appHandlers } from './handlers/app';
import { followUpHandlers } from './handlers/follow-ups';
import { hubHandlers } from './handlers/hub';
import { recordingHandlers } from './handlers/recordings';
import { defaultExportFolder } from './paths';
import { createRpcRouter, type RpcRouter } from './rpc';
import { connectService, translateServiceError, type ServiceClient } from './service-client';

export interface CoreOptions {
  /** The app's data folder (accounts.json; later the cache). Never holds a key. */
  dataDir: string;
  shell: 'electron' | 'browser';
  version: string;
  /** Where keys live; the OS keychain unless a test or a platform says otherwise. */
  keychain?: SecretStore;
  /** Makes the API client of an account (tests can point it through a proxy). */
  connect?: (baseUrl: string, apiKey: string) => ServiceClient;
  /** Opens a parsed http(s) URL in the system browser. */
  openExternal?: (url: string) => Promise<void> | void;
  /** The system's folder dialog, starting in `defaultPath`; null when cancelled (Electron). */
  chooseFolder?: (defaultPath: string) => Promise<string | null>;
  /** Shows a folder in the system's file manager. */
  openFolder?: (path: string) => Promise<void>;
  /** Where exports go by default, instead of Downloads (tests, managed desktops). */
  exportFolder?: string;
  /** How long the demo clinic takes to process a completed conversation. */
  demoProcessingMs?: number;
  /** The folder holding demo-speech/ (the source tree's resources/ unless packaged elsewhere). */
  resourcesDir?: string;
  /** better-sqlite3's addon for this runtime, when not the default (Electron). */
  sqliteBinding?: string;
  log?: (message: string) => void;
}

export interface Core {
  rpc: RpcRouter;
  /** The active account's cached audio of a label, for the shells' media routes; undefined if not cached. */
  media(labelId: string): Promise<MediaFile | undefined>;
  on<E extends EventName>(event: E, listener: (payload: IpcEvents[E]) => void): () => void;
  close(): Promise<void>;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Wires the services both shells host: accounts, the API client, the demo clinic, and the RPC table. */
export function createCore(options: CoreOptions): Core {
  const log = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const connect = options.connect ?? connectService;
  const listeners = new Map<EventName, Set<(payload: never) => void>>();
  const emit = <E extends EventName>(event: E, payload: IpcEvents[E]) => {
    for (const listener of listeners.get(event) ?? [])
      (listener as (p: IpcEvents[E]) => void)(payload);
  };

  const accounts = new AccountService(
    new AccountStore(join(options.dataDir, 'accounts.json')),
    options.keychain ?? new KeychainSecretStore(),
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
  const demo = new DemoClinic({
    dataDir: join(options.dataDir, 'demo-service'),
    processingMs: options.demoProcessingMs,
    resourcesDir: options.resourcesDir,
    nativeBinding: options.sqliteBinding,
  });

  let connection: ConnectionStatus = { state: 'unknown', lastError: null, checkedAt: null };
  const setConnection = (state: ConnectionStatus['state'], lastError: IpcError | null) => {
    connection = { state, lastError, checkedAt: new Date().toISOString() };
    emit('connection.changed', connection);
  };

  let client:
    { accountId: string; baseUrl: string; apiKey: string; client: ServiceClient } | undefined;
  /** The active account's client, made again only when the account, its address or its key changes. */
  async function activeClient(): Promise<ServiceClient> {
    const { account, apiKey } = accounts.active();
    const baseUrl = account.demo ? await demo.baseUrl() : account.baseUrl;
    if (
      client?.accountId !== account.id ||
      client.baseUrl !== baseUrl ||
      client.apiKey !== apiKey
    ) {
      const previous = client;
      client = { accountId: account.id, baseUrl, apiKey, client: connect(baseUrl, apiKey) };
      await previous?.client.close();
    }
    return client.client;
  }

  const caches = new Map<string, Promise<Cache>>();
  /** The active account's cache, opened on first use and kept until the app quits. */
  const cache = () => {
    const { id } = accounts.active().account;
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

  // While the user only reads, the background sync is the app's one contact with the service:
  // what it finds is the connection's state too (an offline app comes back when a sync completes).
  const syncRunner = new SyncRunner(
    (status) => emit('sync.changed', status),
    ({ outcome, error }) => {
      if (outcome === 'offline' && error) {
        const { name: _name, ...lastError } = error;
        setConnection('offline', lastError);
      } else if (outcome === 'complete' && connection.state !== 'online') {
        setConnection('online', null);
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
    void (async () =>
      syncRunner.start(await cache(), await activeClient(), account.organizationId))().catch(
      (error: unknown) =>
        log(`sync did not start: ${error instanceof Error ? error.message : String(error)}`),
    );
    return syncRunner.current;
  };
  const syncTimer = setInterval(() => {
    if (accounts.list().some((a) => a.active && a.hasKey)) sync();
  }, SYNC_INTERVAL_MS);
  syncTimer.unref();

  /** Runs a call on the active account's service and keeps the connection status current. */
  async function withService<T>(
    call: (service: ServiceClient) => Promise<T>,
    offline?: (cache: CacheReader) => Promise<T | null | undefined>,
  ): Promise<T> {
    const service = await activeClient();
    try {
      const result = await call(service);
      if (connection.state !== 'online') setConnection('online', null);
      // The first answer from an account's service starts its background sync.
      if (syncedAccount !== accounts.active().account.id) sync();
      return result;
    } catch (error) {
      const translated = translateServiceError(error);
      if (translated && (translated.kind === 'offline' || translated.kind === 'timeout')) {
        setConnection('offline', translated);
        const cached = offline && (await offline((await cache()).read));
        if (cached !== undefined && cached !== null) return cached;
      } else if (translated && translated.kind !== 'cancelled' && connection.state !== 'online') {
        // An error answer (even an unreadable one) still shows the service can be reached.
        setConnection('online', null);
      }
      throw error;
    }
  }

  const audioCaches = new Map<string, Promise<AudioCache>>();
  /** The active account's audio cache, opened on first use and kept until the app quits. */
  const audioCache = () => {
    const { id } = accounts.active().account;
    let cache = audioCaches.get(id);
    if (!cache) {
      cache = AudioCache.open({ folder: join(options.dataDir, 'audio', id) });
      audioCaches.set(id, cache);
    }
    return cache;
  };

  const closing: (() => Promise<void>)[] = [];

  const context: CoreContext = {
    options,
    accounts,
    demo,
    emit,
    withService,
    connection: () => connection,
    audioCache,
    cache,
    remember: (write) =>
      cache()
        .then((opened) => write(opened.write))
        .then(
          () => undefined,
          () => undefined,
        ),
    defaultExportFolder: () => options.exportFolder ?? defaultExportFolder(),
    onClose: (stop) => closing.push(stop),
    sync,
    syncStatus: () => syncRunner.current,
  };
  const rpc = createRpcRouter(
    {
      ...appHandlers(context),
      ...accountHandlers(context),
      ...hubHandlers(context),
      ...recordingHandlers(context),
      ...audioHandlers(context),
      ...cacheHandlers(context),
      ...followUpHandlers(context),
      ...adminHandlers(context),
    },
    translateServiceError,
    log,
  );

  return {
    rpc,
    async media(labelId) {
      if (!UUID_PATTERN.test(labelId)) return undefined;
      const audio = (await audioCache()).peek(labelId);
      return audio && { path: audio.path, contentType: audio.contentType };
    },
    on(event, listener) {
      const set = listeners.get(event) ?? new Set();
      set.add(listener as (payload: never) => void);
      listeners.set(event, set);
      return () => set.delete(listener as (payload: never) => void);
    },
    async close() {
      clearInterval(syncTimer);
      for (const stop of closing) await stop();
      await syncRunner.stop();
      for (const opened of caches.values()) await (await opened).close();
      await client?.client.close();
      for (const cache of audioCaches.values()) await (await cache).close();
      await demo.stop();
    },
  };
}

import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerStart, type WorkerStart } from '../base/worker-entry';
import { noteDamage, type WholeCheck } from './check';
import { openCacheDatabase, type CacheRecovery, type CacheUpgrade } from './database';
import { CacheTooNewError } from './migrate';
import type { WorkerError, WorkerInit, WorkerMessage, WorkerOpen, WorkerRequest } from './protocol';
import {
  READS,
  runQuery,
  WRITES,
  type CacheReader,
  type CacheWriter,
  type Query,
  type Remote,
} from './queries';

/** Where an account's cache lives: one SQLite file per account. */
export const cacheFileOf = (dataDir: string, accountId: string): string =>
  join(dataDir, 'cache', `${accountId.replace(/[^A-Za-z0-9_-]/g, '_')}.sqlite`);

/**
 * Where the check of an account's key lies (at-rest/unlock.ts): beside its cache, and deleted
 * with it (deleteCacheFiles).
 */
export const keyCheckFileOf = (dataDir: string, accountId: string): string =>
  `${cacheFileOf(dataDir, accountId)}.keycheck`;

/**
 * Every file of an account's cache: the database with its WAL, shared memory and rollback
 * journal, the copies of it moved aside as damaged (clinical text of any age: a cleanup and
 * "Remove everything" delete them too), a sealing copy a killed conversion left, and its key's
 * check.
 */
export function cacheFilesOf(file: string): string[] {
  const dir = dirname(file);
  const name = basename(file);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(
      (other) => other === name || other.startsWith(`${name}-`) || other.startsWith(`${name}.`),
    )
    .map((other) => join(dir, other));
}

/** Deletes a closed cache's files (cacheFilesOf). */
export async function deleteCacheFiles(file: string): Promise<void> {
  await Promise.all(cacheFilesOf(file).map((path) => rm(path, { force: true })));
}

export interface CacheOptions {
  file: string;
  /**
   * The database's raw key (AccountKey.databaseKey): the file is encrypted, and a plain one an
   * earlier version wrote is sealed first (in the writer's thread). It reaches the threads by
   * message. Without it the cache is plain SQLite (the benchmarks' baseline).
   */
  key?: string;
  /**
   * 'worker' (the default): the database lives in worker threads and every query is a message,
   * so heavy SQL never blocks the main process's event loop. 'main': the same queries run inline
   * on the calling thread (a baseline for the benchmarks, and simple tools).
   */
  thread?: 'worker' | 'main';
  /**
   * With 'worker': a second, read-only thread for reads, so a screen's query never waits behind
   * a sync's write transaction (WAL lets it read the last committed state), and a third for the
   * long reads (LONG_READS), started at the first. Default true.
   */
  separateReader?: boolean;
  /** The SQLite addon for this runtime when not the default (Electron's ABI build). */
  nativeBinding?: string;
  /** Told before a cache that holds data is migrated (it may take a while: see database.ts). */
  onUpgrade?: (upgrade: CacheUpgrade) => void;
  /**
   * The worker's script. By default `./cache-worker.js` beside the running bundle (the app's
   * build emits src/main/cache/worker.ts as out/main/cache-worker.js), or worker.ts itself,
   * loaded through tsx, when running from source (tests, tsx).
   */
  workerScript?: URL;
}

/** An account's cache: typed reads and writes (async), and how it was opened. */
export interface Cache {
  readonly file: string;
  readonly thread: 'worker' | 'main';
  /** Set when the file was damaged: it was moved aside and the cache started empty. */
  readonly recovery: CacheRecovery | null;
  readonly read: CacheReader;
  readonly write: CacheWriter;
  /**
   * Checks the whole file (check.ts) on a thread of its own, a table at a time, and writes down
   * damage found for the next open. Stops between two tables when `stopWhen` says so or the
   * cache closes (close waits for the table under way: seconds at most, at a million records).
   */
  checkWhole(stopWhen?: () => boolean): Promise<WholeCheck>;
  /** Finishes the queries under way, then closes the database and its threads. */
  close(): Promise<void>;
}

/** A failure inside the cache's thread (SQLite's code when it has one). */
class CacheError extends Error {
  readonly code: string | undefined;
  constructor(error: WorkerError) {
    super(error.message);
    this.name = error.name === 'Error' ? 'CacheError' : error.name;
    this.code = error.code;
  }
}

function fromWorker(error: WorkerError, file: string): Error {
  if (
    error.name === 'CacheTooNewError' &&
    error.fileVersion !== undefined &&
    error.appVersion !== undefined
  )
    return new CacheTooNewError(file, error.fileVersion, error.appVersion);
  return new CacheError(error);
}

type RequestBody = WorkerRequest extends infer R
  ? R extends unknown
    ? Omit<R, 'id'>
    : never
  : never;

type Call = (side: 'read' | 'write', name: string, args: unknown[]) => Promise<unknown>;

/** The async face of a query table: each name posts (or runs) the query of that name. */
const remote = <Table extends Record<string, Query>>(
  table: Table,
  side: 'read' | 'write',
  call: Call,
): Remote<Table> =>
  Object.fromEntries(
    Object.keys(table).map((name) => [name, (...args: unknown[]) => call(side, name, args)]),
  ) as Remote<Table>;

/** The worker to start: the one given, else the built cache-worker.js or worker.ts from source. */
const workerOf = (options: CacheOptions): WorkerStart =>
  options.workerScript
    ? { script: options.workerScript, execArgv: undefined }
    : workerStart(new URL('./worker.ts', import.meta.url), 'cache-worker');

/** One worker thread and the queries waiting for its answers. */
class WorkerConnection {
  private nextId = 1;
  private readonly pending = new Map<
    number,
    { resolve: (value: unknown) => void; reject: (error: Error) => void }
  >();
  private failure: Error | undefined;
  private readonly exited: Promise<void>;
  recovery: CacheRecovery | null = null;

  private constructor(
    private readonly worker: Worker,
    private readonly file: string,
  ) {
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (message: WorkerMessage) => {
      if (message.type !== 'result') return;
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (this.pending.size === 0) worker.unref();
      if (message.ok) waiting.resolve(message.value);
      else waiting.reject(fromWorker(message.error, file));
    });
    const fail = (error: Error) => {
      this.failure ??= error;
      for (const waiting of this.pending.values()) waiting.reject(this.failure);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The cache's thread stopped (exit code ${code}).`)));
  }

  static async start(init: WorkerInit, options: CacheOptions): Promise<WorkerConnection> {
    const { script, execArgv } = workerOf(options);
    const worker = new Worker(script, { execArgv, workerData: init });
    const connection = new WorkerConnection(worker, init.file);
    worker.postMessage({ op: 'open', key: options.key } satisfies WorkerOpen);
    await new Promise<void>((resolve, reject) => {
      const onMessage = (message: WorkerMessage) => {
        if (message.type === 'upgrading') {
          options.onUpgrade?.({ fromVersion: message.fromVersion, toVersion: message.toVersion });
        } else if (message.type === 'ready') {
          connection.recovery = message.recovery;
          done();
          resolve();
        } else if (message.type === 'failed') {
          done();
          void worker.terminate();
          reject(fromWorker(message.error, init.file));
        }
      };
      const onError = (error: Error) => {
        done();
        reject(error);
      };
      const onExit = (code: number) => {
        done();
        reject(
          new Error(`The cache's thread stopped before it opened ${init.file} (exit ${code}).`),
        );
      };
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
    });
    worker.unref();
    return connection;
  }

  call: Call = (side, name, args) => this.send({ op: 'call', side, name, args });

  private send(request: RequestBody): Promise<unknown> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ ...request, id } as WorkerRequest);
    });
  }

  async close(): Promise<void> {
    // Held until the thread has exited, or a process whose last work this is would end first.
    this.worker.ref();
    if (!this.failure) {
      await this.send({ op: 'close' }).catch(() => undefined);
      this.failure = new Error(`The cache ${this.file} is closed.`);
    }
    this.worker.ref();
    await this.exited;
  }
}

class ClosedGuard {
  closed = false;
  wrap(call: Call, file: string): Call {
    return (side, name, args) =>
      this.closed
        ? Promise.reject(new Error(`The cache ${file} is closed.`))
        : call(side, name, args);
  }
}

/**
 * The whole check through `call`, a table at a time, until damage is found (written down for
 * the next open) or `stopped` says to stop between two tables.
 */
async function checkWholeThrough(
  call: Call,
  file: string,
  stopped: () => boolean,
): Promise<WholeCheck> {
  const reads = remote(READS, 'read', call);
  for (const part of await reads.checkParts()) {
    if (stopped()) return { state: 'stopped' };
    const reason = await reads.checkPart(part);
    if (reason !== null) {
      noteDamage(file, reason);
      return { state: 'damaged', reason };
    }
  }
  return { state: 'sound' };
}

/**
 * Reads that take seconds at a hospital's scale (the review queue reads every record): with a
 * separate reader, a thread of their own, started at the first, so a screen's reads never wait
 * behind one.
 */
const LONG_READS: ReadonlySet<string> = new Set(['reviewQueue']);

async function openInWorkers(options: CacheOptions): Promise<Cache> {
  const { file, nativeBinding } = options;
  const writer = await WorkerConnection.start({ file, role: 'writer', nativeBinding }, options);
  let reader: WorkerConnection | undefined;
  try {
    if (options.separateReader !== false)
      reader = await WorkerConnection.start({ file, role: 'reader', nativeBinding }, options);
  } catch (error) {
    await writer.close();
    throw error;
  }
  let longReader: Promise<WorkerConnection> | undefined;
  const longRead: Call = async (side, name, args) => {
    const starting = (longReader ??= WorkerConnection.start(
      { file, role: 'reader', nativeBinding },
      options,
    ));
    // A thread that could not start is started again at the next long read.
    starting.catch(() => {
      if (longReader === starting) longReader = undefined;
    });
    return (await starting).call(side, name, args);
  };
  const guard = new ClosedGuard();
  const readCall = guard.wrap(
    reader
      ? (side, name, args) => (LONG_READS.has(name) ? longRead : reader.call)(side, name, args)
      : writer.call,
    file,
  );
  const writeCall = guard.wrap(writer.call, file);
  const checks = new Set<Promise<WholeCheck>>();
  return {
    file,
    thread: 'worker',
    recovery: writer.recovery,
    read: remote(READS, 'read', readCall),
    write: remote(WRITES, 'write', writeCall),
    checkWhole(stopWhen) {
      if (guard.closed) return Promise.reject(new Error(`The cache ${file} is closed.`));
      const check = (async () => {
        const thread = await WorkerConnection.start(
          { file, role: 'reader', nativeBinding },
          options,
        );
        try {
          return await checkWholeThrough(
            thread.call,
            file,
            () => guard.closed || stopWhen?.() === true,
          );
        } finally {
          await thread.close();
        }
      })();
      checks.add(check);
      void check.catch(() => undefined).finally(() => checks.delete(check));
      return check;
    },
    async close() {
      if (guard.closed) return;
      guard.closed = true;
      await Promise.all([...checks].map((check) => check.catch(() => undefined)));
      await (await longReader?.catch(() => undefined))?.close();
      await reader?.close();
      await writer.close();
    },
  };
}

function openInline(options: CacheOptions): Cache {
  const { db, file, recovery } = openCacheDatabase(options.file, {
    nativeBinding: options.nativeBinding,
    key: options.key,
    onUpgrade: options.onUpgrade,
  });
  const guard = new ClosedGuard();
  const call = guard.wrap(async (side, name, args) => runQuery(db, side, name, args), file);
  return {
    file,
    thread: 'main',
    recovery,
    read: remote(READS, 'read', call),
    write: remote(WRITES, 'write', call),
    checkWhole: (stopWhen) =>
      checkWholeThrough(call, file, () => guard.closed || stopWhen?.() === true),
    async close() {
      if (guard.closed) return;
      guard.closed = true;
      db.close();
    },
  };
}

/**
 * Opens an account's cache: checks the file (a damaged one is moved aside and the cache starts
 * empty, see `recovery`), refuses one written by a newer Earmark (CacheTooNewError), migrates
 * it, and answers typed, async reads and writes.
 */
export async function openCache(options: CacheOptions): Promise<Cache> {
  return (options.thread ?? 'worker') === 'worker' ? openInWorkers(options) : openInline(options);
}

// The cache's thread: owns one SQLite connection and runs the typed queries (queries.ts) that
// the main process asks for by name, one at a time, so heavy SQL never runs on the main
// thread's event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { openCacheDatabase, openCacheReader } from './database';
import {
  toWorkerError,
  type WorkerInit,
  type WorkerMessage,
  type WorkerOpen,
  type WorkerRequest,
} from './protocol';
import { runQuery } from './queries';
import type { Db } from '../../node-common/sql';

const port = parentPort;
if (!port) throw new Error('src/main/cache/worker.ts runs as a worker thread.');
const init = workerData as WorkerInit;
const post = (message: WorkerMessage) => port.postMessage(message);

let db: Db | undefined;

/** Opens the database with the key the first message brings (none: a plain file). */
function open({ key }: WorkerOpen): void {
  const options = { nativeBinding: init.nativeBinding, key };
  try {
    if (init.role === 'writer') {
      const opened = openCacheDatabase(init.file, {
        ...options,
        onUpgrade: (upgrade) => post({ type: 'upgrading', ...upgrade }),
      });
      db = opened.db;
      post({ type: 'ready', recovery: opened.recovery });
    } else {
      db = openCacheReader(init.file, options);
      post({ type: 'ready', recovery: null });
    }
  } catch (error) {
    post({ type: 'failed', error: toWorkerError(error) });
  }
}

port.on('message', (request: WorkerRequest | WorkerOpen) => {
  if (request.op === 'open') {
    open(request);
    return;
  }
  if (request.op === 'close') {
    try {
      db?.close();
      post({ type: 'result', id: request.id, ok: true, value: undefined });
    } catch (error) {
      post({ type: 'result', id: request.id, ok: false, error: toWorkerError(error) });
    }
    port.close();
    return;
  }
  try {
    if (!db) throw new Error('The cache is not open.');
    const value = runQuery(db, request.side, request.name, request.args);
    post({ type: 'result', id: request.id, ok: true, value });
  } catch (error) {
    post({ type: 'result', id: request.id, ok: false, error: toWorkerError(error) });
  }
});

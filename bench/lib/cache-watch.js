// A worker thread for bench/scale.bench.ts (plain JavaScript: started with `new Worker`, no tsx):
// watches a cache file while a sync fills it and says when the labels starting at or after
// `sinceMs` are all there ("usable": their rows, for the lists) and all have their notes
// ("searchable"), on the shared clock (performance.timeOrigin + performance.now()). Its reads run
// beside the sync's main thread, not on it, so they do not count in its event-loop delay.
import Database from 'better-sqlite3-multiple-ciphers';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';

const { file, sinceMs, expected, intervalMs } = workerData;
const clock = () => performance.timeOrigin + performance.now();

let db = null;
let usableAt = null;
let stopped = false;
parentPort.on('message', (message) => {
  if (message === 'stop') stopped = true;
});

while (!stopped) {
  try {
    db ??= existsSync(file) ? new Database(file, { readonly: true, timeout: 5000 }) : null;
    if (db) {
      const counted = db
        .prepare(
          `SELECT count(*) AS listed, count(notes_fetched_at) AS withNotes FROM labels
             WHERE from_ms >= ?`,
        )
        .get(sinceMs);
      if (usableAt === null && counted.listed >= expected) {
        usableAt = clock();
        parentPort.postMessage({ usableAt });
      }
      if (counted.withNotes >= expected) {
        parentPort.postMessage({ searchableAt: clock() });
        break;
      }
    }
  } catch {
    // The file is being created or migrated: try again.
    db?.close();
    db = null;
  }
  await sleep(intervalMs);
}
db?.close();

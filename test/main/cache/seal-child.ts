// A plain cache sealed in a process of its own, for the crash tests: opens the cache at
// EARMARK_CACHE_FILE with the key EARMARK_TEST_KEY (a test's key), prints each step of the
// conversion as a JSON line, and at EARMARK_STOP_AT waits there to be killed.
import { openCacheDatabase } from '../../../src/main/cache/database';

const file = process.env.EARMARK_CACHE_FILE!;
const key = process.env.EARMARK_TEST_KEY!;
const stopAt = process.env.EARMARK_STOP_AT;
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

say({ event: 'opening' });
const { db } = openCacheDatabase(file, {
  key,
  onConversionStep(step) {
    say({ event: step });
    // Held here, synchronously, as if the process were busy: the test kills it.
    if (step === stopAt) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
  },
});
db.close();
say({ event: 'done' });

// A cleanup in a process of its own, for the kill -9 test: prints one JSON line per progress
// event on stdout, then the summary. Arguments: the account's cache file, its audio folder,
// the text cutoff (epoch ms) and the records removed per step; sealed under the test's key
// (EARMARK_TEST_CACHE_KEY, base64), as the app keeps them.
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { AudioCache } from '../../../src/main/audio/audio-cache';
import { openCache } from '../../../src/main/cache';
import { runCleanup } from '../../../src/main/retention/cleanup';

const [file, audioFolder, before, perStep] = process.argv.slice(2);
if (!file || !audioFolder || !before || !perStep) {
  process.stderr.write('usage: cleanup-child.ts CACHE_FILE AUDIO_FOLDER TEXT_BEFORE PER_STEP\n');
  process.exit(2);
}

const key = AccountKey.from(Buffer.from(process.env.EARMARK_TEST_CACHE_KEY ?? '', 'base64'));
const cache = await openCache({ file, key: key.databaseKey() });
const audio = await AudioCache.open({ folder: audioFolder, key });
const summary = await runCleanup({
  cache,
  audio,
  textBefore: Number(before),
  audioBefore: null,
  spare: [],
  now: Date.now,
  tuning: { recordsPerStep: Number(perStep) },
  onProgress: (progress) => process.stdout.write(`${JSON.stringify({ progress })}\n`),
});
process.stdout.write(`${JSON.stringify({ summary })}\n`);
await audio.close();
await cache.close();

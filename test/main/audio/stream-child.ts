// A recording streaming into the audio cache in a process of its own, for the crash test
// (audio-stream-crash.test.ts) to kill -9. EARMARK_MODE=play: a player reads from the start, then
// seeks to EARMARK_SEEK_AT, on a slow link, leaving gaps; prints the ranges as they fill.
// EARMARK_MODE=finish: fills the file to the end and prints its path. Sealed under the key
// EARMARK_TEST_CACHE_KEY gives (cache-modes.ts), else in the clear.
import { createApiClient } from '../../../src/main/service-client/client';
import { AudioCache } from '../../../src/main/audio/audio-cache';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { throttled } from './throttle';

const env = (name: string) => process.env[name] ?? '';
const client = createApiClient({
  baseUrl: env('EARMARK_BASE_URL'),
  apiKey: env('EARMARK_API_KEY'),
});
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);
const labelId = env('EARMARK_LABEL_ID');
/** The key the test gave (cache-modes.ts, keyEnv), if any. */
const key = env('EARMARK_TEST_CACHE_KEY')
  ? AccountKey.from(Buffer.from(env('EARMARK_TEST_CACHE_KEY'), 'base64'))
  : undefined;

async function main(): Promise<void> {
  const cache = await AudioCache.open({
    folder: env('EARMARK_FOLDER'),
    key,
    checkpointBytes: 128 * 1024,
  });
  if (env('EARMARK_MODE') === 'finish') {
    const audio = await cache.ensure(client.labels, labelId);
    say({ event: 'done', path: audio.path });
    await cache.close();
    await client.close();
    return;
  }
  const slow = throttled(client.labels, 16 * 1024, 10);
  const found = await cache.open(() => Promise.resolve(slow), labelId);
  if (found.kind !== 'streaming') throw new Error('already cached');
  const { stream } = found;
  stream.onProgress(({ ranges }) => say({ event: 'progress', ranges }));
  const start = stream.body(0, 256 * 1024);
  for await (const _ of start) void _;
  // The player seeks far ahead: the bytes there are fetched at once, leaving a gap behind.
  const seekAt = Number(env('EARMARK_SEEK_AT'));
  for await (const _ of stream.body(seekAt, stream.facts!.total - 1)) void _;
}

main().catch((error: unknown) => {
  say({ event: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
});

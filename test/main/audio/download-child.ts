// A download in a process of its own, for the crash test (download-crash.test.ts) to kill -9.
// Reads its job from the environment; prints one JSON line per progress step and one at the end.
import { createApiClient } from '../../../src/main/api/client';
import { downloadLabelAudio } from '../../../src/main/audio/download';
import { throttled } from './throttle';

const env = (name: string) => process.env[name] ?? '';
const client = createApiClient({
  baseUrl: env('EARMARK_BASE_URL'),
  apiKey: env('EARMARK_API_KEY'),
});
const source =
  env('EARMARK_THROTTLE') === '1' ? throttled(client.labels, 32 * 1024, 5) : client.labels;
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

downloadLabelAudio(source, env('EARMARK_LABEL_ID'), {
  folder: env('EARMARK_FOLDER'),
  peaks: true,
  checkpointBytes: Number(env('EARMARK_CHECKPOINT_BYTES')) || undefined,
  onProgress: ({ bytesDone, bytesTotal }) => say({ event: 'progress', bytesDone, bytesTotal }),
})
  .then((result) => say({ event: 'done', result }))
  .catch((error: unknown) => {
    say({ event: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  })
  .finally(() => client.close());

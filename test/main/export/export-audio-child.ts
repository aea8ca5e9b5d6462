// An export's download in a process of its own, for the crash test (export-audio-crash.test.ts)
// to kill -9. Reads its job from the environment; prints one JSON line per progress step, and at
// the end the result with every audio request it made (where it started, the answer's status).
import { createApiClient } from '../../../src/main/service-client/client';
import { exportAudio } from '../../../src/main/export/export-audio';
import { noting } from '../audio/noting';
import { throttled } from '../audio/throttle';

const env = (name: string) => process.env[name] ?? '';
const client = createApiClient({
  baseUrl: env('EARMARK_BASE_URL'),
  apiKey: env('EARMARK_API_KEY'),
});
const { source, requests } = noting(
  env('EARMARK_THROTTLE') === '1' ? throttled(client.labels, 32 * 1024, 5) : client.labels,
);
const say = (line: object) => process.stdout.write(`${JSON.stringify(line)}\n`);

exportAudio(source, env('EARMARK_LABEL_ID'), {
  folder: env('EARMARK_FOLDER'),
  stem: 'Maple crash test',
  onExists: 'keep-both',
  tuning: { checkpointBytes: Number(env('EARMARK_CHECKPOINT_BYTES')) || undefined },
  onProgress: ({ bytesDone, bytesTotal }) => say({ event: 'progress', bytesDone, bytesTotal }),
})
  .then((result) => say({ event: 'done', result, requests }))
  .catch((error: unknown) => {
    say({ event: 'error', message: error instanceof Error ? error.message : String(error) });
    process.exitCode = 1;
  })
  .finally(() => client.close());

// The reference service holding 90-minute hub recordings, in a child process of its own (this
// file run with --serve N), so that its memory and CPU are not the benchmark's. Each recording's
// audio is the same recipe — speech clips in silence, rendered on demand: 86.4 MB of 16-bit PCM
// at 8 kHz — under its own id, so each can be opened uncached.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { API_PREFIX, createService } from '../../src/service/app';
import { recipeByteLength, type AudioRecipe } from '../../src/service/audio/recipe';
import { seedIdentity } from '../../src/service/demo/identity-seed';
import { repoRoot } from './paths';

const MINUTES = 90;
/** The recordings' sample rate and sample size: where a time is in the file. */
const SAMPLE_RATE = 8000;
const WAV_HEADER_BYTES = 44;

/** The byte of the WAV file where the audio at `seconds` begins. */
export const byteAtSecond = (seconds: number) => WAV_HEADER_BYTES + seconds * SAMPLE_RATE * 2;

export interface NinetyMinuteService {
  /** The service on loopback. */
  baseUrl: string;
  port: number;
  apiKey: string;
  organizationId: string;
  labelIds: string[];
  /** Each recording's file length. */
  bytes: number;
  stop(): void;
}

type Served = Omit<NinetyMinuteService, 'stop'>;

/** The child: the service with `count` recordings, until its stdin closes. */
async function serve(count: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-bench-service-'));
  const service = createService({ dataDir, resourcesDir: join(repoRoot, 'resources') });
  const { credentials } = seedIdentity(service, Date.now());
  const organizationId = credentials.primary.organizationId;
  const clips = [
    'consult-vaccination-00',
    'consult-rabbit-gi-stasis-12',
    'consult-cat-not-eating-00',
  ];
  const samples = MINUTES * 60 * SAMPLE_RATE;
  const recipe: AudioRecipe = { sampleRate: SAMPLE_RATE, samples, clips: [] };
  for (let at = 1001, i = 0; at + SAMPLE_RATE * 5 < samples; at += SAMPLE_RATE * 4 + 77, i++) {
    recipe.clips.push([clips[i % clips.length]!, at]);
  }
  const patientId = service.labels.createPatient(organizationId, 'Maple', 'dog');
  const labelIds = Array.from({ length: count }, (_, i) => {
    const fromMs = Date.now() - (2 + 2 * i) * 60 * 60 * 1000;
    return service.labels.create({
      organizationId,
      type: 'HubMic',
      fromMs,
      toMs: fromMs + MINUTES * 60 * 1000,
      patientId,
      friendlyName: 'Consult Room 1',
      deviceSerial: 'HUB-1',
      audio: {
        content_type: 'audio/wav',
        byte_length: recipeByteLength(recipe),
        source_kind: 'recipe',
        source: JSON.stringify(recipe),
      },
    });
  });
  const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
  const served: Served = {
    baseUrl: `${address}${API_PREFIX}`,
    port: Number(new URL(address).port),
    apiKey: credentials.primary.apiKey,
    organizationId,
    labelIds,
    bytes: recipeByteLength(recipe),
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

/** Starts the service with `count` 90-minute recordings in a child process. */
export async function startNinetyMinuteService(count: number): Promise<NinetyMinuteService> {
  const child: ChildProcess = spawn(
    join(repoRoot, 'node_modules', '.bin', 'tsx'),
    [fileURLToPath(import.meta.url), '--serve', String(count)],
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the service exited (${code}) before it listened`)),
    );
  });
  return { ...(JSON.parse(first) as Served), stop: () => child.stdin?.end() };
}

const serving = process.argv.indexOf('--serve');
if (serving !== -1) await serve(Number(process.argv[serving + 1] ?? 1));

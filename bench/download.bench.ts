// Download of a 90-minute WAV (issue 5, "Benchmarks"): throughput beside curl's on the same URL in
// the same run, resident memory growth during the download, when the peaks are ready, and how
// responsive the main process stays.
//
//   npx tsx bench/download.bench.ts        (or: npm run bench -- download)
//
// The reference service runs in a child process (this same file with --serve), so its memory and
// CPU are not the downloader's. It holds a label whose audio is a 90-minute recipe (speech clips
// in silence, rendered on demand: 86.4 MB of 16-bit PCM at 8 kHz), and it also listens behind a
// TCP proxy shaped to 1 Gbit/s: the same file over a link like a clinic's, for both clients.
// Each round also drains the body with the API client and stores nothing, and writes it to a file
// as it comes and flushes it, nothing else: the ceilings of any download in Node on this machine,
// printed beside curl's throughput. And it times flushing curl's file after curl: Earmark must
// flush before the rename, curl does not; curl plus that flush is each time figure's "limit".
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import {
  closeSync,
  createReadStream,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { createApiClient, type ApiClient } from '../src/main/api/client';
import { downloadLabelAudio } from '../src/main/audio/download';
import { WavPeakStream } from '../src/main/audio/peaks';
import { API_PREFIX, createService } from '../src/service/app';
import { recipeByteLength, type AudioRecipe } from '../src/service/audio/recipe';
import { seedIdentity } from '../src/service/demo/identity-seed';
import { benchDir, repoRoot } from './lib/paths';
import { machine, median, report, type Figure } from './lib/report';

const MINUTES = 90;
const LOOPBACK_RUNS = 5;
const LINK_RUNS = 3;
const MB = 1024 * 1024;
/** 1 Gbit/s in bytes per millisecond. */
const LINK_BYTES_PER_MS = 1e9 / 8 / 1000;

interface Served {
  /** The service itself, on loopback. */
  baseUrl: string;
  /** The same service behind the 1 Gbit/s proxy. */
  linkBaseUrl: string;
  apiKey: string;
  labelId: string;
  bytes: number;
}

/** Paces a stream to `bytesPerMs` with a token bucket (bursts up to 1 MiB). */
function shaped(bytesPerMs: number): Transform {
  const burst = MB;
  let tokens = burst;
  let last = performance.now();
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const now = performance.now();
      tokens = Math.min(burst, tokens + (now - last) * bytesPerMs);
      last = now;
      tokens -= chunk.length;
      if (tokens >= 0) return done(null, chunk);
      setTimeout(() => done(null, chunk), -tokens / bytesPerMs);
    },
  });
}

/** The child: the service with one 90-minute WAV label, and the shaped proxy, until stdin closes. */
async function serve(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-bench-service-'));
  const service = createService({ dataDir, resourcesDir: join(repoRoot, 'resources') });
  const { credentials } = seedIdentity(service, Date.now());
  const orgId = credentials.primary.organizationId;
  const ids = [
    'consult-vaccination-00',
    'consult-rabbit-gi-stasis-12',
    'consult-cat-not-eating-00',
  ];
  const samples = MINUTES * 60 * 8000;
  const recipe: AudioRecipe = { sampleRate: 8000, samples, clips: [] };
  for (let at = 1001, i = 0; at + 8000 * 5 < samples; at += 8000 * 4 + 77, i++) {
    recipe.clips.push([ids[i % ids.length]!, at]);
  }
  const fromMs = Date.now() - 2 * 60 * 60 * 1000;
  const labelId = service.labels.create({
    organizationId: orgId,
    type: 'HubMic',
    fromMs,
    toMs: fromMs + MINUTES * 60 * 1000,
    patientId: service.labels.createPatient(orgId, 'Maple', 'dog'),
    friendlyName: 'Consult Room 1',
    deviceSerial: 'HUB-1',
    audio: {
      content_type: 'audio/wav',
      byte_length: recipeByteLength(recipe),
      source_kind: 'recipe',
      source: JSON.stringify(recipe),
    },
  });
  const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = new URL(address);
  const proxy = createServer((client) => {
    const upstream = connect(Number(port), '127.0.0.1');
    client.pipe(upstream);
    upstream.pipe(shaped(LINK_BYTES_PER_MS)).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close).on('close', close);
    upstream.on('error', close).on('close', close);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxyPort = (proxy.address() as AddressInfo).port;
  const served: Served = {
    baseUrl: `${address}${API_PREFIX}`,
    linkBaseUrl: `http://127.0.0.1:${proxyPort}${API_PREFIX}`,
    apiKey: credentials.primary.apiKey,
    labelId,
    bytes: recipeByteLength(recipe),
  };
  process.stdout.write(`${JSON.stringify(served)}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once('end', resolve));
  proxy.close();
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function startServer(): Promise<{ child: ChildProcess; served: Served }> {
  const child = spawn(
    join(repoRoot, 'node_modules', '.bin', 'tsx'),
    [join(benchDir, 'download.bench.ts'), '--serve'],
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`the service exited (${code}) before it listened`)),
    );
  });
  return { child, served: JSON.parse(first) as Served };
}

/** Samples resident memory every 5 ms while `run` runs: the growth over the RSS before it. */
async function withRss<T>(run: () => Promise<T>): Promise<{ value: T; growthMb: number }> {
  const before = process.memoryUsage.rss();
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  try {
    const value = await run();
    peak = Math.max(peak, process.memoryUsage.rss());
    return { value, growthMb: (peak - before) / MB };
  } finally {
    clearInterval(timer);
  }
}

/**
 * curl -o of the URL: its own time_total (its process start not counted), and how long flushing
 * its file to disk takes afterwards (curl does not; Earmark must before the rename).
 */
function curl(url: string, apiKey: string, file: string, bytes: number) {
  const run = spawnSync(
    'curl',
    ['-sS', '-f', '-o', file, '-H', `Authorization: Bearer ${apiKey}`].concat([
      '-w',
      '%{time_total} %{size_download}',
      url,
    ]),
    { encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`curl failed: ${run.stderr}`);
  const [seconds = '0', size = '0'] = run.stdout.trim().split(' ');
  if (Number(size) !== bytes) throw new Error(`curl got ${size} bytes`);
  const fd = openSync(file, 'r+');
  const started = performance.now();
  fdatasyncSync(fd);
  const flushMs = performance.now() - started;
  closeSync(fd);
  rmSync(file);
  return { ms: Number(seconds) * 1000, flushMs };
}

/** Peaks the other way round: after the download, reading the whole file back. */
async function peaksAfterwards(path: string): Promise<number> {
  const started = performance.now();
  const stream = new WavPeakStream();
  for await (const chunk of createReadStream(path, { highWaterMark: MB })) {
    stream.push(chunk as Buffer);
  }
  if (!stream.finish()) throw new Error(stream.unsupported);
  return performance.now() - started;
}

/** The two ways the app downloads a 90-minute WAV. */
const CONFIGS = {
  /** The player's: AudioCache.ensure (peaks for wavesurfer, no hash). */
  player: { peaks: true, sha256: false },
  /** An export's: the SHA-256 for the manifest, no peaks. */
  export: { peaks: false, sha256: true },
} as const;
type Config = keyof typeof CONFIGS;

interface Measured {
  curlMs: number[];
  /** Flushing curl's file to disk right after it (what Earmark's rename waits for). */
  curlFlushMs: number[];
  /** The API client reading the body and doing nothing with it: any download's ceiling. */
  drainMs: number[];
  /** The API client's body written to a file chunk by chunk and flushed: any download's floor. */
  storeMs: number[];
  ms: Record<Config, number[]>;
  rssMb: number[];
  loopP99Ms: number[];
  /** The same process's event-loop p99 while idle, just before each download. */
  idleP99Ms: number[];
  peaksDelayMs: number[];
  lastByteToDoneMs: number[];
  afterwardsMs: number[];
}

/** `runs` rounds of curl, the player's download and an export's, one after another. */
async function measure(served: Served, baseUrl: string, runs: number, folder: string) {
  const client: ApiClient = createApiClient({ baseUrl, apiKey: served.apiKey });
  const url = `${baseUrl}/labels/${served.labelId}/audio`;
  let count = 0;
  const download = async (config: Config) => {
    const target = join(folder, `${new URL(baseUrl).port}-${++count}`);
    mkdirSync(target);
    const started = performance.now();
    const result = await downloadLabelAudio(client.labels, served.labelId, {
      folder: target,
      ...CONFIGS[config],
    });
    const ms = performance.now() - started;
    if (result.bytes !== served.bytes || statSync(result.path).size !== served.bytes) {
      throw new Error(`the download got ${result.bytes} bytes`);
    }
    return { ms, result };
  };
  const drain = async () => {
    const started = performance.now();
    const audio = await client.labels.audio(served.labelId);
    let bytes = 0;
    for await (const chunk of audio.body as AsyncIterable<Buffer>) bytes += chunk.length;
    if (bytes !== served.bytes) throw new Error(`the drain got ${bytes} bytes`);
    return performance.now() - started;
  };
  const store = async () => {
    const file = join(folder, 'stored.wav');
    const started = performance.now();
    const audio = await client.labels.audio(served.labelId);
    const fd = openSync(file, 'w');
    try {
      for await (const chunk of audio.body as AsyncIterable<Buffer>) writeSync(fd, chunk);
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const ms = performance.now() - started;
    if (statSync(file).size !== served.bytes) throw new Error('the stored body is short');
    rmSync(file);
    return ms;
  };
  const out: Measured = {
    curlMs: [],
    curlFlushMs: [],
    drainMs: [],
    storeMs: [],
    ms: { player: [], export: [] },
    rssMb: [],
    loopP99Ms: [],
    idleP99Ms: [],
    peaksDelayMs: [],
    lastByteToDoneMs: [],
    afterwardsMs: [],
  };
  try {
    // Warm-up (the service decodes its clips, both clients open connections): not counted.
    curl(url, served.apiKey, join(folder, 'warm.wav'), served.bytes);
    for (const config of ['player', 'export'] as const) await download(config);
    for (let run = 1; run <= runs; run++) {
      const curled = curl(url, served.apiKey, join(folder, 'curl.wav'), served.bytes);
      out.curlMs.push(curled.ms);
      out.curlFlushMs.push(curled.flushMs);
      out.drainMs.push(await drain());
      out.storeMs.push(await store());
      for (const config of ['player', 'export'] as const) {
        const idle = monitorEventLoopDelay({ resolution: 5 });
        idle.enable();
        await delay(300);
        idle.disable();
        out.idleP99Ms.push(idle.percentile(99) / 1e6);
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        const { value, growthMb } = await withRss(() => download(config));
        loop.disable();
        const { ms, result } = value;
        out.ms[config].push(ms);
        out.rssMb.push(growthMb);
        out.loopP99Ms.push(loop.percentile(99) / 1e6);
        if (config === 'player') {
          // Peaks are stored before the file is published, so before the download resolves.
          const { peaksAt, doneAt, lastByteAt } = result.timings;
          out.peaksDelayMs.push(Math.max(0, (peaksAt ?? Number.POSITIVE_INFINITY) - doneAt));
          out.lastByteToDoneMs.push(doneAt - lastByteAt);
          out.afterwardsMs.push(await peaksAfterwards(result.path));
        }
        rmSync(result.path);
        if (result.peaksPath) rmSync(result.peaksPath);
      }
    }
  } finally {
    await client.close();
  }
  return out;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine();
  const { child, served } = await startServer();
  const folder = mkdtempSync(join(tmpdir(), 'earmark-bench-download-'));
  try {
    const loopback = await measure(served, served.baseUrl, LOOPBACK_RUNS, folder);
    const link = await measure(served, served.linkBaseUrl, LINK_RUNS, folder);
    // The same-run baseline for memory: a naive download that holds the whole body (fetch).
    const naive = await withRss(async () => {
      const url = `${served.baseUrl}/labels/${served.labelId}/audio`;
      const response = await fetch(url, { headers: { authorization: `Bearer ${served.apiKey}` } });
      return (await response.arrayBuffer()).byteLength;
    });

    const mibps = (ms: number) => served.bytes / MB / (ms / 1000);
    const summary = (where: string, m: Measured) => {
      const curl = median(m.curlMs)!;
      const rate = (config: Config) => {
        const mine = median(m.ms[config])!;
        return `${config} ${mibps(mine).toFixed(0)} MiB/s = ${(curl / mine).toFixed(2)}× curl's`;
      };
      const versus = (ms: number) => `${mibps(ms).toFixed(0)} MiB/s = ${(curl / ms).toFixed(2)}×`;
      return (
        `${where}: curl ${mibps(curl).toFixed(0)} MiB/s (flushing its file afterwards takes ` +
        `${median(m.curlFlushMs)!.toFixed(0)} ms more); ${rate('player')}; ${rate('export')}; ` +
        `the API client draining the body (nothing stored) ${versus(median(m.drainMs)!)}; ` +
        `writing it to a file and flushing, nothing else, ${versus(median(m.storeMs)!)}`
      );
    };
    process.stdout.write(
      `\n90-minute WAV, ${(served.bytes / MB).toFixed(1)} MiB (target ≥ 0.8× curl's throughput)\n` +
        `  ${summary('loopback', loopback)}\n  ${summary('1 Gbit/s link', link)}\n`,
    );
    const time = (m: Measured, config: Config, what: string): Figure => ({
      figure: `90-min WAV ${what}, median time`,
      unit: 'ms',
      measured: median(m.ms[config]),
      target: Math.round(median(m.curlMs)! / 0.8),
      baseline: median(m.curlMs),
      baselineIs:
        'curl -o on the same URL, same run (target = curl ÷ 0.8: throughput ≥ 0.8× curl’s)',
      samples: m.ms[config].length,
      limit: {
        measured: median(m.curlMs.map((ms, round) => ms + m.curlFlushMs[round]!))!,
        is: 'curl’s download made as durable as Earmark’s (its file flushed to disk), median',
      },
    });
    // report.ts types `unit` as 'ms'; it prints whatever unit it is given.
    const megabytes = 'MB' as unknown as Figure['unit'];
    const all = (pick: (m: Measured) => number[]) => [...pick(loopback), ...pick(link)];
    const figures: Figure[] = [
      time(loopback, 'player', 'as the player (peaks), loopback'),
      time(loopback, 'export', 'as an export (SHA-256), loopback'),
      time(link, 'player', 'as the player (peaks), 1 Gbit/s'),
      time(link, 'export', 'as an export (SHA-256), 1 Gbit/s'),
      {
        figure: 'resident memory growth during a download, max',
        unit: megabytes,
        measured: Math.max(...all((m) => m.rssMb)),
        target: 64,
        baseline: naive.growthMb,
        baselineIs: 'fetch + arrayBuffer() of the same URL (the whole body in memory), same run',
        samples: all((m) => m.rssMb).length,
      },
      {
        figure: 'peaks ready after the download ends, max',
        unit: 'ms',
        measured: Math.max(...all((m) => m.peaksDelayMs)),
        target: 0,
        baseline: median(all((m) => m.afterwardsMs)),
        baselineIs: 'computing the peaks after the download, reading the file back (median)',
        samples: all((m) => m.peaksDelayMs).length,
      },
      {
        figure: 'event-loop delay p99 during a download, max',
        unit: 'ms',
        measured: Math.max(...all((m) => m.loopP99Ms)),
        target: 20,
        baseline: Math.max(...all((m) => m.idleP99Ms)),
        baselineIs:
          'the same process idle for 300 ms before each download (max): what the machine adds',
        samples: all((m) => m.loopP99Ms).length,
      },
    ];
    report('download', startedAt, machineInfo, figures, {
      bytes: served.bytes,
      linkBitsPerSecond: LINK_BYTES_PER_MS * 8000,
      loopback,
      link,
      naiveRssGrowthMb: naive.growthMb,
      note:
        'Earmark’s time runs from the call to the file published: it includes the peaks or the ' +
        'hash, flushing to disk (fsync) and the rename; curl’s time_total excludes its process ' +
        'start. The service (and the shaping proxy) run in a child process on the same machine.',
    });
  } finally {
    child.stdin?.end();
    rmSync(folder, { recursive: true, force: true });
  }
}

if (process.argv.includes('--serve')) {
  await serve();
} else {
  await main();
}

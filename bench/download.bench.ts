// Download of a 90-minute WAV (issues 5 and 17, "Benchmark"), through the app's one download
// engine (src/main/audio/audio-stream.ts) as its two users drive it: the player's (the audio
// cache streaming it in, with its peaks) and an export's (into a folder, with the SHA-256), each
// beside curl on the same URL in the same run,
// made as durable as Earmark's (its file flushed), over a clinic's link (50 Mbit/s, 40 ms round
// trip) and a 1 Gbit/s one; on loopback too, for information only (no user is there). Also the
// resident memory growth during a download and how responsive the main process stays.
//
//   npx tsx bench/download.bench.ts        (or: npm run bench -- download)
//
// The reference service runs in a child process (bench/lib/ninety-minutes.ts), so its memory and
// CPU are not the downloader's, with one 90-minute recording. The links are a TCP proxy in this
// process (test/support/shaped-link.ts) that both clients go through.
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { createApiClient, type ApiClient } from '../src/main/service-client/client';
import { AudioCache } from '../src/main/audio/audio-cache';
import { exportAudio } from '../src/main/export/export-audio';
import { curl } from './lib/curl';
import { startNinetyMinuteService } from './lib/ninety-minutes';
import { CLINIC_LINK, FAST_LINK, startLink, type LinkShape } from '../test/support/shaped-link';
import { machine, median, report, type Figure } from './lib/report';

const LOOPBACK_RUNS = 5;
const LINK_RUNS = 3;
const MB = 1024 * 1024;
/** Throughput at least this share of durable curl's, over a link. */
const SHARE_OF_CURL = 0.9;

/** The service with one 90-minute recording (bench/lib/ninety-minutes.ts). */
interface Served {
  baseUrl: string;
  port: number;
  apiKey: string;
  labelId: string;
  bytes: number;
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
async function curlDurably(url: string, apiKey: string, file: string, bytes: number) {
  const fetched = await curl({ url, apiKey, output: file });
  if (fetched.bytes !== bytes) throw new Error(`curl got ${fetched.bytes} bytes`);
  const fd = openSync(file, 'r+');
  const started = performance.now();
  fdatasyncSync(fd);
  const flushMs = performance.now() - started;
  closeSync(fd);
  rmSync(file);
  return { ms: fetched.ms, flushMs };
}

/**
 * The two ways the app downloads a 90-minute WAV, both through the one engine: the player's (the
 * audio cache streams it in, with its peaks, and publishes it whole) and an export's
 * (exportAudio: into a folder, with the SHA-256 for the manifest).
 */
type Config = 'player' | 'export';
const CONFIGS: readonly Config[] = ['player', 'export'];

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
}

/** curl plus the flush of its file: the same download made as durable as Earmark's. */
const durableCurl = (m: Measured) => m.curlMs.map((ms, round) => ms + m.curlFlushMs[round]!);

/** `runs` rounds of curl, the player's download and an export's, one after another. */
async function measure(
  served: Served,
  baseUrl: string,
  runs: number,
  folder: string,
  ceilings: boolean,
) {
  const client: ApiClient = createApiClient({ baseUrl, apiKey: served.apiKey });
  const url = `${baseUrl}/labels/${served.labelId}/audio`;
  let count = 0;
  /** One download into a folder of its own; the folder is the caller's to remove. */
  const download = async (config: Config): Promise<{ ms: number; folder: string }> => {
    const target = join(folder, `${new URL(baseUrl).port}-${++count}`);
    mkdirSync(target);
    const started = performance.now();
    let path: string;
    if (config === 'player') {
      const cache = await AudioCache.open({ folder: target });
      path = (await cache.ensure(client.labels, served.labelId)).path;
      await cache.close();
    } else {
      const exported = await exportAudio(client.labels, served.labelId, {
        folder: target,
        stem: 'exported',
        onExists: 'ask',
      });
      path = exported.path;
    }
    const ms = performance.now() - started;
    if (statSync(path).size !== served.bytes) throw new Error(`the ${config} got a short file`);
    return { ms, folder: target };
  };
  // Removed after the event loop's figure is read: unlinking a file of hundreds of MB blocks the
  // loop for tens of ms, the benchmark's own work, which set the p99 of a short download.
  const removeFolder = (done: { folder: string }) =>
    rmSync(done.folder, { recursive: true, force: true });
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
  };
  try {
    // Warm-up (the service decodes its clips, both clients open connections): not counted.
    await curlDurably(url, served.apiKey, join(folder, 'warm.wav'), served.bytes);
    for (const config of CONFIGS) removeFolder(await download(config));
    for (let run = 1; run <= runs; run++) {
      const curled = await curlDurably(url, served.apiKey, join(folder, 'curl.wav'), served.bytes);
      out.curlMs.push(curled.ms);
      out.curlFlushMs.push(curled.flushMs);
      if (ceilings) {
        out.drainMs.push(await drain());
        out.storeMs.push(await store());
      }
      for (const config of CONFIGS) {
        const idle = monitorEventLoopDelay({ resolution: 5 });
        idle.enable();
        await delay(300);
        idle.disable();
        out.idleP99Ms.push(idle.percentile(99) / 1e6);
        const loop = monitorEventLoopDelay({ resolution: 5 });
        loop.enable();
        const { value: done, growthMb } = await withRss(() => download(config));
        loop.disable();
        removeFolder(done);
        out.ms[config].push(done.ms);
        out.rssMb.push(growthMb);
        out.loopP99Ms.push(loop.percentile(99) / 1e6);
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
  const service = await startNinetyMinuteService(1);
  const served: Served = { ...service, labelId: service.labelIds[0]! };
  const folder = mkdtempSync(join(tmpdir(), 'earmark-bench-download-'));
  const link = await startLink(served.port, CLINIC_LINK);
  const over = async (shape: LinkShape) => {
    link.use(shape);
    return measure(served, link.baseUrlOf(served.baseUrl), LINK_RUNS, folder, false);
  };
  try {
    const loopback = await measure(served, served.baseUrl, LOOPBACK_RUNS, folder, true);
    const clinic = await over(CLINIC_LINK);
    const fast = await over(FAST_LINK);
    // The same-run baseline for memory: a naive download that holds the whole body (fetch).
    const naive = await withRss(async () => {
      const url = `${served.baseUrl}/labels/${served.labelId}/audio`;
      const response = await fetch(url, { headers: { authorization: `Bearer ${served.apiKey}` } });
      return (await response.arrayBuffer()).byteLength;
    });

    const mibps = (ms: number) => served.bytes / MB / (ms / 1000);
    const summary = (where: string, m: Measured) => {
      const curlDurable = median(durableCurl(m))!;
      const rate = (config: Config) => {
        const mine = median(m.ms[config])!;
        return `${config} ${mibps(mine).toFixed(1)} MiB/s = ${(curlDurable / mine).toFixed(2)}×`;
      };
      const ceilings =
        m.drainMs.length > 0
          ? `; the API client draining the body (nothing stored) ${mibps(median(m.drainMs)!).toFixed(0)} MiB/s, ` +
            `writing it to a file and flushing, nothing else, ${mibps(median(m.storeMs)!).toFixed(0)} MiB/s`
          : '';
      return (
        `${where}: curl ${mibps(median(m.curlMs)!).toFixed(1)} MiB/s, made durable ` +
        `${mibps(curlDurable).toFixed(1)} MiB/s; ${rate('player')}; ${rate('export')}${ceilings}`
      );
    };
    process.stdout.write(
      `\n90-minute WAV, ${(served.bytes / MB).toFixed(1)} MiB (over a link: ≥ ${SHARE_OF_CURL}× durable curl's throughput)\n` +
        `  ${summary('loopback', loopback)}\n  ${summary(CLINIC_LINK.name, clinic)}\n  ${summary(FAST_LINK.name, fast)}\n`,
    );
    const what = {
      player: 'as the player (streamed into the cache)',
      export: 'as an export (SHA-256)',
    };
    const time = (m: Measured, config: Config, where: string, targeted: boolean): Figure => ({
      figure: `90-min WAV ${what[config]}, ${where}, median time`,
      unit: 'ms',
      measured: median(m.ms[config]),
      target: targeted ? Math.round(median(durableCurl(m))! / SHARE_OF_CURL) : null,
      baseline: median(durableCurl(m)),
      baselineIs:
        'curl -o on the same URL, its file flushed to disk after it (as durable as Earmark’s), same run' +
        (targeted ? ` (target = that ÷ ${SHARE_OF_CURL}: throughput ≥ ${SHARE_OF_CURL}× its)` : ''),
      samples: m.ms[config].length,
    });
    // report.ts types `unit` as 'ms'; it prints whatever unit it is given.
    const megabytes = 'MB' as unknown as Figure['unit'];
    const all = (pick: (m: Measured) => number[]) => [loopback, clinic, fast].flatMap(pick);
    const figures: Figure[] = [
      ...CONFIGS.map((config) => time(clinic, config, CLINIC_LINK.name, true)),
      ...CONFIGS.map((config) => time(fast, config, FAST_LINK.name, true)),
      ...CONFIGS.map((config) => time(loopback, config, 'loopback', false)),
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
      links: [CLINIC_LINK, FAST_LINK],
      loopback,
      clinic,
      fast,
      naiveRssGrowthMb: naive.growthMb,
      note:
        'Earmark’s time runs from the call to the file published: it includes the peaks or the ' +
        'hash, flushing to disk (fsync) and the rename; curl’s time_total excludes its process ' +
        'start. The service runs in a child process on the same machine, the links in this one.',
    });
  } finally {
    await link.close();
    service.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();

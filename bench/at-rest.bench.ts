// The cache encrypted at rest (issue 30, "Benchmark"): what sealing costs, each figure beside the
// same work on caches kept in the clear (the core's `atRest: 'plain'`: no key, the layout before
// issue 30) in the same run, the two interleaved so a busier moment of the machine hits both.
// Target ≤ 1.15× the clear figure each (a rate: ≥ the clear one / 1.15).
//
//   npx tsx bench/at-rest.bench.ts        (or `npm run bench -- at-rest`)
//
// Figures:
// - sync of 10,000 labels with their notes into an empty cache (records/s, median of RUNS), the
//   reference service in a child process with its rate limit lifted, as bench/sync.bench.ts;
// - full-text search p95 on the synced caches (cache.read.search, limit 20, bench/fts.bench.ts's
//   kinds of query), from the reader thread as the app asks;
// - Recordings' first page from the cache (100 rows, newest first, with the total), median;
// - open a cached 90-minute recording (whole in the audio cache): from asking the cache for it to
//   its peaks read and the first 512 KiB served by the media route, median;
// - seek in it: 512 KiB at 60:00 served by the media route, median;
// - stream an uncached 90-minute recording on the clinic link (50 Mbit/s, 40 ms round trip,
//   test/support/shaped-link.ts): from asking the cache for it to the first 512 KiB served by the
//   media route as they arrive (the stream sealing each 64 KiB chunk it completes), median.
// The audio figures go through the audio cache and the media route the app serves the player
// with (serveMedia, serveStreamingMedia), without the browser: bench/player.bench.ts and
// bench/streaming.bench.ts measure the player on top.
//
// Exit code 0 whether or not the targets are met (the table says); 1 only if the run failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { AccountKey } from '../src/main/at-rest/account-key';
import { AudioCache, type CachedAudio } from '../src/main/audio/audio-cache';
import { serveMedia, serveStreamingMedia, type MediaResponse } from '../src/main/audio/media';
import { openCache, type Cache } from '../src/main/cache';
import { createApiClient } from '../src/main/service-client/client';
import { createSyncEngine } from '../src/main/sync';
import { CLINIC_LINK, startLink } from '../test/support/shaped-link';
import { byteAtSecond, startNinetyMinuteService } from './lib/ninety-minutes';
import { SEARCH_QUERIES as QUERIES } from './lib/search-queries';
import { machine, median, quantile, report, type Figure, type Unit } from './lib/report';
import { startScaleService, type ScaleService } from './lib/service';

const LABELS = 10_000;
const SYNC_RUNS = 3;
const SEARCH_ROUNDS = 20;
const PAGE_READS = 100;
const PAGE_SIZE = 100;
const AUDIO_READS = 15;
const STREAM_RUNS = 3;
const READ_BYTES = 512 * 1024;
const SEEK_SECONDS = 60 * 60;
const FACTOR = 1.15;
const round = (value: number) => Math.round(value * 100) / 100;

type Mode = 'sealed' | 'clear';
const MODES: readonly Mode[] = ['sealed', 'clear'];

/** Each mode's samples of one figure. */
type Samples = Record<Mode, number[]>;
const samples = (): Samples => ({ sealed: [], clear: [] });

/** The account key of the sealed side (one per run, as an account has one). */
const accountKey = AccountKey.random().key;
const keyOf = (mode: Mode) => (mode === 'sealed' ? accountKey : undefined);

/** A first sync of every label into a new empty cache; answers labels/s and keeps the cache. */
async function syncOnce(service: ScaleService, file: string, mode: Mode): Promise<number> {
  const cache = await openCache({ file, key: keyOf(mode)?.databaseKey() });
  const api = createApiClient({ baseUrl: service.baseUrl, apiKey: service.apiKey });
  const engine = createSyncEngine({ cache, api, organizationId: service.organizationId });
  const started = performance.now();
  const result = await engine.run();
  const ms = performance.now() - started;
  const stats = await cache.read.stats();
  await api.close();
  await cache.close();
  if (result.outcome !== 'complete' || stats.labels !== LABELS)
    throw new Error(`the ${mode} sync did not complete: ${JSON.stringify({ result, stats })}`);
  return LABELS / (ms / 1000);
}

/** Reads a media answer's body to its end; answers its length. */
async function drain(media: MediaResponse): Promise<number> {
  if (media.status !== 206 || !media.body)
    throw new Error(`the media route answered ${media.status}`);
  let bytes = 0;
  for await (const chunk of media.body as Readable) bytes += (chunk as Buffer).length;
  return bytes;
}

const rangeOf = (start: number) => ({
  headers: { range: `bytes=${start}-${start + READ_BYTES - 1}` },
});

/** Times `work`, which must answer READ_BYTES (a media read). */
async function timedRead(work: () => Promise<number>): Promise<number> {
  const started = performance.now();
  const bytes = await work();
  const ms = performance.now() - started;
  if (bytes !== READ_BYTES) throw new Error(`read ${bytes} bytes, not ${READ_BYTES}`);
  return ms;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const machineInfo = machine();
  const dir = mkdtempSync(join(tmpdir(), 'earmark-at-rest-bench-'));
  const scale = await startScaleService(join(dir, 'service'), LABELS);
  const ninety = await startNinetyMinuteService(1 + STREAM_RUNS * MODES.length);
  const link = await startLink(ninety.port, CLINIC_LINK);
  const caches: Partial<Record<Mode, Cache>> = {};
  const audio: Partial<Record<Mode, AudioCache>> = {};
  try {
    // Text: the sync, then search and the first page on what it synced.
    const syncRate = samples();
    const files: Record<Mode, string> = { sealed: '', clear: '' };
    for (let run = 0; run < SYNC_RUNS; run++) {
      for (const mode of run % 2 === 0 ? MODES : [...MODES].reverse()) {
        files[mode] = join(dir, `${mode}-${run}.sqlite`);
        syncRate[mode].push(await syncOnce(scale, files[mode], mode));
      }
    }
    for (const mode of MODES)
      caches[mode] = await openCache({ file: files[mode], key: keyOf(mode)?.databaseKey() });
    const search = samples();
    for (let round = 0; round < SEARCH_ROUNDS; round++) {
      for (const query of QUERIES) {
        for (const mode of MODES) {
          const started = performance.now();
          await caches[mode]!.read.search(query, { limit: 20 });
          search[mode].push(performance.now() - started);
        }
      }
    }
    const firstPage = samples();
    for (let read = 0; read < PAGE_READS; read++) {
      for (const mode of MODES) {
        const started = performance.now();
        const page = await caches[mode]!.read.labels({ limit: PAGE_SIZE, offset: 0 });
        firstPage[mode].push(performance.now() - started);
        if (page.items.length !== PAGE_SIZE) throw new Error('the first page is not full');
      }
    }

    // Audio: one recording cached whole on each side (on loopback, not timed), then read.
    const loopback = createApiClient({ baseUrl: ninety.baseUrl, apiKey: ninety.apiKey });
    const [cachedId, ...uncached] = ninety.labelIds;
    const whole: Partial<Record<Mode, CachedAudio>> = {};
    for (const mode of MODES) {
      audio[mode] = await AudioCache.open({ folder: join(dir, `audio-${mode}`), key: keyOf(mode) });
      whole[mode] = await audio[mode]!.ensure(loopback.labels, cachedId!);
    }
    await loopback.close();
    const open = samples();
    const seek = samples();
    for (let read = 0; read < AUDIO_READS; read++) {
      for (const mode of MODES) {
        const cache = audio[mode]!;
        open[mode].push(
          await timedRead(async () => {
            const found = await cache.open(() => Promise.reject(new Error('cached')), cachedId!);
            if (found.kind !== 'whole') throw new Error('the recording is not cached whole');
            if (!(await cache.peaks(found.audio))) throw new Error('no peaks');
            return drain(await serveMedia(rangeOf(0), cache.mediaFile(found.audio)));
          }),
        );
        seek[mode].push(
          await timedRead(async () =>
            drain(
              await serveMedia(rangeOf(byteAtSecond(SEEK_SECONDS)), cache.mediaFile(whole[mode]!)),
            ),
          ),
        );
      }
    }
    const clinic = createApiClient({
      baseUrl: link.baseUrlOf(ninety.baseUrl),
      apiKey: ninety.apiKey,
    });
    const stream = samples();
    for (let run = 0; run < STREAM_RUNS; run++) {
      for (const mode of run % 2 === 0 ? MODES : [...MODES].reverse()) {
        const cache = audio[mode]!;
        const labelId = uncached.shift()!;
        stream[mode].push(
          await timedRead(async () => {
            const found = await cache.open(() => Promise.resolve(clinic.labels), labelId);
            if (found.kind !== 'streaming') throw new Error('the recording was cached already');
            return drain(await serveStreamingMedia(rangeOf(0), found.stream));
          }),
        );
        // The rest of it would fill the link under the next measurement.
        await cache.remove(labelId);
      }
    }
    await clinic.close();

    const baselineIs = 'the same on caches kept in the clear (no key), same run; target 1.15× it';
    const figure = (
      name: string,
      unit: Unit,
      measured: Samples,
      pick: (s: number[]) => number | null,
    ): Figure => {
      const sealed = pick(measured.sealed);
      const clear = pick(measured.clear);
      const rate = unit === 'labels/s';
      return {
        figure: name,
        unit,
        measured: sealed,
        target: clear === null ? null : round(rate ? clear / FACTOR : clear * FACTOR),
        baseline: clear,
        baselineIs: rate
          ? 'the same sync into a cache kept in the clear, same run; target the clear rate / 1.15'
          : baselineIs,
        samples: measured.sealed.length,
      };
    };
    const p95 = (s: number[]) => quantile(s, 0.95);
    report(
      'at-rest',
      startedAt,
      machineInfo,
      [
        figure(`sync of ${LABELS} labels with notes, median`, 'labels/s', syncRate, median),
        figure(`search, p95 over ${QUERIES.length} queries × ${SEARCH_ROUNDS}`, 'ms', search, p95),
        figure(
          `Recordings' first page (${PAGE_SIZE} rows) from the cache, median`,
          'ms',
          firstPage,
          median,
        ),
        figure(
          'open a cached 90-min recording → peaks and first 512 KiB served, median',
          'ms',
          open,
          median,
        ),
        figure('seek in it → 512 KiB at 60:00 served, median', 'ms', seek, median),
        figure(
          `stream an uncached 90-min recording, ${CLINIC_LINK.name} → first 512 KiB served, median`,
          'ms',
          stream,
          median,
        ),
      ],
      {
        samples: { syncRate, search, firstPage, open, seek, stream },
        link: CLINIC_LINK,
        recordingBytes: ninety.bytes,
        note:
          'Sealed: the cache database encrypted (ChaCha20-Poly1305 per page, SQLite3 Multiple ' +
          'Ciphers), audio and peaks in 64 KiB AES-256-GCM chunks. Clear: the core option that ' +
          'keeps caches as before issue 30 (the baseline only).',
      },
    );
  } finally {
    for (const mode of MODES) {
      await audio[mode]?.close();
      await caches[mode]?.close();
    }
    await link.close();
    ninety.stop();
    scale.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();

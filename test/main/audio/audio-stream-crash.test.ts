import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../service/harness';
import { CACHE_MODES } from './cache-modes';
import { startChild, type Child } from './crash-child';
import * as fx from './fixtures';

let svc: RunningService;
let labelId: string;
let expected: { sha256: string; bytes: number };

beforeAll(async () => {
  svc = await startService();
  labelId = fx.seedLabel(svc.service, svc.credentials.primary.organizationId, { minutes: 10 });
  const body = await fx.serviceAudio(svc, labelId);
  expected = { sha256: fx.sha256(body), bytes: body.length };
});
afterAll(() => svc?.dispose());

describe.each(CACHE_MODES)('a recording streaming into the cache ($mode)', (cache) => {
  const streamIn = (folder: string, mode: 'play' | 'finish'): Child =>
    startChild('audio/stream-child.ts', {
      ...cache.keyEnv,
      EARMARK_BASE_URL: svc.baseUrl,
      EARMARK_API_KEY: svc.credentials.primary.apiKey,
      EARMARK_LABEL_ID: labelId,
      EARMARK_FOLDER: folder,
      EARMARK_MODE: mode,
      EARMARK_SEEK_AT: String(Math.floor(expected.bytes * 0.6)),
    });

  it('kill -9 during streamed playback with gaps in the cached ranges, restart, finish: the SHA-256 equals the service’s', async () => {
    const folder = fx.tempFolder('earmark-stream-crash-');
    const partial = cache.partialOf(folder, labelId);
    const ranges = () => cache.rangesOf(partial);
    const first = streamIn(folder, 'play');
    let second: Child | undefined;
    try {
      // Played from the start, then sought to 60%: two ranges flushed to disk, a gap between.
      const deadline = Date.now() + 30_000;
      while (ranges().length < 2 || ranges()[1]![1] - ranges()[1]![0] < 256 * 1024) {
        if (Date.now() > deadline)
          throw new Error(`no gap on disk: ${JSON.stringify(first.lines.at(-1))}`);
        await delay(5);
      }
      first.kill('SIGKILL');
      expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
      const kept = ranges();
      expect(kept[0]![0]).toBe(0);
      expect(kept[1]![0]).toBeGreaterThan(kept[0]![1]);
      expect(kept[1]![1]).toBeLessThan(expected.bytes);
      // Nothing but the partial file: no file with the final name before it is whole.
      expect(fx.visibleFiles(cache.filesDir(folder))).toEqual([]);

      second = streamIn(folder, 'finish');
      expect(await second.exited).toEqual({ code: 0, signal: null });
      const done = second.lines.find((line) => line.event === 'done');
      expect(done, JSON.stringify(second.lines.at(-1))).toBeDefined();
      const path = done!.path as string;
      expect(fx.sha256(cache.plain(path))).toBe(expected.sha256);
      expect(existsSync(partial)).toBe(false);
      expect(existsSync(cache.stateOf(partial))).toBe(false);
    } finally {
      for (const child of [first, second]) child?.kill('SIGKILL');
    }
  }, 90_000);
});

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { exportPartialPathOf, type ExportedAudio } from '../../../src/main/export/export-audio';
import { startService, type RunningService } from '../../service/harness';
import { startChild, type Child } from '../audio/crash-child';
import * as fx from '../audio/fixtures';
import type { AudioRequestSeen } from '../audio/noting';

let svc: RunningService;
let labelId: string;
let expected: { sha256: string; bytes: number };

beforeAll(async () => {
  svc = await startService();
  labelId = fx.seedLabel(svc.service, svc.credentials.primary.organizationId, { minutes: 20 });
  const body = await fx.serviceAudio(svc, labelId);
  expected = { sha256: fx.sha256(body), bytes: body.length };
});
afterAll(() => svc?.dispose());

const startDownload = (folder: string, throttle: boolean): Child =>
  startChild('export/export-audio-child.ts', {
    EARMARK_BASE_URL: svc.baseUrl,
    EARMARK_API_KEY: svc.credentials.primary.apiKey,
    EARMARK_LABEL_ID: labelId,
    EARMARK_FOLDER: folder,
    EARMARK_THROTTLE: throttle ? '1' : '0',
    EARMARK_CHECKPOINT_BYTES: String(256 * 1024),
  });

/** Every file a user could see in the folder must be whole whenever it is seen. */
function watchVisible(folder: string, seen: { name: string; size: number }[]) {
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      for (const name of fx.visibleFiles(folder)) {
        try {
          seen.push({ name, size: statSync(join(folder, name)).size });
        } catch {
          // gone between listing and stat
        }
      }
      await delay(2);
    }
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

it('kill -9 mid-download, restart: resumes, no partial file ever had the final name, SHA-256 equals the service’s', async () => {
  const folder = fx.tempFolder('earmark-crash-');
  const partial = exportPartialPathOf(folder, labelId);
  const seen: { name: string; size: number }[] = [];

  // First run: a slow network; killed once some bytes are flushed to disk.
  const first = startDownload(folder, true);
  let second: Child | undefined;
  let stopWatching = watchVisible(folder, seen);
  try {
    const deadline = Date.now() + 30_000;
    while (fx.durableBytes(partial) < 2 * 1024 * 1024) {
      if (Date.now() > deadline) throw new Error('the first download never got 2 MiB on disk');
      await delay(5);
    }
    first.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // Nothing of the first run writes any more: the partial file stays as the crash left it.
    const frozen = statSync(partial).size;
    await delay(300);
    expect(statSync(partial).size).toBe(frozen);
    await stopWatching();
    expect(seen).toEqual([]);
    expect(fx.visibleFiles(folder)).toEqual([]);
    const onDisk = statSync(partial).size;
    const flushed = fx.durableBytes(partial);
    expect(onDisk).toBeGreaterThanOrEqual(flushed);
    expect(onDisk).toBeLessThan(expected.bytes);

    // Second run: a new process picks up the partial file and finishes it.
    second = startDownload(folder, false);
    stopWatching = watchVisible(folder, seen);
    expect(await second.exited).toEqual({ code: 0, signal: null });
    await stopWatching();
    const done = second.lines.find((line) => line.event === 'done');
    expect(done, JSON.stringify(second.lines.at(-1))).toBeDefined();
    const result = done!.result as ExportedAudio;
    const requests = done!.requests as AudioRequestSeen[];

    // One request, for the bytes after those the first run had flushed.
    expect(requests).toHaveLength(1);
    const resumedFrom = requests[0]!.offset;
    expect(resumedFrom).toBeGreaterThanOrEqual(flushed);
    expect(resumedFrom).toBeGreaterThan(0);
    expect(requests).toEqual([{ offset: resumedFrom, status: 206 }]);
    expect(result.sha256).toBe(expected.sha256);
    expect(fx.sha256File(result.path)).toBe(expected.sha256);
    expect(result.bytes).toBe(expected.bytes);
    // Whenever a file with a final name was seen, it was whole.
    for (const { name, size } of seen) {
      expect({ name, size }).toEqual({ name: result.name, size: expected.bytes });
    }
    expect(fx.visibleFiles(folder)).toEqual([result.name]);
    expect(existsSync(partial)).toBe(false);
    expect(existsSync(`${partial}.json`)).toBe(false);
  } finally {
    // Whatever failed, leave no process or watcher behind.
    await stopWatching();
    for (const child of [first, second]) child?.kill('SIGKILL');
  }
}, 90_000);

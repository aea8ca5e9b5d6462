// A cache filled with a scale service's labels without a sync of them all, for the benchmarks of
// screens over many cached recordings (the Recordings list, Review).
import { setTimeout as sleep } from 'node:timers/promises';
import { openCache } from '../../src/main/cache';
import type { Label, Note } from '../../src/shared/api';
import type { SyncStatus } from '../../src/shared/ipc';
import { invokeOverShell, type ShellProcess } from '../../test/e2e/support';
import type { ScaleService } from './service';

const LIST_PAGE = 1000;
const CACHE_BATCH = 5000;

/**
 * Every label of the service, newest first. Pages by time (each page ends before the last start
 * seen; the scale seed's start times are all different), since deep offsets make the service
 * count through every row before them.
 */
export async function listAll(service: ScaleService): Promise<Label[]> {
  const all: Label[] = [];
  let before: string | null = null;
  for (;;) {
    const query = `limit=${LIST_PAGE}${before ? `&toTime=${encodeURIComponent(before)}` : ''}`;
    const response = await fetch(
      `${service.baseUrl}/organizations/${service.organizationId}/labels?${query}`,
      { headers: { authorization: `Bearer ${service.apiKey}` } },
    );
    if (!response.ok) throw new Error(`listing labels: HTTP ${response.status}`);
    const page = (await response.json()) as Label[];
    all.push(...page);
    if (page.length < LIST_PAGE) return all;
    before = page.at(-1)!.fromTime;
  }
}

/**
 * Fills the account's cache with the service's labels through the cache's own writes, as label
 * details with the notes `notesOf` gives, none by default (the list shows no notes; the sync
 * then has no transcripts to fetch for 100,000 labels, only for the few hundred of its re-scan
 * window).
 */
export async function seedCache(
  file: string,
  labels: Label[],
  notesOf: (label: Label) => Note[] = () => [],
): Promise<void> {
  const cache = await openCache({ file });
  try {
    const fetchedAt = Date.now();
    for (let i = 0; i < labels.length; i += CACHE_BATCH) {
      const batch = labels.slice(i, i + CACHE_BATCH).map((label) => ({
        ...label,
        ownedPatientNotes: notesOf(label),
      }));
      await cache.write.storeLabels(batch, fetchedAt);
    }
  } finally {
    await cache.close();
  }
}

export async function waitForSync(shell: ShellProcess): Promise<SyncStatus> {
  for (let waited = 0; waited < 300_000; waited += 500) {
    const status = await invokeOverShell<SyncStatus>(shell.url, 'sync.status', {});
    if (status.state === 'idle' && status.lastSyncAt !== null) return status;
    if (status.state === 'failed') throw new Error(`The sync failed: ${status.message}`);
    await sleep(500);
  }
  throw new Error('The sync did not finish within 5 minutes.');
}

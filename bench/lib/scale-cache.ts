// A cache filled with a scale service's labels without a sync of them all, for the benchmarks of
// screens over many cached recordings (the Recordings list, Review).
import { setTimeout as sleep } from 'node:timers/promises';
import { AccountKey, sessionAccountKey } from '../../src/main/at-rest/account-key';
import { openCache } from '../../src/main/cache';
import type { Label, Note } from '../../src/shared/api';
import type { SyncStatus } from '../../src/shared/ipc';
import { invokeOverShell, type ShellProcess } from '../../test/e2e/support';
import type { ScaleService } from './service';

/** The list's page at the service's maximum. */
const LIST_PAGE = 1000;
const CACHE_BATCH = 5000;

/**
 * Every label of the service, newest first. A time keyset, as the sync lists (each page ends at
 * the last start seen, skipping the rows at that start already listed), since deep offsets make
 * the service count through every row before them.
 */
export async function listAll(service: ScaleService): Promise<Label[]> {
  const all: Label[] = [];
  let boundMs: number | null = null;
  let skip = 0;
  for (;;) {
    const query = new URLSearchParams({ limit: String(LIST_PAGE), offset: String(skip) });
    if (boundMs !== null) query.set('toTime', new Date(boundMs + 1).toISOString());
    const response = await fetch(
      `${service.baseUrl}/organizations/${service.organizationId}/labels?${query}`,
      { headers: { authorization: `Bearer ${service.apiKey}` } },
    );
    if (!response.ok) throw new Error(`listing labels: HTTP ${response.status}`);
    const page = (await response.json()) as Label[];
    all.push(...page);
    if (page.length < LIST_PAGE) return all;
    const lastMs = Date.parse(page.at(-1)!.fromTime);
    const atLast = page.filter((label) => Date.parse(label.fromTime) === lastMs).length;
    skip = atLast + (lastMs === boundMs ? skip : 0);
    boundMs = lastMs;
  }
}

/** A session-only account's (the benchmarks' shells add theirs so): sealed under its API key. */
export interface SessionAccount {
  apiKey: string;
  accountId: string;
}

/**
 * Fills a session-only account's cache (sealed, as the app keeps it) with the service's labels
 * through the cache's own writes, as label details with the notes `notesOf` gives, none by
 * default (the list shows no notes; the sync then has no transcripts to fetch for 100,000
 * labels, only for the few hundred of its re-scan window).
 *
 * Once `shell`, which holds the account, has its cache open: adding an account reads its Review
 * count at once, which opens the cache and sets up a new file. Set up by both processes at once,
 * the second failed ("table kept_records already exists"). Written beside the shell's open
 * cache, as SQLite lets two processes share a file.
 */
export async function seedCache(
  shell: ShellProcess,
  file: string,
  account: SessionAccount,
  labels: Label[],
  notesOf: (label: Label) => Note[] = () => [],
): Promise<void> {
  await invokeOverShell(shell.url, 'review.count', {});
  const key = AccountKey.from(sessionAccountKey(account.apiKey, account.accountId));
  const cache = await openCache({ file, key: key.databaseKey() });
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

/**
 * Keeps the active account's audio and text on this computer for ever, through the app's own
 * setting (retention). A benchmark's history spans years: under the default (text for 90 days)
 * the shell's first cleanup, a minute after the cache opens, would delete all but the last 90
 * days of it while the screens are measured, and its sync would bring nothing older back. Call
 * it once the cache is in place: the setting opens it and has the sync walk everything again.
 */
export async function keepEverything(shell: ShellProcess): Promise<void> {
  await invokeOverShell(shell.url, 'retention.setSettings', { audioDays: null, textDays: null });
}

/** Waits until the shell's background sync has finished a run. */
export async function waitForSync(shell: ShellProcess, limitMs = 300_000): Promise<SyncStatus> {
  for (let waited = 0; waited < limitMs; waited += 500) {
    const status = await invokeOverShell<SyncStatus>(shell.url, 'sync.status', {});
    if (status.state === 'idle' && status.lastSyncAt !== null) return status;
    if (status.state === 'failed') throw new Error(`The sync failed: ${status.message}`);
    await sleep(500);
  }
  throw new Error(`The sync did not finish within ${limitMs / 60_000} minutes.`);
}

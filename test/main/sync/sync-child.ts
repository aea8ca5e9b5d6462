// A sync in a process of its own, for the kill -9 test: prints one JSON line per progress
// event on stdout, then the result. Arguments: cache file, base URL, API key, organization id,
// and the tuning as JSON.
import { createApiClient } from '../../../src/main/service-client/client';
import { openCache } from '../../../src/main/cache';
import { createSyncEngine, type SyncTuning } from '../../../src/main/sync';

const [file, baseUrl, apiKey, organizationId, tuningJson = '{}'] = process.argv.slice(2);
if (!file || !baseUrl || !apiKey || !organizationId) {
  process.stderr.write('usage: sync-child.ts CACHE_FILE BASE_URL API_KEY ORG_ID [TUNING_JSON]\n');
  process.exit(2);
}

const cache = await openCache({ file });
const api = createApiClient({ baseUrl, apiKey });
const engine = createSyncEngine(
  { cache, api, organizationId },
  JSON.parse(tuningJson) as SyncTuning,
);
const result = await engine.run({
  onProgress: (progress) => process.stdout.write(`${JSON.stringify({ progress })}\n`),
});
process.stdout.write(`${JSON.stringify({ result })}\n`);
await api.close();
await cache.close();

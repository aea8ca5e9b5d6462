import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../../src/shared/api';
import type { ChannelInput, ChannelName, ChannelOutput } from '../../../src/shared/ipc';
import type { Core } from '../../../src/main/core';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../../service/harness';
import { testCore } from '../../support/core';

/** Conversations: the record one became (matched by its range), and both reads offline. */
const BASE = baseMinute(2);
const device = DEMO_DEVICES[0].id;
let svc: RunningService;
let core: Core;
let dataDir: string;

async function call<C extends ChannelName>(
  channel: C,
  input: ChannelInput<C>,
): Promise<ChannelOutput<C>> {
  const answer = await core.rpc.invoke(channel, input);
  if (!answer.ok) throw new Error(`${channel}: ${answer.error.kind} ${answer.error.message}`);
  return answer.value as ChannelOutput<C>;
}

beforeAll(async () => {
  svc = await startService({ processingMs: 300 });
  svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 30 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
  dataDir = mkdtempSync(join(tmpdir(), 'earmark-conversations-'));
  core = testCore({ dataDir });
  await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
});
afterAll(async () => {
  await core?.close();
  await svc?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the record a conversation became', () => {
  let ref: { deviceId: string; conversationId: string };

  it('is found by the range this app created it from, once it is uploaded', async () => {
    const range = { deviceId: device, startMs: BASE + 2 * MINUTE_MS, endMs: BASE + 7 * MINUTE_MS };
    const created = await call('hub.create', range);
    ref = { deviceId: device, conversationId: created.conversation!.conversationId };
    await call('hub.complete', ref);
    await expect
      .poll(async () => (await call('conversations.get', ref)).value.status, { timeout: 10_000 })
      .toBe('UPLOADED');
    const record = await call('conversations.record', ref);
    expect(record.source).toBe('service');
    expect(record.value).toMatchObject({
      fromTime: new Date(range.startMs).toISOString(),
      toTime: new Date(range.endMs).toISOString(),
    });
    expect(['HubMic', 'HubBatch']).toContain(record.value!.type);
  });

  it('is none for a conversation this app did not create, without asking the service', async () => {
    expect(
      await call('conversations.record', { deviceId: device, conversationId: 'elsewhere' }),
    ).toEqual({ value: null, source: 'cache', fetchedAt: null });
  });

  it('offline: the record, the conversation and the listing come from the cache', async () => {
    const online = await call('conversations.record', ref);
    await expect
      .poll(async () => (await call('sync.status', {})).lastSyncAt, { timeout: 20_000 })
      .not.toBeNull();
    const listed = (await call('conversations.list', { pageSize: 100 })).value.items;
    await svc.close();

    const record = await call('conversations.record', ref);
    expect(record).toMatchObject({ source: 'cache', value: { id: online.value!.id } });
    expect(Date.parse(record.fetchedAt!)).toBeLessThanOrEqual(Date.now());
    const conversation = await call('conversations.get', ref);
    expect(conversation).toMatchObject({ source: 'cache', value: { status: 'UPLOADED' } });

    // The cached listing in pages, each token going on in the cache, in the service's order.
    const seen: string[] = [];
    let page = await call('conversations.list', { pageSize: 2 });
    for (;;) {
      expect(page.source).toBe('cache');
      seen.push(...page.value.items.map((s) => s.conversation.conversationId));
      if (!page.value.hasMore) break;
      expect(page.value.nextPageToken).toMatch(/^cache:\d+$/);
      page = await call('conversations.list', {
        pageSize: 2,
        pageToken: page.value.nextPageToken!,
      });
    }
    expect(seen).toEqual(listed.map((s) => s.conversation.conversationId));
  });
});

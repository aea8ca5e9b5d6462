import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, TERMINAL_STATUSES, type Conversation } from '../../../src/shared/api';
import type { ConversationChange, IpcResult, Sourced } from '../../../src/shared/ipc';
import { openCache, type Cache } from '../../../src/main/cache';
import { ConversationFollower } from '../../../src/main/conversations/follow';
import { connectService, type ServiceClient } from '../../../src/main/service-client/connect';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../../service/harness';
import { testCore } from '../../support/core';

/**
 * Following a conversation to its final state, against the reference service, which processes a
 * completed conversation in `processingMs` (COMPLETED → PROCESSING → UPLOADED).
 */
const PROCESSING_MS = 1500;
const BASE = baseMinute(2);
const device = DEMO_DEVICES[0].id;
let svc: RunningService;
let proxy: FaultProxy;
let client: ServiceClient;
let cache: Cache;
let folder: string;
let nextMinute = 0;

beforeAll(async () => {
  svc = await startService({ processingMs: PROCESSING_MS });
  proxy = await startFaultProxy(svc.baseUrl);
  svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 60 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
  // The client's own retries wait no time here: the follower's backoff is what is tested.
  client = connectService(proxy.baseUrl, svc.credentials.primary.apiKey, {
    timeoutMs: 2000,
    sleep: async () => {},
  });
  folder = mkdtempSync(join(tmpdir(), 'earmark-follow-'));
  cache = await openCache({ file: join(folder, 'cache.sqlite'), thread: 'main' });
});
afterAll(async () => {
  await cache?.close();
  await client?.close();
  await proxy?.close();
  await svc?.dispose();
  rmSync(folder, { recursive: true, force: true });
});

/** A new conversation of two speech minutes, completed (processing starts now). */
async function completedConversation(): Promise<{ deviceId: string; conversationId: string }> {
  const startMs = BASE + nextMinute * MINUTE_MS;
  nextMinute += 3;
  const created = await client.api.conversations.create({
    deviceId: device,
    startMs,
    endMs: startMs + 2 * MINUTE_MS,
  });
  const ref = { deviceId: device, conversationId: created.conversation!.conversationId };
  await client.api.conversations.complete(ref.deviceId, ref.conversationId);
  return ref;
}

function follower(changes: ConversationChange[]) {
  return new ConversationFollower({
    service: { call: (call) => call(client) },
    conversations: {
      get: async ({ deviceId, conversationId }) => ({
        value: await client.api.conversations.get(deviceId, conversationId),
        source: 'service',
        fetchedAt: new Date().toISOString(),
      }),
    },
    cache: async () => cache,
    changed: (change) => changes.push(change),
    log: () => {},
    backoff: { firstMs: 50, factor: 2, maxMs: 400 },
  });
}

const statuses = (changes: ConversationChange[]) => changes.map((c) => c.conversation.status);
const isFinal = (conversation: Conversation) => TERMINAL_STATUSES.includes(conversation.status);

describe('following a conversation (ConversationFollower)', () => {
  it('follows it to its final status, pushing each change once and keeping it in the cache', async () => {
    const ref = await completedConversation();
    const changes: ConversationChange[] = [];
    const followed = follower(changes);
    const now = await followed.follow(ref);
    expect(now.value.status).toBe('COMPLETED');
    expect(followed.following).toBe(1);
    await expect.poll(() => statuses(changes), { timeout: 10_000 }).toContain('UPLOADED');
    expect(statuses(changes)).toEqual([...new Set(statuses(changes))]);
    expect(changes.every((c) => c.deviceId === ref.deviceId)).toBe(true);
    await expect.poll(() => followed.following).toBe(0);
    expect((await cache.read.conversation(ref.deviceId, ref.conversationId))?.status).toBe(
      'UPLOADED',
    );
  });

  it('is idempotent: a second follow joins the first', async () => {
    const ref = await completedConversation();
    const changes: ConversationChange[] = [];
    const followed = follower(changes);
    await followed.follow(ref);
    await followed.follow(ref);
    expect(followed.following).toBe(1);
    await expect.poll(() => statuses(changes), { timeout: 10_000 }).toContain('UPLOADED');
    expect(statuses(changes).filter((s) => s === 'UPLOADED')).toHaveLength(1);
  });

  it('does not follow a conversation already final', async () => {
    const ref = await completedConversation();
    const changes: ConversationChange[] = [];
    const followed = follower(changes);
    await followed.follow(ref);
    await expect.poll(() => followed.following, { timeout: 10_000 }).toBe(0);
    const again = await followed.follow(ref);
    expect(isFinal(again.value)).toBe(true);
    expect(followed.following).toBe(0);
  });

  it('keeps asking while the service cannot be reached, and goes on when it can', async () => {
    const ref = await completedConversation();
    const path = `/hub/conversations/${ref.deviceId}/${ref.conversationId}`;
    const changes: ConversationChange[] = [];
    const followed = follower(changes);
    await followed.follow(ref);
    // Every request of the next few polls (each with the client's retries) is refused.
    proxy.inject({ kind: 'reset' }, 12, { path });
    await expect.poll(() => proxy.seen({ path }).length, { timeout: 10_000 }).toBeGreaterThan(12);
    expect(followed.following).toBe(1);
    await expect.poll(() => statuses(changes), { timeout: 15_000 }).toContain('UPLOADED');
  });

  it('stops with its account (another becomes active, the app quits), and starts no follow after', async () => {
    const followed = follower([]);
    await followed.follow(await completedConversation());
    await followed.follow(await completedConversation());
    expect(followed.following).toBe(2);
    await followed.stopAll();
    expect(followed.following).toBe(0);
    // A call that was on its way: answered, not followed.
    const late = await followed.follow(await completedConversation());
    expect(late.value.status).toBe('COMPLETED');
    expect(followed.following).toBe(0);
  });
});

describe('conversations.follow', () => {
  it('answers the conversation now and pushes conversation.changed until it is final', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'earmark-follow-core-'));
    const core = testCore({ dataDir });
    try {
      const changes: ConversationChange[] = [];
      core.on('conversation.changed', (change) => changes.push(change));
      const added = await core.rpc.invoke('accounts.add', {
        baseUrl: svc.baseUrl,
        apiKey: svc.credentials.primary.apiKey,
      });
      expect(added.ok).toBe(true);
      const ref = await completedConversation();
      const answer = (await core.rpc.invoke('conversations.follow', ref)) as IpcResult<
        Sourced<Conversation>
      >;
      expect(answer).toMatchObject({ ok: true, value: { source: 'service' } });
      expect((await core.rpc.invoke('conversations.follow', ref)).ok).toBe(true);
      await expect
        .poll(() => statuses(changes), { timeout: 20_000, interval: 200 })
        .toContain('UPLOADED');
      expect(statuses(changes).filter((s) => s === 'UPLOADED')).toHaveLength(1);
      expect(changes.at(-1)).toMatchObject({
        deviceId: ref.deviceId,
        conversation: { conversationId: ref.conversationId, status: 'UPLOADED' },
      });
    } finally {
      await core.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

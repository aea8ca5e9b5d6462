import { beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, type Conversation } from '../../../src/shared/api';
import { DEMO_DEVICES, SECONDARY_DEVICE, baseMinute, hubMinute } from '../../service/harness';
import { rejection, useProxiedService } from './helpers';

const env = useProxiedService({ processingMs: 100 });

/** Holds the conversations the paging tests count; the others are made on `workDevice`. */
const pagedDevice: string = DEMO_DEVICES[0].id;
const workDevice: string = DEMO_DEVICES[1].id;
const BASE = baseMinute(3);
const at = (minute: number) => BASE + minute * MINUTE_MS;
const PAGED = 23;
const pagedIds: string[] = [];

beforeAll(async () => {
  // Speech in every minute of 0-59 on both devices; silence in 60-89 on the work device.
  env.svc.service.hub.insertMinutes(
    pagedDevice,
    Array.from({ length: 60 }, (_, i) => hubMinute(BASE, i, 20_000)),
  );
  env.svc.service.hub.insertMinutes(
    workDevice,
    Array.from({ length: 90 }, (_, i) => hubMinute(BASE, i, i < 60 ? 20_000 + i : 0)),
  );
  for (let i = 0; i < PAGED; i++) {
    const created = await env.client.conversations.create({
      deviceId: pagedDevice,
      startMs: at(2 * i),
      endMs: at(2 * i + 2),
    });
    pagedIds.push(created.conversation!.conversationId);
  }
});

async function until(read: () => Promise<Conversation>, done: (c: Conversation) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('list and pages', () => {
  it('lists a page with hasMore and a nextPageToken', async () => {
    const page = await env.client.conversations.list({ deviceId: pagedDevice, pageSize: 5 });
    expect(page.items).toHaveLength(5);
    expect(page.hasMore).toBe(true);
    expect(page.nextPageToken).toEqual(expect.any(String));
    expect(page.items[0]).toEqual({
      conversationId: pagedIds[PAGED - 1]!,
      deviceId: pagedDevice,
      status: 'ACTIVE',
      speechMinuteCount: 2,
      transcriptState: 'PENDING',
      isImportable: false,
      notImportableReason: expect.any(String),
      transcriptText: '',
      // The reference service's extension: the range it covers, no record yet.
      startMs: at(2 * (PAGED - 1)),
      endMs: at(2 * PAGED),
      labelId: null,
    } satisfies Conversation);
  });

  it('follows nextPageToken while hasMore, visiting every conversation exactly once', async () => {
    const seen: string[] = [];
    for await (const page of env.client.conversations.pages({
      deviceId: pagedDevice,
      pageSize: 10,
    })) {
      seen.push(...page.items.map((conversation) => conversation.conversationId));
    }
    expect(seen).toHaveLength(PAGED);
    expect(new Set(seen)).toEqual(new Set(pagedIds));
    const tokens = env.proxy.requests.map((r) => new URLSearchParams(r.query).get('pageToken'));
    expect(tokens).toHaveLength(3);
    expect(tokens[0]).toBeNull();
    expect(tokens.slice(1).every((token) => token !== null)).toBe(true);
  });

  it('filters by status and organization; an empty match is an empty list', async () => {
    const { organizationId } = env.svc.credentials.primary;
    const active = await env.client.conversations.list({
      status: 'ACTIVE',
      organizationId,
      pageSize: 100,
    });
    expect(active.items.length).toBeGreaterThanOrEqual(PAGED);
    expect(await env.client.conversations.list({ status: 'FAILED' })).toEqual({
      items: [],
      hasMore: false,
    });
  });
});

describe('timeline and preview', () => {
  it('reads the minutes of a window', async () => {
    const { minutes } = await env.client.conversations.timeline(workDevice, {
      startMs: at(59),
      endMs: at(61),
    });
    expect(minutes).toEqual([
      {
        minuteStartMs: at(59),
        vadIsSilent: false,
        vadSpeechDurationMs: 20_059,
        transcriptText: 'Line said in minute 59.',
        diarizedTranscriptText: 'Speaker 1: Line said in minute 59.',
      },
      {
        minuteStartMs: at(60),
        vadIsSilent: true,
        vadSpeechDurationMs: 0,
        transcriptText: '',
        diarizedTranscriptText: '',
      },
    ]);
    expect(env.proxy.requests[0]).toMatchObject({
      path: `/hub/conversations/timeline/${workDevice}`,
      query: `startMs=${at(59)}&endMs=${at(61)}`,
    });
  });

  it('reads minute starts sent as ISO strings', async () => {
    env.proxy.inject({
      kind: 'rewrite',
      transform: (body) => ({
        minutes: (body as { minutes: { minuteStartMs: number }[] }).minutes.map((m) => ({
          ...m,
          minuteStartMs: new Date(m.minuteStartMs).toISOString(),
        })),
      }),
    });
    const { minutes } = await env.client.conversations.timeline(workDevice, {
      startMs: at(0),
      endMs: at(3),
    });
    expect(minutes.map((m) => m.minuteStartMs)).toEqual([at(0), at(1), at(2)]);
  });

  it('previews a range', async () => {
    expect(
      await env.client.conversations.preview({
        deviceId: workDevice,
        startMs: at(50),
        endMs: at(70),
      }),
    ).toEqual({
      totalMinutes: 20,
      speechMinutes: 10,
      silentMinutes: 10,
    });
  });
});

describe('create, get, complete', () => {
  it('creates, completes and reads a conversation through to UPLOADED', async () => {
    const created = await env.client.conversations.create({
      deviceId: workDevice,
      startMs: at(0),
      endMs: at(10),
    });
    expect(created).toEqual({
      success: true,
      conversation: { conversationId: expect.any(String) },
    });
    const id = created.conversation!.conversationId;
    expect(env.proxy.requests[0]).toMatchObject({
      method: 'POST',
      path: '/hub/conversations/create',
      query: '',
    });

    expect((await env.client.conversations.get(workDevice, id)).status).toBe('ACTIVE');
    expect(await env.client.conversations.complete(workDevice, id)).toEqual({ success: true });
    const done = await until(
      () => env.client.conversations.get(workDevice, id),
      (c) => c.status === 'UPLOADED',
    );
    expect(done).toMatchObject({
      status: 'UPLOADED',
      transcriptState: 'READY',
      isImportable: true,
    });
    expect(done.transcriptText).toContain('Speaker 1: Line said in minute 0.');
    expect(await env.client.conversations.complete(workDevice, id)).toEqual({ success: true });
  });

  it('reports a refused create in the body, not as an error', async () => {
    const refused = await env.client.conversations.create({
      deviceId: workDevice,
      startMs: at(5),
      endMs: at(15),
    });
    expect(refused.success).toBe(false);
    expect(refused.message).toMatch(/overlaps another conversation/);
    expect(refused.conversation).toBeUndefined();
  });

  it('reports unknown conversations and devices as not_found', async () => {
    await rejection(env.client.conversations.get(workDevice, 'no-such-conversation'), 'not_found');
    await rejection(
      env.client.conversations.complete(workDevice, 'no-such-conversation'),
      'not_found',
    );
    await rejection(
      env.client.conversations.create({ deviceId: 'no-such-hub', startMs: at(0), endMs: at(1) }),
      'not_found',
    );
  });

  it("reports another organization's device as organization_mismatch", async () => {
    const other = await rejection(
      env.client.conversations.timeline(SECONDARY_DEVICE.id, { startMs: at(0), endMs: at(1) }),
      'organization_mismatch',
    );
    expect(other.status).toBe(403);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CONVERSATION_MAX_RANGE_MS,
  MINUTE_MS,
  TIMELINE_MAX_WINDOW_MS,
  type Conversation,
  type ConversationList,
  type Label,
  type Timeline,
} from '../../src/shared/api';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  problemOf,
  startService,
  type RunningService,
} from './harness';
import { until } from './poll';
import { describeRange } from '../../src/service/hub/conversations';

let svc: RunningService;
let key: string;
const device: string = DEMO_DEVICES[0].id;
const otherDevice: string = DEMO_DEVICES[1].id;
const BASE = baseMinute(3);
const at = (minute: number) => BASE + minute * MINUTE_MS;

/** Minutes 0-199 on `device`: speech in 10-39 (a consult), 60 (a lone word), lost upload in 100-119, silence elsewhere; nothing recorded 150-159. */
function seedMinutes(service: RunningService['service']) {
  const minutes = [];
  for (let i = 0; i < 200; i++) {
    if (i >= 150 && i < 160) continue;
    const speech = (i >= 10 && i < 40) || i === 60 || (i >= 100 && i < 120);
    minutes.push(hubMinute(BASE, i, speech ? 20_000 + i : 0, !(i >= 100 && i < 120)));
  }
  service.hub.insertMinutes(device, minutes);
  service.hub.insertMinutes(
    otherDevice,
    Array.from({ length: 30 }, (_, i) => hubMinute(BASE, i, 15_000)),
  );
}

beforeAll(async () => {
  svc = await startService({ processingMs: 200 });
  key = svc.credentials.primary.apiKey;
  seedMinutes(svc.service);
});
afterAll(() => svc.dispose());

const get = (path: string) => svc.call(path, { key });
const create = async (startMs: number, endMs: number, deviceId = device) => {
  const response = await svc.call('/hub/conversations/create', {
    key,
    method: 'POST',
    json: { deviceId, startMs, endMs },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as {
    success: boolean;
    conversation?: { conversationId: string };
    message?: string;
  };
};
const detail = async (conversationId: string, deviceId = device) =>
  (await (await get(`/hub/conversations/${deviceId}/${conversationId}`)).json()) as Conversation;
const complete = (conversationId: string, deviceId = device) =>
  svc.call(`/hub/conversations/${deviceId}/${conversationId}/complete`, { key, method: 'POST' });

const terminal = (c: Conversation) => ['UPLOADED', 'FILTERED', 'FAILED'].includes(c.status);

describe('describeRange (times in refusal messages)', () => {
  it('writes a range in UTC with its date, and both dates across midnight', () => {
    const day = Date.UTC(2026, 10, 23);
    expect(
      describeRange(day + 10 * 3_600_000 + 51 * MINUTE_MS, day + 11 * 3_600_000 + 8 * MINUTE_MS),
    ).toBe('10:51–11:08 UTC on 2026-11-23');
    expect(describeRange(day - 30 * MINUTE_MS, day + 40 * MINUTE_MS)).toBe(
      '23:30 UTC on 2026-11-22 to 00:40 UTC on 2026-11-23',
    );
  });
});

describe('GET /hub/conversations/timeline/{deviceId}', () => {
  it('returns the recorded minutes of [startMs, endMs), no-data minutes absent', async () => {
    const response = await get(
      `/hub/conversations/timeline/${device}?startMs=${at(145)}&endMs=${at(165)}`,
    );
    expect(response.status).toBe(200);
    const { minutes } = (await response.json()) as Timeline;
    expect(minutes.map((m) => (m.minuteStartMs - BASE) / MINUTE_MS)).toEqual([
      145, 146, 147, 148, 149, 160, 161, 162, 163, 164,
    ]);
  });

  it('describes speech with VAD fields and both transcripts', async () => {
    const { minutes } = (await (
      await get(`/hub/conversations/timeline/${device}?startMs=${at(9)}&endMs=${at(11)}`)
    ).json()) as Timeline;
    expect(minutes[0]).toEqual({
      minuteStartMs: at(9),
      vadIsSilent: true,
      vadSpeechDurationMs: 0,
      transcriptText: '',
      diarizedTranscriptText: '',
    });
    expect(minutes[1]).toMatchObject({
      vadIsSilent: false,
      vadSpeechDurationMs: 20_010,
      transcriptText: 'Line said in minute 10.',
    });
    expect(minutes[1]?.diarizedTranscriptText).toBe('Speaker 1: Line said in minute 10.');
  });

  it('allows a 6-hour window and refuses a longer one', async () => {
    expect(
      (
        await get(
          `/hub/conversations/timeline/${device}?startMs=${at(0)}&endMs=${at(0) + TIMELINE_MAX_WINDOW_MS}`,
        )
      ).status,
    ).toBe(200);
    const response = await get(
      `/hub/conversations/timeline/${device}?startMs=${at(0)}&endMs=${at(0) + TIMELINE_MAX_WINDOW_MS + 1}`,
    );
    expect(response.status).toBe(400);
    const problem = await problemOf(response);
    expect(problem.code).toBe('range_too_long');
    expect(problem.detail).toContain('360 minutes');
  });

  it('refuses an empty or reversed window and answers 404 for an unknown device', async () => {
    expect(
      (await get(`/hub/conversations/timeline/${device}?startMs=${at(5)}&endMs=${at(5)}`)).status,
    ).toBe(400);
    expect(
      (await get(`/hub/conversations/timeline/no-such-hub?startMs=${at(0)}&endMs=${at(5)}`)).status,
    ).toBe(404);
  });
});

describe('GET /hub/conversations/create/preview', () => {
  it('counts total, speech and silent minutes of the range', async () => {
    const response = await get(
      `/hub/conversations/create/preview?deviceId=${device}&startMs=${at(0)}&endMs=${at(50)}`,
    );
    expect(await response.json()).toEqual({
      totalMinutes: 50,
      speechMinutes: 30,
      silentMinutes: 20,
    });
  });

  it('counts only recorded minutes', async () => {
    const response = await get(
      `/hub/conversations/create/preview?deviceId=${device}&startMs=${at(140)}&endMs=${at(170)}`,
    );
    expect(await response.json()).toEqual({
      totalMinutes: 20,
      speechMinutes: 0,
      silentMinutes: 20,
    });
  });

  it('allows 90 minutes and refuses more', async () => {
    expect(
      (
        await get(
          `/hub/conversations/create/preview?deviceId=${device}&startMs=${at(0)}&endMs=${at(0) + CONVERSATION_MAX_RANGE_MS}`,
        )
      ).status,
    ).toBe(200);
    const response = await get(
      `/hub/conversations/create/preview?deviceId=${device}&startMs=${at(0)}&endMs=${at(0) + CONVERSATION_MAX_RANGE_MS + 1}`,
    );
    expect(response.status).toBe(400);
    expect((await problemOf(response)).code).toBe('range_too_long');
  });
});

describe('POST /hub/conversations/create', () => {
  it('reports a range over 90 minutes in the body, not as an HTTP error', async () => {
    const result = await create(at(0), at(91));
    expect(result.success).toBe(false);
    expect(result.message).toContain('at most 90 minutes');
  });

  it('reports a range with no recorded audio', async () => {
    const result = await create(at(151), at(158));
    expect(result).toMatchObject({ success: false });
    expect(result.message).toBe(
      `No audio was recorded on ${DEMO_DEVICES[0].displayName} in ${describeRange(at(151), at(158))}.`,
    );
  });

  it('reports a reversed range', async () => {
    expect((await create(at(20), at(10))).message).toContain('later than startMs');
  });

  it('creates an ACTIVE conversation, logs conversation_created, and refuses an overlapping range', async () => {
    const result = await create(at(170), at(180));
    expect(result.success).toBe(true);
    const id = result.conversation!.conversationId;
    expect(await detail(id)).toMatchObject({
      conversationId: id,
      deviceId: device,
      status: 'ACTIVE',
      speechMinuteCount: 0,
      isImportable: false,
      transcriptText: '',
      startMs: at(170),
      endMs: at(180),
      labelId: null,
    });
    const created = svc.service.events
      .since(0)
      .find((e) => e.type === 'conversation_created' && e.data.conversationId === id);
    expect(created?.data).toEqual({ conversationId: id, deviceId: device });
    const overlap = await create(at(175), at(185));
    expect(overlap.success).toBe(false);
    // Readable first: the other conversation's times with their zone, its id last, for support.
    expect(overlap.message).toBe(
      `The range overlaps another conversation on this device, ${describeRange(at(170), at(180))} (conversation ${id}).`,
    );
    expect((await create(at(180), at(185))).success).toBe(true);
    expect((await create(at(170), at(180), otherDevice)).success).toBe(false); // no audio there
  });

  it('answers 404 for an unknown device', async () => {
    const response = await svc.call('/hub/conversations/create', {
      key,
      method: 'POST',
      json: { deviceId: 'nope', startMs: at(0), endMs: at(5) },
    });
    expect(response.status).toBe(404);
  });
});

describe('complete and processing (seed §3.1)', () => {
  it('processes a consult to UPLOADED with a HubMic label, its transcript and its audio', async () => {
    const { conversation } = await create(at(8), at(42));
    const id = conversation!.conversationId;
    const response = await complete(id);
    expect(await response.json()).toEqual({ success: true });
    expect(['COMPLETED', 'PROCESSING']).toContain((await detail(id)).status);
    const done = await until(() => detail(id), terminal);
    expect(done).toMatchObject({
      status: 'UPLOADED',
      transcriptState: 'READY',
      isImportable: true,
      speechMinuteCount: 30,
    });
    expect(done.transcriptText.split('\n')).toHaveLength(30);
    expect(done.transcriptText).toContain('Speaker 1: Line said in minute 10.');

    const events = svc.service.events.since(0);
    const newLabel = events.find((e) => e.type === 'new_label');
    expect(
      events.find((e) => e.type === 'conversation_completed' && e.data.conversationId === id),
    ).toBeDefined();
    const label = (await (await get(`/labels/${newLabel!.data.labelId}`)).json()) as Label;
    // The reference's extensions: the conversation names its range and the label it became.
    expect(done).toMatchObject({ startMs: at(8), endMs: at(42), labelId: label.id });
    expect(label).toMatchObject({
      type: 'HubMic',
      fromTime: new Date(at(8)).toISOString(),
      toTime: new Date(at(42)).toISOString(),
      friendlyName: DEMO_DEVICES[0].displayName,
      deviceSerial: DEMO_DEVICES[0].serial,
    });
    expect(label.ownedPatientNotes?.[0]).toMatchObject({
      type: 'Transcript',
      content: done.transcriptText,
    });
    const audio = await get(`/labels/${label.id}/audio`);
    expect(audio.headers.get('content-type')).toBe('audio/wav');
    expect(Number(audio.headers.get('content-length'))).toBe(44 + 34 * 60 * 8000 * 2);
    await audio.body?.cancel();
  });

  it('FILTERS a range with too little speech: a normal outcome with the reason', async () => {
    const { conversation } = await create(at(55), at(65));
    const id = conversation!.conversationId;
    expect((await complete(id)).status).toBe(200);
    const done = await until(() => detail(id), terminal);
    expect(done).toMatchObject({
      status: 'FILTERED',
      isImportable: false,
      transcriptState: 'NONE',
      speechMinuteCount: 1,
    });
    expect(done.notImportableReason).toContain('too little speech');
  });

  it('FAILS a range whose audio did not finish uploading', async () => {
    const { conversation } = await create(at(98), at(122));
    const id = conversation!.conversationId;
    await complete(id);
    const done = await until(() => detail(id), terminal);
    expect(done).toMatchObject({
      status: 'FAILED',
      isImportable: false,
      transcriptState: 'FAILED',
    });
    expect(done.notImportableReason).toContain('did not finish uploading');
  });

  it('makes complete idempotent', async () => {
    const { conversation } = await create(at(125), at(130));
    const id = conversation!.conversationId;
    await complete(id);
    const first = await until(() => detail(id), terminal);
    const again = await complete(id);
    expect(await again.json()).toEqual({ success: true });
    expect(await detail(id)).toEqual(first);
    const completions = svc.service.events
      .since(0)
      .filter((e) => e.type === 'conversation_completed' && e.data.conversationId === id);
    expect(completions).toHaveLength(1);
  });

  it('answers 404 for a conversation of another device', async () => {
    const { conversation } = await create(at(131), at(133));
    expect(
      (await get(`/hub/conversations/${otherDevice}/${conversation!.conversationId}`)).status,
    ).toBe(404);
    expect((await complete(conversation!.conversationId, otherDevice)).status).toBe(404);
  });
});

describe('GET /hub/conversations (rules 1-3)', () => {
  let all: Conversation[];

  beforeAll(async () => {
    for (let i = 0; i < 7; i++) await create(at(20 + i), at(21 + i), otherDevice);
    const response = await get('/hub/conversations?pageSize=100');
    all = ((await response.json()) as ConversationList).items;
  });

  it('pages with tokens through every conversation exactly once, newest first', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const response = await get(
        `/hub/conversations?pageSize=3${token ? `&pageToken=${token}` : ''}`,
      );
      const page = (await response.json()) as ConversationList;
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((c) => c.conversationId));
      expect(page.hasMore).toBe(page.nextPageToken !== undefined);
      token = page.nextPageToken;
      pages++;
    } while (token);
    expect(seen).toEqual(all.map((c) => c.conversationId));
    expect(new Set(seen).size).toBe(seen.length);
    expect(pages).toBe(Math.ceil(all.length / 3));
  });

  it('covers every device without deviceId and combines filters', async () => {
    expect(new Set(all.map((c) => c.deviceId))).toEqual(new Set([device, otherDevice]));
    const onOther = (await (
      await get(`/hub/conversations?deviceId=${otherDevice}&pageSize=100`)
    ).json()) as ConversationList;
    expect(onOther.items).toHaveLength(7);
    const uploaded = (await (
      await get(
        `/hub/conversations?status=UPLOADED&organizationId=${svc.credentials.primary.organizationId}`,
      )
    ).json()) as ConversationList;
    expect(uploaded.items.length).toBeGreaterThan(0);
    expect(uploaded.items.every((c) => c.status === 'UPLOADED')).toBe(true);
  });

  it('answers an empty successful list when nothing matches', async () => {
    const response = await get(`/hub/conversations?deviceId=${otherDevice}&status=UPLOADED`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ items: [], hasMore: false });
  });

  it('filters by time: the conversations whose range overlaps [startMs, endMs), paged with the filter', async () => {
    const overlapping = (c: Conversation, startMs: number, endMs: number) =>
      c.startMs! < endMs && c.endMs! > startMs;
    const [startMs, endMs] = [at(22), at(25)];
    const expected = all.filter((c) => overlapping(c, startMs, endMs)).map((c) => c.conversationId);
    expect(expected.length).toBeGreaterThan(2);
    expect(all.some((c) => !overlapping(c, startMs, endMs))).toBe(true);
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = (await (
        await get(
          `/hub/conversations?startMs=${startMs}&endMs=${endMs}&pageSize=2${token ? `&pageToken=${token}` : ''}`,
        )
      ).json()) as ConversationList;
      seen.push(...page.items.map((c) => c.conversationId));
      token = page.nextPageToken;
    } while (token);
    expect(seen).toEqual(expected);
    // Either bound alone; a token is bound to its filter.
    const after = (await (
      await get(`/hub/conversations?startMs=${at(26)}&pageSize=100`)
    ).json()) as ConversationList;
    expect(after.items.every((c) => c.endMs! > at(26))).toBe(true);
    const first = (await (
      await get(`/hub/conversations?startMs=${startMs}&endMs=${endMs}&pageSize=1`)
    ).json()) as ConversationList;
    expect(
      (await get(`/hub/conversations?pageSize=1&pageToken=${first.nextPageToken}`)).status,
    ).toBe(400);
    const reversed = await get(`/hub/conversations?startMs=${endMs}&endMs=${startMs}`);
    expect(reversed.status).toBe(400);
    expect((await problemOf(reversed)).detail).toContain('"endMs" must be later than "startMs"');
  });

  it('refuses a forged token and a token used with other filters', async () => {
    expect((await get('/hub/conversations?pageToken=garbage')).status).toBe(400);
    const first = (await (await get('/hub/conversations?pageSize=1')).json()) as ConversationList;
    const response = await get(
      `/hub/conversations?pageSize=1&status=ACTIVE&pageToken=${first.nextPageToken}`,
    );
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toContain('other filters');
  });
});

describe('a service sending exactly the seed fields (conversationRanges: false)', () => {
  let seedOnly: RunningService;
  beforeAll(async () => {
    seedOnly = await startService({ processingMs: 200, conversationRanges: false });
    seedMinutes(seedOnly.service);
  });
  afterAll(() => seedOnly.dispose());

  it('sends no range or label and knows no time filter', async () => {
    const key = seedOnly.credentials.primary.apiKey;
    const created = (await (
      await seedOnly.call('/hub/conversations/create', {
        key,
        method: 'POST',
        json: { deviceId: device, startMs: at(10), endMs: at(20) },
      })
    ).json()) as { conversation: { conversationId: string } };
    const id = created.conversation.conversationId;
    const shown = (await (
      await seedOnly.call(`/hub/conversations/${device}/${id}`, { key })
    ).json()) as Conversation;
    expect(Object.keys(shown).sort()).toEqual(
      [
        'conversationId',
        'deviceId',
        'isImportable',
        'notImportableReason',
        'speechMinuteCount',
        'status',
        'transcriptState',
        'transcriptText',
      ].sort(),
    );
    const listed = (await (
      await seedOnly.call('/hub/conversations', { key })
    ).json()) as ConversationList;
    expect(listed.items[0]).toEqual(shown);
    const filtered = await seedOnly.call(`/hub/conversations?startMs=${at(0)}`, { key });
    expect(filtered.status).toBe(400);
    expect((await problemOf(filtered)).detail).toBe(
      'The query parameter "startMs" is not a known property.',
    );
  });
});

describe('restart', () => {
  it('finishes processing that was under way when the service stopped', async () => {
    const slow = await startService({ processingMs: 60_000 });
    slow.service.hub.insertMinutes(
      device,
      Array.from({ length: 10 }, (_, i) => hubMinute(BASE, i, 30_000)),
    );
    const response = await slow.call('/hub/conversations/create', {
      key: slow.credentials.primary.apiKey,
      method: 'POST',
      json: { deviceId: device, startMs: at(0), endMs: at(10) },
    });
    const id = ((await response.json()) as { conversation: { conversationId: string } })
      .conversation.conversationId;
    await slow.call(`/hub/conversations/${device}/${id}/complete`, {
      key: slow.credentials.primary.apiKey,
      method: 'POST',
    });
    await slow.close();

    const restarted = await (async () => {
      const { createService } = await import('../../src/service/app');
      // Restart as if 61 s had passed: the processing deadline is behind us.
      const service = createService({
        dataDir: slow.dataDir,
        processingMs: 60_000,
        now: () => Date.now() + 61_000,
      });
      return service;
    })();
    try {
      await until(
        async () => restarted.hub.conversation(id)!.status,
        (status) => status === 'UPLOADED',
        5000,
      );
      expect(restarted.hub.conversation(id)!.status).toBe('UPLOADED');
      expect(restarted.hub.conversation(id)!.label_id).not.toBeNull();
    } finally {
      await restarted.close();
    }
  });
});

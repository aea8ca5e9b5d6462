import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, type CreateConversationResponse, type EventType } from '../../src/shared/api';
import { DEMO_DEVICES, baseMinute, hubMinute, startService, type RunningService } from './harness';
import { until } from './poll';

let svc: RunningService;
const BASE = baseMinute(2);
const device = DEMO_DEVICES[0].id;

beforeAll(async () => {
  svc = await startService({ processingMs: 50 });
  svc.service.hub.insertMinutes(
    device,
    Array.from({ length: 10 }, (_, i) => hubMinute(BASE, i, 25_000)),
  );
});
afterAll(() => svc.dispose());

const types = () => svc.service.events.since(0).map((e) => e.type);
/** Resolves once `count` events of `type` are logged; fails after 5 s. */
const waitFor = (type: EventType, count: number) =>
  until(
    () => types().filter((t) => t === type).length,
    (logged) => logged >= count,
    5000,
  );

describe('the durable event log (seed §6.1)', () => {
  it('records every kind of label and conversation event with evt_ ids, in order, durably', async () => {
    const key = svc.credentials.primary.apiKey;
    const orgId = svc.credentials.primary.organizationId;
    const created = (await (
      await svc.call('/hub/conversations/create', {
        key,
        method: 'POST',
        json: { deviceId: device, startMs: BASE, endMs: BASE + 10 * MINUTE_MS },
      })
    ).json()) as CreateConversationResponse;
    const conversationId = created.conversation!.conversationId;
    await svc.call(`/hub/conversations/${device}/${conversationId}/complete`, {
      key,
      method: 'POST',
    });
    await waitFor('conversation_completed', 1);

    const newLabel = svc.service.events.since(0).find((e) => e.type === 'new_label')!;
    const labelId = newLabel.data.labelId as string;
    const patientId = svc.service.labels.createPatient(orgId, 'Maple', 'dog');
    await svc.call(`/labels/${labelId}/assign`, { key, method: 'POST', json: { patientId } });
    svc.service.deleteLabel(labelId);

    const events = svc.service.events.since(0);
    expect(events.map((e) => e.type)).toEqual([
      'conversation_created',
      'new_label',
      'conversation_completed',
      'label_updated',
      'label_deleted',
    ]);
    expect(events.map((e) => e.data)).toEqual([
      { conversationId, deviceId: device },
      { labelId },
      { conversationId, deviceId: device },
      { labelId },
      { labelId },
    ]);
    for (const event of events) {
      expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(event.organizationId).toBe(orgId);
      expect(Date.parse(event.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    }
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    expect((await svc.call(`/labels/${labelId}`, { key })).status).toBe(404);

    const restarted = await svc.restart();
    svc = restarted;
    expect(svc.service.events.since(0)).toEqual(events);
    expect(svc.service.events.since(events[2]!.seq).map((e) => e.type)).toEqual([
      'label_updated',
      'label_deleted',
    ]);
  });

  it('writes no event for a refused change', async () => {
    const before = types().length;
    const key = svc.credentials.primary.apiKey;
    await svc.call('/hub/conversations/create', {
      key,
      method: 'POST',
      json: { deviceId: device, startMs: BASE, endMs: BASE + 200 * MINUTE_MS },
    });
    await svc.call(`/labels/00000000-0000-4000-8000-000000000000/assign`, {
      key,
      method: 'POST',
      json: { patientId: 'x' },
    });
    expect(types()).toHaveLength(before);
  });
});

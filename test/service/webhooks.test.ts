import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DELIVERIES_RETURNED,
  WEBHOOK_DISABLE_AFTER_FAILURES,
  WEBHOOKS_PER_ORGANIZATION,
  type CreatedWebhook,
  type Delivery,
  type TaskBoard,
  type Webhook,
  type WebhookTestResponse,
} from '../../src/shared/api';
import { outcomeOf } from '../../src/service/webhooks/dispatcher';
import { verifySignature } from '../../src/service/webhooks/signature';
import { problemOf, startService, type RunningService } from './harness';
import { until } from './poll';
import { startReceiver, type Answer, type Receiver } from './receiver';

const BACKOFF_MS = [50, 100, 150, 200, 250];
const TIMEOUT_MS = 300;

let svc: RunningService;
let key: string;
let orgId: string;
let boardId: string;
const receivers: Receiver[] = [];

beforeAll(async () => {
  svc = await startService({ webhookBackoffMs: BACKOFF_MS, webhookTimeoutMs: TIMEOUT_MS });
  key = svc.credentials.primary.apiKey;
  orgId = svc.credentials.primary.organizationId;
  const board = await svc.call('/task-boards', { key, method: 'POST', json: { name: 'Hooks' } });
  boardId = ((await board.json()) as TaskBoard).id;
});
afterAll(() => svc.dispose());
// Each test's webhooks go with it, so no test receives another's events.
afterEach(async () => {
  for (const webhook of svc.service.webhookStore.webhooks(orgId)) {
    svc.service.webhookStore.delete(webhook.id);
  }
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const hooks = (org = orgId) => `/organizations/${org}/webhooks`;

async function receiver(answer?: Answer): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

async function createWebhook(url: string, extra: object = {}, apiKey = key, org = orgId) {
  const response = await svc.call(hooks(org), {
    key: apiKey,
    method: 'POST',
    json: { url, description: 'test receiver', ...extra },
  });
  expect(response.status).toBe(201);
  return (await response.json()) as CreatedWebhook;
}

/** Logs `count` task_created events (one bulk request). */
async function createTasks(count: number): Promise<string[]> {
  const items = Array.from({ length: count }, (_, i) => ({ title: `Task ${i}` }));
  const response = await svc.call(`/task-boards/${boardId}/tasks/bulk`, {
    key,
    method: 'POST',
    json: { items },
  });
  return ((await response.json()) as { items: { id: string }[] }).items.map((t) => t.id);
}

const deliveries = async (webhookId: string) =>
  (await (await svc.call(`${hooks()}/${webhookId}/deliveries`, { key })).json()) as Delivery[];

/**
 * Resolves once the service has nothing left to send the webhook (every event logged so far
 * fanned out, nothing queued or under way); fails after 10 s. After it, no delivery arrives until
 * a new event is logged: what a test that says "nothing more" waits for.
 */
const settled = (webhookId: string) =>
  until(
    () => svc.service.dispatcher.settled(webhookId),
    (done) => done,
  );

const webhookNow = async (webhookId: string) =>
  ((await (await svc.call(hooks(), { key })).json()) as Webhook[]).find((w) => w.id === webhookId);

describe('webhook management (seed §2.8, §4.6)', () => {
  it('creates a webhook whose secret (whsec_ + 32 random bytes) only the creation returns', async () => {
    const created = await createWebhook('http://127.0.0.1:9/hook', {
      eventTypes: ['task_created'],
    });
    expect(created).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      description: 'test receiver',
      eventTypes: ['task_created'],
      isActive: true,
      consecutiveFailures: 0,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]+$/);
    expect(Buffer.from(created.secret.slice(6), 'base64url').length).toBeGreaterThanOrEqual(24);
    const listed = (await (await svc.call(hooks(), { key })).json()) as Webhook[];
    const { secret: _, ...shown } = created;
    expect(listed).toEqual([shown]);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    const other = await createWebhook('http://127.0.0.1:9/other');
    expect(other.eventTypes).toEqual([]);
    expect(other.secret).not.toBe(created.secret);
  });

  it('refuses the 11th webhook of an organization, and takes one again after a delete', async () => {
    const { apiKey, organizationId } = svc.credentials.noHub;
    const ids: string[] = [];
    for (let i = 0; i < WEBHOOKS_PER_ORGANIZATION; i++) {
      ids.push((await createWebhook(`http://127.0.0.1:9/${i}`, {}, apiKey, organizationId)).id);
    }
    const eleventh = await svc.call(hooks(organizationId), {
      key: apiKey,
      method: 'POST',
      json: { url: 'http://127.0.0.1:9/11', description: 'one too many' },
    });
    expect(eleventh.status).toBe(409);
    const problem = await problemOf(eleventh);
    expect(problem.code).toBe('limit_reached');
    expect(problem.detail).toContain('10 webhooks');
    const deleted = await svc.call(`${hooks(organizationId)}/${ids[0]}`, {
      key: apiKey,
      method: 'DELETE',
    });
    expect(deleted.status).toBe(204);
    await createWebhook('http://127.0.0.1:9/again', {}, apiKey, organizationId);
  });

  it('validates the body: an http(s) url, a description, known event types', async () => {
    for (const body of [
      { url: 'ftp://example.com/x', description: 'd' },
      { url: 'not a url', description: 'd' },
      { url: 'http://127.0.0.1:9/', description: 'd', eventTypes: ['lunch_served'] },
      { url: 'http://127.0.0.1:9/' },
    ]) {
      const response = await svc.call(hooks(), { key, method: 'POST', json: body });
      expect(response.status).toBe(400);
    }
  });

  it('needs the webhooks scope, an owner or admin, and the bound organization', async () => {
    const { identity } = svc.service;
    const member = identity.userByEmail('priya.nair@riverside-vets.example')!;
    const memberKey = identity.createApiKey({
      userId: member.id,
      organizationId: orgId,
      name: 'member',
    }).key;
    const byMember = await svc.call(hooks(), { key: memberKey });
    expect(byMember.status).toBe(403);
    expect((await problemOf(byMember)).code).toBe('role_missing');
    const unscoped = await svc.call(hooks(), { key: svc.credentials.labelsOnly.apiKey });
    expect((await problemOf(unscoped)).code).toBe('scope_missing');
    const foreign = await svc.call(hooks(svc.credentials.secondary.organizationId), { key });
    expect((await problemOf(foreign)).code).toBe('organization_mismatch');
    const unknown = await svc.call(`${hooks()}/00000000-0000-4000-8000-000000000000/deliveries`, {
      key,
    });
    expect(unknown.status).toBe(404);
  });
});

describe('delivery (seed §6.2)', () => {
  it('test sends a signed ping with an evt_test_ id and data {test: true}', async () => {
    const target = await receiver();
    const webhook = await createWebhook(target.url, { eventTypes: ['task_created'] });
    const response = await svc.call(`${hooks()}/${webhook.id}/test`, { key, method: 'POST' });
    expect(response.status).toBe(200);
    const result = (await response.json()) as WebhookTestResponse;
    expect(result.success).toBe(true);
    expect(result.eventId).toMatch(/^evt_test_[0-9a-f]{24}$/);

    const [delivery] = target.received;
    expect(delivery!.event).toEqual({
      id: result.eventId,
      type: 'ping',
      organizationId: orgId,
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { test: true },
    });
    expect(Object.keys(JSON.parse(delivery!.body) as object)).toEqual([
      'id',
      'type',
      'organizationId',
      'timestamp',
      'data',
    ]);
    expect(delivery!.headers['content-type']).toBe('application/json');
    expect(delivery!.headers['x-service-event']).toBe('ping');
    expect(delivery!.headers['x-service-delivery']).toBe(result.eventId);
    const signature = delivery!.headers['x-service-signature'] as string;
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(webhook.secret, delivery!.body, signature)).toBe(true);
    expect(verifySignature(`${webhook.secret}x`, delivery!.body, signature)).toBe(false);
    expect(verifySignature(webhook.secret, `${delivery!.body} `, signature)).toBe(false);

    const [logged] = await deliveries(webhook.id);
    expect(logged).toMatchObject({
      eventId: result.eventId,
      eventType: 'ping',
      attemptNumber: 1,
      httpStatusCode: 204,
      success: true,
      errorMessage: null,
    });
  });

  it('delivers events of every kind from the event log, including part 1 label events', async () => {
    const target = await receiver();
    await createWebhook(target.url);
    const { labels } = svc.service;
    const labelId = labels.create({
      organizationId: orgId,
      type: 'DictationAudio',
      fromMs: Date.now(),
      toMs: Date.now() + 60_000,
      friendlyName: 'Phone',
      deviceSerial: 'X',
    });
    const patientId = labels.createPatient(orgId, 'Maple', 'dog');
    await svc.call(`/labels/${labelId}/assign`, { key, method: 'POST', json: { patientId } });
    svc.service.deleteLabel(labelId);
    const [taskId] = await createTasks(1);

    const received = await target.waitFor(3);
    const logged = svc.service.events.since(0).slice(-3);
    expect(received.map((d) => d.event).sort((a, b) => a.id.localeCompare(b.id))).toEqual(
      logged.map(({ seq: _, ...event }) => event).sort((a, b) => a.id.localeCompare(b.id)),
    );
    expect(received.map((d) => d.event.type).sort()).toEqual([
      'label_deleted',
      'label_updated',
      'task_created',
    ]);
    expect(received.find((d) => d.event.type === 'task_created')?.event.data).toEqual({
      taskId,
      boardId,
    });
  });

  it('sends only subscribed event types, and nothing logged before the webhook existed', async () => {
    await createTasks(1); // before: never delivered
    const target = await receiver();
    const webhook = await createWebhook(target.url, { eventTypes: ['task_comment_added'] });
    const [taskId] = await createTasks(1);
    await svc.call(`/tasks/${taskId}/comments`, { key, method: 'POST', json: { body: 'Hi' } });
    await settled(webhook.id);
    expect(target.received.map((d) => d.event.type)).toEqual(['task_comment_added']);
  });

  it('retries a failed delivery with the same event id: attemptNumber 2 after one failure', async () => {
    const target = await receiver((_, index) => (index === 0 ? 500 : 204));
    const webhook = await createWebhook(target.url);
    await createTasks(1);
    const [first, second] = await target.waitFor(2);
    expect(second!.event.id).toBe(first!.event.id);
    expect(second!.body).toBe(first!.body);
    expect(second!.headers['x-service-delivery']).toBe(first!.event.id);

    const log = await until(
      () => deliveries(webhook.id),
      (d) => d.length === 2,
    );
    expect(log.map((d) => [d.eventId, d.attemptNumber, d.httpStatusCode, d.success])).toEqual([
      [first!.event.id, 2, 204, true],
      [first!.event.id, 1, 500, false],
    ]);
    expect(log[1]!.errorMessage).toContain('HTTP 500');
    expect(log[1]!.errorMessage).toContain('Will retry');
    const gapMs = Date.parse(log[0]!.createdAt) - Date.parse(log[1]!.createdAt);
    expect(gapMs).toBeGreaterThanOrEqual(BACKOFF_MS[0]! * 0.9 - 1);
    expect((await webhookNow(webhook.id))?.consecutiveFailures).toBe(0);
  });

  it('gives up after 5 retries (6 attempts) on 5xx, logging every attempt', async () => {
    const target = await receiver(() => 503);
    const webhook = await createWebhook(target.url);
    await createTasks(1);
    await settled(webhook.id);
    expect(target.received).toHaveLength(6);
    const log = await deliveries(webhook.id);
    expect(log.map((d) => d.attemptNumber)).toEqual([6, 5, 4, 3, 2, 1]);
    expect(log[0]!.errorMessage).toContain('No retries left');
    expect((await webhookNow(webhook.id))?.consecutiveFailures).toBe(6);
  });

  it('retries 429 and a receiver that does not answer within the time-out', async () => {
    const throttled = await receiver((_, index) => (index === 0 ? 429 : 204));
    const slow = await receiver((_, index) => (index === 0 ? 'hang' : 204));
    const throttledHook = await createWebhook(throttled.url);
    const slowHook = await createWebhook(slow.url);
    await createTasks(1);
    await throttled.waitFor(2);
    await slow.waitFor(2, 3000);
    const throttledLog = await until(
      () => deliveries(throttledHook.id),
      (d) => d.length === 2,
    );
    expect(throttledLog.map((d) => [d.httpStatusCode, d.attemptNumber])).toEqual([
      [204, 2],
      [429, 1],
    ]);
    const slowLog = await until(
      () => deliveries(slowHook.id),
      (d) => d.length === 2,
    );
    expect(slowLog[1]).toMatchObject({
      attemptNumber: 1,
      httpStatusCode: 0,
      success: false,
      errorMessage: `No response within ${TIMEOUT_MS} ms. Will retry.`,
    });
    expect(slowLog[1]!.responseTimeMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 10);
    expect(slowLog[0]).toMatchObject({ attemptNumber: 2, success: true });
  });

  it('fails a 3xx (not followed) or another 4xx at once, without retry', async () => {
    const moved = await receiver(() => 302);
    const gone = await receiver(() => 410);
    const movedHook = await createWebhook(moved.url);
    const goneHook = await createWebhook(gone.url);
    await createTasks(1);
    await Promise.all([settled(movedHook.id), settled(goneHook.id)]);
    expect([moved.received.length, gone.received.length]).toEqual([1, 1]);
    for (const [webhook, status] of [
      [movedHook, 302],
      [goneHook, 410],
    ] as const) {
      const [only, ...rest] = await deliveries(webhook.id);
      expect(rest).toEqual([]);
      expect(only).toMatchObject({ httpStatusCode: status, success: false, attemptNumber: 1 });
      expect(only!.errorMessage).toContain('Not retried');
    }
  });

  it('logs a connection error with status 0', async () => {
    const closed = await startReceiver();
    await closed.close();
    const webhook = await createWebhook(closed.url);
    await createTasks(1);
    const [attempt] = await until(
      () => deliveries(webhook.id),
      (d) => d.length > 0,
    );
    expect(attempt).toMatchObject({ httpStatusCode: 0, success: false, attemptNumber: 1 });
    expect(attempt!.errorMessage).toContain('ECONNREFUSED');
  });

  it(`disables a webhook after ${WEBHOOK_DISABLE_AFTER_FAILURES} failed attempts in a row; enable re-activates it`, async () => {
    const target = await receiver(() => 404);
    const webhook = await createWebhook(target.url);
    await createTasks(WEBHOOK_DISABLE_AFTER_FAILURES + 5);
    const disabled = await until(
      () => webhookNow(webhook.id),
      (w) => w?.isActive === false,
    );
    expect(disabled).toMatchObject({
      isActive: false,
      consecutiveFailures: WEBHOOK_DISABLE_AFTER_FAILURES,
    });
    // Attempts already under way when it was disabled still arrive (and are logged); no more.
    await settled(webhook.id);
    const sent = target.received.length;
    expect(sent).toBeGreaterThanOrEqual(WEBHOOK_DISABLE_AFTER_FAILURES);
    expect(await deliveries(webhook.id)).toHaveLength(sent);
    expect(svc.service.db.prepare('SELECT count(*) AS n FROM webhook_queue').get()).toEqual({
      n: 0,
    });

    await createTasks(1); // while disabled: not queued, not delivered
    const test = await svc.call(`${hooks()}/${webhook.id}/test`, { key, method: 'POST' });
    expect(test.status).toBe(409);
    expect((await problemOf(test)).detail).toContain('enable');

    target.answer = () => 204;
    const enabled = await svc.call(`${hooks()}/${webhook.id}/enable`, { key, method: 'POST' });
    expect(enabled.status).toBe(200);
    expect(await enabled.json()).toMatchObject({ isActive: true, consecutiveFailures: 0 });
    const [taskId] = await createTasks(1);
    await settled(webhook.id);
    // Only the event logged after it was enabled: none of those logged while it was disabled.
    expect(target.received.slice(sent).map((d) => d.event.data.taskId)).toEqual([taskId]);
  });

  it(`keeps the last ${DELIVERIES_RETURNED} attempts, newest first: the oldest go`, async () => {
    const target = await receiver();
    const webhook = await createWebhook(target.url);
    // The oldest: five events, every attempt logged before the next events are.
    await createTasks(5);
    await settled(webhook.id);
    const oldest = new Set(target.received.map((d) => d.event.id));
    expect(oldest.size).toBe(5);
    // Then as many as the log keeps (on a busy machine some only on a retry after a 300 ms
    // time-out: more attempts), and last one more, the newest.
    await createTasks(DELIVERIES_RETURNED);
    await settled(webhook.id);
    const [newestTask] = await createTasks(1);
    await settled(webhook.id);
    const newest = target.received.find((d) => d.event.data.taskId === newestTask)!.event.id;

    const log = await deliveries(webhook.id);
    expect(log).toHaveLength(DELIVERIES_RETURNED);
    expect(log[0]).toMatchObject({ eventId: newest, success: true });
    expect(log.filter((d) => oldest.has(d.eventId))).toEqual([]);
    const stored = svc.service.db
      .prepare('SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ?')
      .get(webhook.id);
    expect(stored).toEqual({ n: DELIVERIES_RETURNED });
    const times = log.map((d) => Date.parse(d.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('stops delivering to a deleted webhook', async () => {
    const target = await receiver();
    const webhook = await createWebhook(target.url);
    const deleted = await svc.call(`${hooks()}/${webhook.id}`, { key, method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await svc.call(`${hooks()}/${webhook.id}`, { key, method: 'DELETE' })).status).toBe(
      404,
    );
    await createTasks(1);
    await settled(webhook.id);
    expect(target.received).toHaveLength(0);
  });

  it('classifies answers: 2xx success; no answer, 408, 429, 5xx retried; 3xx and other 4xx final', () => {
    expect([200, 201, 204, 299].map(outcomeOf)).toEqual(Array(4).fill('success'));
    expect([0, 408, 429, 500, 503].map(outcomeOf)).toEqual(Array(5).fill('retry'));
    expect([301, 302, 304, 400, 401, 404, 410].map(outcomeOf)).toEqual(Array(7).fill('final'));
  });
});

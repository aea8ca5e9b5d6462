import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_FIELDS,
  DEFAULT_STATUSES,
  WEBHOOKS_PER_ORGANIZATION,
  type Delivery,
} from '../../../src/shared/api';
import { rejection, useProxiedService } from './helpers';

const env = useProxiedService();
let orgId: string;
beforeAll(() => {
  orgId = env.svc.credentials.primary.organizationId;
});

describe('task boards and tasks (seed §4.4)', () => {
  it('creates a board from the default template and reads it back', async () => {
    const board = await env.client.taskBoards.create({ name: 'Follow-ups' });
    expect(board.statuses).toEqual(DEFAULT_STATUSES);
    expect(board.fields).toEqual(DEFAULT_FIELDS);
    expect(await env.client.taskBoards.get(board.id)).toEqual(board);
    expect(env.proxy.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /task-boards',
      `GET /task-boards/${board.id}`,
    ]);
  });

  it('bulk-creates, lists by category, pages, patches and comments on tasks', async () => {
    const board = await env.client.taskBoards.create({ name: 'Visit follow-ups' });
    const created = await env.client.tasks.bulkCreate(board.id, [
      { title: 'Call owner', groupKey: 'visit-1', fields: { patient: 'Maple', doctor: 'Dr Ames' } },
      { title: 'Send invoice', groupKey: 'visit-1', linkUrl: 'https://clinic.example/visit/1' },
      { title: 'Book recheck', groupKey: 'visit-2' },
    ]);
    expect(created.map((task) => task.title)).toEqual([
      'Call owner',
      'Send invoice',
      'Book recheck',
    ]);
    expect(created[0]).toMatchObject({
      boardId: board.id,
      statusId: 'not_addressed',
      completedAtIso: null,
    });

    const [first] = created;
    const done = await env.client.tasks.patch(first!.id, {
      statusId: 'completed',
      fields: { patient: null, initials: 'JA' },
      description: 'Owner called back',
      assignee: null,
    });
    expect(done.fields).toEqual({ doctor: 'Dr Ames', initials: 'JA' });
    expect(done.description).toBe('Owner called back');
    expect(Date.parse(done.completedAtIso ?? '')).not.toBeNaN();

    const open = await env.client.tasks.list(board.id, { category: 'open' });
    expect(open.total).toBe(2);
    expect(env.proxy.requests.at(-1)?.query).toBe('category=open');

    const paged: string[] = [];
    for await (const page of env.client.tasks.pages(board.id, { limit: 2 })) {
      paged.push(...page.items.map((task) => task.id));
    }
    expect(paged.sort()).toEqual(created.map((task) => task.id).sort());

    const comment = await env.client.tasks.comment(first!.id, 'Left a voicemail first.');
    expect(comment).toMatchObject({ taskId: first!.id, body: 'Left a voicemail first.' });
  });

  it('refuses a bulk creation with one bad item as a whole, naming it', async () => {
    const board = await env.client.taskBoards.create({ name: 'Strict' });
    const error = await rejection(
      env.client.tasks.bulkCreate(board.id, [
        { title: 'fine' },
        { title: 'bad', statusId: 'nope' },
      ]),
      'bad_request',
    );
    expect(error.detail).toContain('items.1.statusId');
    expect((await env.client.tasks.list(board.id)).total).toBe(0);
  });

  it('409 when a used status is removed, carrying the message; migrateTo resolves it', async () => {
    const board = await env.client.taskBoards.create({ name: 'Migrations' });
    await env.client.tasks.bulkCreate(board.id, [
      { title: 'in progress', statusId: 'in_progress' },
    ]);
    const statuses = board.statuses.filter((status) => status.id !== 'in_progress');
    const conflict = await rejection(
      env.client.taskBoards.patch(board.id, { statuses }),
      'conflict',
    );
    expect(conflict.status).toBe(409);
    expect(conflict.detail).toContain('in_progress');
    expect(conflict.message).toBe(
      'The change conflicts with the data as it is now, so it was not saved.',
    );

    const patched = await env.client.taskBoards.patch(
      board.id,
      { statuses },
      { migrateTo: 'not_addressed' },
    );
    expect(patched.statuses.map((status) => status.id)).not.toContain('in_progress');
    expect(env.proxy.requests.at(-1)?.query).toBe('migrateTo=not_addressed');
  });

  it('409 when fields would invalidate stored values; dropInvalidFieldValues=true drops them', async () => {
    const board = await env.client.taskBoards.create({ name: 'Fields' });
    await env.client.tasks.bulkCreate(board.id, [{ title: 't', fields: { doctor: 'Dr Ames' } }]);
    const fields = board.fields.filter((field) => field.key !== 'doctor');
    await rejection(env.client.taskBoards.patch(board.id, { fields }), 'conflict');
    await env.client.taskBoards.patch(board.id, { fields }, { dropInvalidFieldValues: true });
    expect(env.proxy.requests.at(-1)?.query).toBe('dropInvalidFieldValues=true');
    expect((await env.client.tasks.list(board.id)).items[0]?.fields).toEqual({});
  });
});

describe('API keys (seed §4.5)', () => {
  it('lists the keys without the key itself', async () => {
    const keys = await env.client.apiKeys.list();
    expect(keys.length).toBeGreaterThan(1);
    expect(keys.some((key) => key.isRevoked)).toBe(true);
    expect(JSON.stringify(keys)).not.toContain(env.svc.credentials.primary.apiKey);
    expect(keys[0]).toEqual({
      id: expect.any(String),
      name: expect.any(String),
      keyPrefix: expect.stringMatching(/\.\.\.$/),
      organizationId: orgId,
      allowedFeatures: expect.any(Array),
      createdAt: expect.any(String),
      expiresAt: keys[0]!.expiresAt,
      lastUsedAt: keys[0]!.lastUsedAt,
      isRevoked: expect.any(Boolean),
    });
  });

  it('revokes a key (204), which is refused on its next use', async () => {
    const { identity } = env.svc.service;
    const { row, key } = identity.createApiKey({
      userId: identity.userByEmail(env.svc.credentials.admin.email)!.id,
      organizationId: orgId,
      name: 'to revoke',
    });
    await env.client.apiKeys.revoke(row.id);
    expect(env.proxy.requests[0]).toMatchObject({ method: 'DELETE', path: `/api-keys/${row.id}` });
    const revoked = env.connect({ apiKey: key, baseUrl: env.svc.baseUrl }).client;
    await rejection(revoked.identity.me(), 'key_revoked');
  });

  it('is refused creation with an API key: only a signed-in user may create keys', async () => {
    const error = await rejection(
      env.client.apiKeys.create({ name: 'new', organizationId: orgId }),
      'scope_missing',
    );
    expect(error.status).toBe(403);
  });

  it('reads a creation answer, the only one holding the full key', async () => {
    const answer = {
      id: '7f0c9d2e-4a57-4c4b-9a43-2b1a3f7f1d10',
      name: 'Reception PC',
      keyPrefix: 'csk_AbCdEfGh...',
      key: 'csk_AbCdEfGh-the-rest-of-a-new-key',
      organizationId: orgId,
      createdAt: 1_780_000_000_000,
      expiresAt: null,
    };
    env.proxy.inject({
      kind: 'status',
      status: 201,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(answer),
    });
    const created = await env.client.apiKeys.create({
      name: 'Reception PC',
      organizationId: orgId,
    });
    expect(created).toEqual({
      ...answer,
      allowedFeatures: [],
      createdAt: new Date(answer.createdAt).toISOString(),
    });
  });
});

describe('webhooks (seed §4.6)', () => {
  let receiver: Server;
  let receiverUrl: string;
  const received: IncomingHttpHeaders[] = [];

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      received.push(request.headers);
      request.resume().on('end', () => response.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('creates (secret once), lists, tests, reads deliveries, enables and deletes', async () => {
    const webhook = await env.client.webhooks.create(orgId, {
      url: receiverUrl,
      description: 'Front desk',
      eventTypes: ['ping', 'new_label'],
    });
    expect(webhook).toMatchObject({ url: receiverUrl, isActive: true, consecutiveFailures: 0 });
    expect(webhook.secret).toMatch(/^whsec_/);

    const listed = await env.client.webhooks.list(orgId);
    expect(listed.map((hook) => hook.id)).toContain(webhook.id);
    expect(listed.find((hook) => hook.id === webhook.id)).not.toHaveProperty('secret');

    const test = await env.client.webhooks.test(orgId, webhook.id);
    expect(test.eventId).toMatch(/^evt_test_/);
    let deliveries: Delivery[] = [];
    for (let tries = 0; tries < 200 && deliveries.length === 0; tries++) {
      deliveries = await env.client.webhooks.deliveries(orgId, webhook.id);
      if (deliveries.length === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(deliveries[0]).toMatchObject({
      eventId: test.eventId,
      eventType: 'ping',
      attemptNumber: 1,
      success: true,
    });
    expect(received.some((headers) => headers['x-service-event'] === 'ping')).toBe(true);

    await env.client.webhooks.enable(orgId, webhook.id);
    await env.client.webhooks.delete(orgId, webhook.id);
    expect((await env.client.webhooks.list(orgId)).map((hook) => hook.id)).not.toContain(
      webhook.id,
    );
    await rejection(env.client.webhooks.delete(orgId, webhook.id), 'not_found');
    const paths = env.proxy.requests.map(
      (r) => `${r.method} ${r.path.replace(webhook.id, '{id}')}`,
    );
    expect(paths).toEqual(
      expect.arrayContaining([
        `POST /organizations/${orgId}/webhooks`,
        `POST /organizations/${orgId}/webhooks/{id}/test`,
        `POST /organizations/${orgId}/webhooks/{id}/enable`,
        `GET /organizations/${orgId}/webhooks/{id}/deliveries`,
        `DELETE /organizations/${orgId}/webhooks/{id}`,
      ]),
    );
  });

  it('refuses the webhook past the limit as a conflict, with the service message', async () => {
    const made = await env.client.webhooks.list(orgId);
    for (let i = made.length; i < WEBHOOKS_PER_ORGANIZATION; i++) {
      await env.client.webhooks.create(orgId, { url: receiverUrl, description: `hook ${i}` });
    }
    const error = await rejection(
      env.client.webhooks.create(orgId, { url: receiverUrl, description: 'one too many' }),
      'conflict',
    );
    expect(error.detail).toContain(String(WEBHOOKS_PER_ORGANIZATION));
  });
});

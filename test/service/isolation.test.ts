import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/shared/api';
import {
  SECONDARY_DEVICE,
  baseMinute,
  hubMinute,
  problemOf,
  startService,
  type RunningService,
} from './harness';

/**
 * Organization isolation: a key of one organization gets 403 on every path that names another
 * organization or one of its resources. The table must cover every route the service has.
 */
let svc: RunningService;
const other = {} as {
  orgId: string;
  labelId: string;
  deviceId: string;
  conversationId: string;
  boardId: string;
  taskId: string;
  webhookId: string;
  keyId: string;
};

beforeAll(async () => {
  svc = await startService();
  const { secondary } = svc.credentials;
  const key = secondary.apiKey;
  other.orgId = secondary.organizationId;
  other.deviceId = SECONDARY_DEVICE.id;
  other.labelId = svc.service.labels.create({
    organizationId: other.orgId,
    type: 'DictationAudio',
    fromMs: Date.now(),
    toMs: Date.now() + MINUTE_MS,
    friendlyName: 'Phone',
    deviceSerial: 'X',
  });
  const base = baseMinute(1);
  svc.service.hub.insertMinutes(other.deviceId, [
    hubMinute(base, 0, 20_000),
    hubMinute(base, 1, 20_000),
  ]);
  const created = svc.service.conversations.create(
    svc.service.hub.device(other.deviceId)!,
    base,
    base + 2 * MINUTE_MS,
  );
  other.conversationId = created.conversation!.conversationId;
  const board = await (
    await svc.call('/task-boards', { key, method: 'POST', json: { name: 'Northside follow-ups' } })
  ).json();
  other.boardId = (board as { id: string }).id;
  const tasks = await (
    await svc.call(`/task-boards/${other.boardId}/tasks/bulk`, {
      key,
      method: 'POST',
      json: { items: [{ title: 'Call the owner' }] },
    })
  ).json();
  other.taskId = (tasks as { items: { id: string }[] }).items[0]!.id;
  const webhook = await (
    await svc.call(`/organizations/${other.orgId}/webhooks`, {
      key,
      method: 'POST',
      json: { url: 'http://127.0.0.1:9/hook', description: 'x' },
    })
  ).json();
  other.webhookId = (webhook as { id: string }).id;
  other.keyId = (
    (await (await svc.call('/auth/me', { key })).json()) as { apiKey: { id: string } }
  ).apiKey.id;
});
afterAll(() => svc.dispose());

type Case = { path: () => string; body?: () => unknown };
const cases: Record<string, Case> = {
  'GET /api/devices': { path: () => `/devices?organizationId=${other.orgId}` },
  'GET /api/organizations/:orgId/labels': { path: () => `/organizations/${other.orgId}/labels` },
  'GET /api/labels/:labelId': { path: () => `/labels/${other.labelId}` },
  'POST /api/labels/:labelId/assign': {
    path: () => `/labels/${other.labelId}/assign`,
    body: () => ({ patientId: 'x' }),
  },
  'GET /api/labels/:labelId/audio': { path: () => `/labels/${other.labelId}/audio` },
  'POST /api/sandbox/labels/:labelId/notes': {
    path: () => `/sandbox/labels/${other.labelId}/notes`,
    body: () => ({ type: 'Transcript', content: 'not yours' }),
  },
  'GET /api/hub/conversations': { path: () => `/hub/conversations?organizationId=${other.orgId}` },
  'GET /api/hub/conversations/timeline/:deviceId': {
    path: () => `/hub/conversations/timeline/${other.deviceId}?startMs=0&endMs=60000`,
  },
  'GET /api/hub/conversations/create/preview': {
    path: () =>
      `/hub/conversations/create/preview?deviceId=${other.deviceId}&startMs=0&endMs=60000`,
  },
  'POST /api/hub/conversations/create': {
    path: () => '/hub/conversations/create',
    body: () => ({ deviceId: other.deviceId, startMs: 0, endMs: 60_000 }),
  },
  'GET /api/hub/conversations/:deviceId/:conversationId': {
    path: () => `/hub/conversations/${other.deviceId}/${other.conversationId}`,
  },
  'POST /api/hub/conversations/:deviceId/:conversationId/complete': {
    path: () => `/hub/conversations/${other.deviceId}/${other.conversationId}/complete`,
  },
  'GET /api/task-boards/:boardId': { path: () => `/task-boards/${other.boardId}` },
  'PATCH /api/task-boards/:boardId': {
    path: () => `/task-boards/${other.boardId}`,
    body: () => ({ name: 'mine now' }),
  },
  'POST /api/task-boards/:boardId/tasks': {
    path: () => `/task-boards/${other.boardId}/tasks`,
    body: () => ({ title: 'x' }),
  },
  'POST /api/task-boards/:boardId/tasks/bulk': {
    path: () => `/task-boards/${other.boardId}/tasks/bulk`,
    body: () => ({ items: [{ title: 'x' }] }),
  },
  'GET /api/task-boards/:boardId/tasks': { path: () => `/task-boards/${other.boardId}/tasks` },
  'GET /api/tasks/:taskId': { path: () => `/tasks/${other.taskId}` },
  'PATCH /api/tasks/:taskId': {
    path: () => `/tasks/${other.taskId}`,
    body: () => ({ description: 'x' }),
  },
  'POST /api/tasks/:taskId/comments': {
    path: () => `/tasks/${other.taskId}/comments`,
    body: () => ({ body: 'x' }),
  },
  'DELETE /api/api-keys/:keyId': { path: () => `/api-keys/${other.keyId}` },
  'POST /api/organizations/:orgId/webhooks': {
    path: () => `/organizations/${other.orgId}/webhooks`,
    body: () => ({ url: 'http://127.0.0.1:9/x', description: 'x' }),
  },
  'GET /api/organizations/:orgId/webhooks': {
    path: () => `/organizations/${other.orgId}/webhooks`,
  },
  'DELETE /api/organizations/:orgId/webhooks/:id': {
    path: () => `/organizations/${other.orgId}/webhooks/${other.webhookId}`,
  },
  'POST /api/organizations/:orgId/webhooks/:id/test': {
    path: () => `/organizations/${other.orgId}/webhooks/${other.webhookId}/test`,
  },
  'POST /api/organizations/:orgId/webhooks/:id/enable': {
    path: () => `/organizations/${other.orgId}/webhooks/${other.webhookId}/enable`,
  },
  'GET /api/organizations/:orgId/webhooks/:id/deliveries': {
    path: () => `/organizations/${other.orgId}/webhooks/${other.webhookId}/deliveries`,
  },
};

/** Routes that name no organization: they act in the caller's own (checked below for leaks). */
const OWN_ORGANIZATION_ONLY = [
  'GET /api/auth/me',
  'GET /api/task-boards',
  'POST /api/task-boards',
  'GET /api/api-keys',
];

describe('organization isolation', () => {
  it('has a case for every route of the service', () => {
    const routes = svc.service.routes.filter((r) => !r.public).map((r) => `${r.method} ${r.url}`);
    const covered = new Set([
      ...Object.keys(cases),
      ...OWN_ORGANIZATION_ONLY,
      'POST /api/api-keys',
    ]);
    expect(routes.filter((route) => !covered.has(route))).toEqual([]);
  });

  it.each(Object.keys(cases))("refuses %s with another organization's resource", async (route) => {
    const [method] = route.split(' ');
    const { path, body } = cases[route]!;
    const response = await svc.call(path(), {
      key: svc.credentials.primary.apiKey,
      method,
      json: body?.(),
    });
    expect(response.status).toBe(403);
    expect((await problemOf(response)).code).toBe('organization_mismatch');
  });

  it('refuses a session creating a key for an organization it does not act in', async () => {
    const { admin } = svc.credentials;
    const login = await svc.call('/auth/login', {
      method: 'POST',
      json: { email: admin.email, password: admin.password },
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const response = await svc.call('/api-keys', {
      method: 'POST',
      headers: { cookie },
      json: { name: 'x', organizationId: other.orgId },
    });
    expect(response.status).toBe(403);
  });

  it("lists only the caller's own organization where no organization is named", async () => {
    const key = svc.credentials.primary.apiKey;
    const boards = (await (await svc.call('/task-boards', { key })).json()) as
      { id: string }[] | { items: { id: string }[] };
    const boardIds = (Array.isArray(boards) ? boards : boards.items).map((b) => b.id);
    expect(boardIds).not.toContain(other.boardId);
    const keys = (await (await svc.call('/api-keys', { key })).json()) as {
      id: string;
      organizationId: string;
    }[];
    expect(keys.map((k) => k.id)).not.toContain(other.keyId);
    expect(new Set(keys.map((k) => k.organizationId))).toEqual(
      new Set([svc.credentials.primary.organizationId]),
    );
    const conversations = (await (
      await svc.call('/hub/conversations?pageSize=100', { key })
    ).json()) as { items: { conversationId: string }[] };
    expect(conversations.items.map((c) => c.conversationId)).not.toContain(other.conversationId);
    const devices = (await (await svc.call('/devices', { key })).json()) as { value: string }[];
    expect(devices.map((d) => d.value)).not.toContain(other.deviceId);
  });
});

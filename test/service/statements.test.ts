import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchPrepared } from '../support/prepared';
import { DEMO_DEVICES, startService, type RunningService } from './harness';

/** The service's stores run their SQL through src/node-common/sql.ts, which prepares each text once. */
describe('the service', () => {
  let svc: RunningService;
  let prepared: string[];

  beforeAll(async () => {
    svc = await startService();
    // Count what the service's connection prepares from now on.
    prepared = watchPrepared(svc.service.db).texts;
  });
  afterAll(() => svc.dispose());

  /** Reads and writes through every store: labels, patients, devices, hub, tasks, keys, webhooks. */
  async function round(): Promise<void> {
    const { organizationId, apiKey: key } = svc.credentials.primary;
    const { labels } = svc.service;
    const patientId = labels.createPatient(organizationId, 'Maple', 'dog');
    const fromMs = Date.UTC(2026, 9, 1, 8);
    const labelId = labels.create({
      organizationId,
      type: 'HubMic',
      fromMs,
      toMs: fromMs + 60_000,
      friendlyName: 'Exam Room iPad',
      deviceSerial: 'IPAD-1',
      notes: [{ type: 'Transcript', content: 'hello', createdMs: fromMs, timeMs: fromMs }],
    });
    const ok = async (method: string, path: string, json?: unknown) => {
      const response = await svc.call(path, { key, method, json });
      expect(response.status, `${method} ${path}`).toBeLessThan(300);
      return (await response.json().catch(() => undefined)) as Record<string, unknown>;
    };
    await ok('GET', '/auth/me');
    await ok('GET', '/devices');
    await ok(
      'GET',
      `/organizations/${organizationId}/labels?types=HubMic&types=HubBatch&patientSearch=map` +
        `&fromTime=2026-01-01T00:00:00.000Z&sortingProperty=Patient&limit=5`,
    );
    await ok('GET', `/labels/${labelId}`);
    await ok('POST', `/labels/${labelId}/assign`, { patientId });
    const device = DEMO_DEVICES[0].id;
    await ok('GET', `/hub/conversations?deviceId=${device}&pageSize=5`);
    await ok(
      'GET',
      `/hub/conversations/timeline/${device}?startMs=${fromMs}&endMs=${fromMs + 3_600_000}`,
    );
    const board = await ok('POST', '/task-boards', { name: 'Follow-ups' });
    await ok('GET', '/task-boards');
    const { items } = await ok('POST', `/task-boards/${String(board.id)}/tasks/bulk`, {
      items: [{ title: 'Call the owner', groupKey: labelId }],
    });
    const taskId = String((items as { id: string }[])[0]!.id);
    await ok('GET', `/task-boards/${String(board.id)}/tasks?category=open&groupKey=${labelId}`);
    await ok('PATCH', `/tasks/${taskId}`, { title: 'Call the owner back' });
    await ok('POST', `/tasks/${taskId}/comments`, { body: 'Left a message.' });
    await ok('GET', '/api-keys');
    await ok('GET', `/organizations/${organizationId}/webhooks`);
  }

  it('prepares nothing again when the same requests come again', async () => {
    await round();
    expect(prepared.length).toBeGreaterThan(0);
    const first = prepared.length;
    await round();
    await round();
    expect(prepared.slice(first)).toEqual([]);
  });
});

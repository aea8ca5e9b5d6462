import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CreatedWebhook, Delivery, TaskBoard } from '../../src/shared/api';
import { createService } from '../../src/service/app';
import { seedIdentity } from '../../src/service/demo/identity-seed';
import { launch, type Launched } from './child-process';
import { startService, type RunningService } from './harness';
import { until } from './poll';
import { startReceiver, type Receiver } from './receiver';

/** At-least-once across restarts (seed §6.2 rule 2): the queue lives in SQLite. */

const cleanups: (() => Promise<unknown> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function receiver(answer: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const started = await startReceiver(answer);
  cleanups.push(() => started.close());
  return started;
}

async function api(baseUrl: string, key: string, path: string, method = 'GET', json?: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  return response.json() as Promise<unknown>;
}

/** Creates a webhook for `url` and logs one task_created event; returns the webhook's id. */
async function webhookAndEvent(baseUrl: string, key: string, orgId: string, url: string) {
  const webhook = (await api(baseUrl, key, `/organizations/${orgId}/webhooks`, 'POST', {
    url,
    description: 'durability',
  })) as CreatedWebhook;
  const board = (await api(baseUrl, key, '/task-boards', 'POST', { name: 'B' })) as TaskBoard;
  await api(baseUrl, key, `/task-boards/${board.id}/tasks/bulk`, 'POST', {
    items: [{ title: 'Recheck Maple' }],
  });
  return webhook.id;
}

async function deliveriesOf(baseUrl: string, key: string, orgId: string, webhookId: string) {
  return (await api(
    baseUrl,
    key,
    `/organizations/${orgId}/webhooks/${webhookId}/deliveries`,
  )) as Delivery[];
}

describe('webhook delivery across restarts', () => {
  it('delivers the retry after a service killed (SIGKILL) between attempts is started again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'earmark-durability-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const seeding = createService({ dataDir });
    const { primary } = seedIdentity(seeding, Date.now()).credentials;
    await seeding.close();

    const target = await receiver((_, index) => (index === 0 ? 500 : 204));
    // The first retry waits 1.5 s: time enough to kill the service before it comes.
    const args = [
      '--data',
      dataDir,
      '--webhook-backoff-ms',
      '1500,50,50,50,50',
      '--allow-local-webhooks',
    ];
    const start = async (): Promise<{ cli: Launched; baseUrl: string }> => {
      const cli = launch('src/service/cli.ts', args);
      cleanups.push(() => cli.kill());
      const [line] = await cli.waitFor('stdout', /^.*\n/);
      return { cli, baseUrl: (JSON.parse(line) as { baseUrl: string }).baseUrl };
    };

    const first = await start();
    const webhookId = await webhookAndEvent(
      first.baseUrl,
      primary.apiKey,
      primary.organizationId,
      target.url,
    );
    await until(
      () => deliveriesOf(first.baseUrl, primary.apiKey, primary.organizationId, webhookId),
      (log) => log.length === 1,
    );
    expect((await first.cli.kill('SIGKILL')).signal).toBe('SIGKILL');
    expect(target.received).toHaveLength(1);

    const second = await start();
    const [failed, retried] = await target.waitFor(2, 10_000);
    expect(retried!.event.id).toBe(failed!.event.id);
    expect(retried!.body).toBe(failed!.body);
    const log = await until(
      () => deliveriesOf(second.baseUrl, primary.apiKey, primary.organizationId, webhookId),
      (entries) => entries.length === 2,
    );
    expect(log.map((d) => [d.attemptNumber, d.httpStatusCode, d.success])).toEqual([
      [2, 204, true],
      [1, 500, false],
    ]);
    await second.cli.kill('SIGTERM');
  });

  describe('close and reopen over the same data folder', () => {
    let svc: RunningService;
    afterAll(() => svc.dispose());

    it('resumes a pending retry after a restart', async () => {
      svc = await startService({ webhookBackoffMs: [600, 50, 50, 50, 50] });
      const { apiKey, organizationId } = svc.credentials.primary;
      const target = await receiver((_, index) => (index === 0 ? 503 : 204));
      const webhookId = await webhookAndEvent(svc.baseUrl, apiKey, organizationId, target.url);
      await until(
        async () => svc.service.webhookStore.deliveries(webhookId),
        (log) => log.length === 1,
      );
      svc = await svc.restart();
      await target.waitFor(2);
      expect(target.received[1]!.event.id).toBe(target.received[0]!.event.id);
      const log = await until(
        async () => svc.service.webhookStore.deliveries(webhookId),
        (entries) => entries.length === 2,
      );
      expect(log[0]).toMatchObject({ attemptNumber: 2, success: true });
    });

    it('stops at once with an attempt under way, and sends it again after the restart', async () => {
      const { apiKey, organizationId } = svc.credentials.primary;
      const target = await receiver((_, index) => (index === 0 ? 'hang' : 204));
      const webhookId = await webhookAndEvent(svc.baseUrl, apiKey, organizationId, target.url);
      await target.waitFor(1);
      const closing = Date.now();
      svc = await svc.restart();
      expect(Date.now() - closing).toBeLessThan(2000);
      await target.waitFor(2);
      expect(target.received[1]!.event.id).toBe(target.received[0]!.event.id);
      // The abandoned attempt had no outcome, so it is not logged: this is attempt 1.
      const log = await until(
        async () => svc.service.webhookStore.deliveries(webhookId),
        (entries) => entries.length === 1,
      );
      expect(log[0]).toMatchObject({ attemptNumber: 1, success: true });
    });
  });
});

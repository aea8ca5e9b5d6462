import { announceSkip } from '../support/skip';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Delivery } from '../../src/shared/api';
import type {
  AccountSummary,
  ChannelInput,
  ChannelName,
  ChannelOutput,
  IpcError,
} from '../../src/shared/ipc';
import { KeychainSecretStore } from '../../src/main/accounts/secret-store';
import type { Core } from '../../src/main/core';
import { startService, type RunningService } from '../service/harness';
import { startReceiver, type Receiver } from '../service/receiver';
import { secretServiceProblem } from '../support/secret-service';
import { testCore } from '../support/core';

const problem = announceSkip(
  'the tests of test/main/handlers-admin.test.ts',
  secretServiceProblem(),
);

const filesUnder = (folder: string) =>
  readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .map((name) => join(folder, name))
    .filter((path) => statSync(path).isFile());

describe.skipIf(problem !== undefined)(
  'administration handlers against the reference service',
  () => {
    let svc: RunningService;
    let receiver: Receiver;
    let dataDir: string;
    let core: Core;
    const logs: string[] = [];
    const results: unknown[] = [];

    async function call<C extends ChannelName>(
      channel: C,
      input: ChannelInput<C>,
    ): Promise<ChannelOutput<C>> {
      const result = await core.rpc.invoke(channel, input);
      results.push(result);
      if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
      return result.value as ChannelOutput<C>;
    }
    async function refused(channel: ChannelName, input: unknown): Promise<IpcError> {
      const result = await core.rpc.invoke(channel, input);
      if (result.ok) throw new Error(`${channel} succeeded: ${JSON.stringify(result.value)}`);
      return result.error;
    }

    beforeAll(async () => {
      svc = await startService({ webhookBackoffMs: [50, 50, 50, 50, 50] });
      receiver = await startReceiver();
      dataDir = mkdtempSync(join(tmpdir(), 'earmark-admin-'));
      core = testCore({
        dataDir,
        keychain: new KeychainSecretStore(`Earmark-admin-test-${process.pid}`),
        log: (message) => logs.push(message),
      });
    });
    afterAll(async () => {
      await core?.close();
      await receiver?.close();
      await svc?.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('creates a webhook (the secret once), tests it and reads the delivery', async () => {
      await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
      expect(await call('admin.webhooks', {})).toEqual([]);
      const created = await call('admin.createWebhook', {
        url: receiver.url,
        description: 'Practice management',
        eventTypes: [],
      });
      expect(created.secret).toMatch(/^whsec_/);
      expect(created).toMatchObject({ url: receiver.url, isActive: true, eventTypes: [] });
      const listed = await call('admin.webhooks', {});
      expect(listed).toHaveLength(1);
      expect(JSON.stringify(listed)).not.toContain(created.secret);

      const test = await call('admin.testWebhook', { webhookId: created.id });
      expect(test).toMatchObject({ success: true, eventId: expect.stringMatching(/^evt_test_/) });
      const deliveries: Delivery[] = await call('admin.deliveries', { webhookId: created.id });
      expect(deliveries[0]).toMatchObject({
        eventId: test.eventId,
        eventType: 'ping',
        attemptNumber: 1,
        httpStatusCode: 204,
        success: true,
        errorMessage: null,
      });
      expect(receiver.received.map((d) => d.event.type)).toContain('ping');

      // Main keeps nothing of the secret: not in its files, not in its logs.
      const kept = [...filesUnder(dataDir).map((path) => readFileSync(path, 'latin1')), ...logs];
      expect(kept.join('\n')).not.toContain(created.secret);

      expect(await call('admin.enableWebhook', { webhookId: created.id })).toHaveLength(1);
      expect(await call('admin.deleteWebhook', { webhookId: created.id })).toEqual([]);
    });

    it('refuses an address that is not http(s) before the service sees it', async () => {
      const error = await refused('admin.createWebhook', {
        url: 'ftp://127.0.0.1/hook',
        description: '',
      });
      expect(error.kind).toBe('invalid_input');
      const unknownType = await refused('admin.createWebhook', {
        url: receiver.url,
        description: '',
        eventTypes: ['everything'],
      });
      expect(unknownType.kind).toBe('invalid_input');
    });

    it('lists the keys and revokes another one, which is marked revoked', async () => {
      const keys = await call('admin.apiKeys', {});
      expect(keys.map((k) => k.name)).toEqual(
        expect.arrayContaining(['Earmark desktop', 'Records export', 'Old reception PC']),
      );
      const exportKey = keys.find((k) => k.name === 'Records export')!;
      expect(exportKey.isRevoked).toBe(false);
      const after = await call('admin.revokeApiKey', { keyId: exportKey.id });
      expect(after.find((k) => k.id === exportKey.id)?.isRevoked).toBe(true);
      const refusedKey = await svc.call('/labels/00000000-0000-4000-8000-000000000000', {
        key: svc.credentials.labelsOnly.apiKey,
      });
      expect(refusedKey.status).toBe(401);
    });

    it('a member’s key is refused webhooks with the service’s reason', async () => {
      const { identity } = svc.service;
      const member = identity.userByEmail('priya.nair@riverside-vets.example')!;
      const { key } = identity.createApiKey({
        userId: member.id,
        organizationId: svc.credentials.primary.organizationId,
        name: 'Nurse laptop',
      });
      const added = (await call('accounts.add', {
        baseUrl: svc.baseUrl,
        apiKey: key,
      })) as AccountSummary;
      expect(added.keyName).toBe('Nurse laptop');
      const error = await refused('admin.webhooks', {});
      expect(error.kind).toBe('scope_missing');
      expect(error.detail).toMatch(/owner or admin/i);
    });

    it('revoking the key this app uses answers the list with it marked revoked', async () => {
      const accounts = await call('accounts.list', {});
      const own = accounts.find((a) => a.active)!;
      const after = await call('admin.revokeApiKey', { keyId: own.keyId! });
      expect(after.find((k) => k.id === own.keyId)?.isRevoked).toBe(true);
      const next = await refused('admin.apiKeys', {});
      expect(next.kind).toBe('key_revoked');
    });
  },
);

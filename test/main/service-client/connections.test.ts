import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../../src/main/service-client/client';
import { startService, type RunningService } from '../../service/harness';

describe.each(['seed', 'field'] as const)(
  'the service’s connections opened ahead of use (%s dialect)',
  (dialect) => {
    let svc: RunningService;
    /** Connections the service has accepted. */
    let accepted = 0;

    beforeAll(async () => {
      svc = await startService({ dialect });
      svc.service.app.server.on('connection', () => accepted++);
    });
    afterAll(async () => {
      await svc?.dispose();
    });

    it('opens all the pool holds, so calls made at once after it open none', async () => {
      const client = createApiClient({
        baseUrl: svc.baseUrl,
        apiKey: svc.credentials.primary.apiKey,
        connections: 4,
      });
      try {
        const before = accepted;
        await client.openConnections(10_000);
        expect(accepted - before).toBe(4);
        await Promise.all(Array.from({ length: 4 }, () => client.devices.list({})));
        expect(accepted - before).toBe(4);
      } finally {
        await client.close();
      }
    });

    it('gives up without failing when nothing answers', async () => {
      // A port that accepted once and is closed now: every connection is refused.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const { port } = closed.address() as AddressInfo;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      const client = createApiClient({ baseUrl: `http://127.0.0.1:${port}/api`, apiKey: 'k' });
      try {
        await expect(client.openConnections(300)).resolves.toBeUndefined();
      } finally {
        await client.close();
      }
    });
  },
);

import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatedWebhook, ServiceEvent, WebhookTestResponse } from '../../src/shared/api';
import { startWebhookListener, type WebhookListener } from '../../src/service/webhooks/listen';
import { signBody, verifySignature } from '../../src/service/webhooks/signature';
import { launch } from './child-process';
import { startService } from './harness';

describe('signature verification', () => {
  // GitHub's published test vector for X-Hub-Signature-256, the same scheme as X-Service-Signature.
  const secret = "It's a Secret to Everybody";
  const payload = 'Hello, World!';
  const signature = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

  it("verifies GitHub's sha256 test vector", () => {
    expect(signBody(secret, payload)).toBe(signature);
    expect(verifySignature(secret, payload, signature)).toBe(true);
    expect(verifySignature(secret, Buffer.from(payload), signature)).toBe(true);
  });

  it('fails with another secret, another body, or a malformed header', () => {
    expect(verifySignature("It's a Secret to Nobody", payload, signature)).toBe(false);
    expect(verifySignature(secret, 'Hello, World?', signature)).toBe(false);
    expect(verifySignature(secret, payload, signature.toUpperCase())).toBe(false);
    expect(verifySignature(secret, payload, signature.slice(7))).toBe(false);
    expect(verifySignature(secret, payload, undefined)).toBe(false);
  });
});

describe('the webhook listener', () => {
  const secret = 'whsec_listener-test-secret';
  const events: ServiceEvent[] = [];
  const notices: string[] = [];
  let listener: WebhookListener;

  beforeAll(async () => {
    listener = await startWebhookListener({
      secret,
      port: 0,
      onEvent: (event) => events.push(event),
      onNotice: (message) => notices.push(message),
    });
  });
  afterAll(() => listener.close());

  const event: ServiceEvent = {
    id: 'evt_0123456789abcdef01234567',
    type: 'new_label',
    organizationId: '00000000-0000-4000-8000-000000000001',
    timestamp: '2026-10-01T08:00:00.000Z',
    data: { labelId: '00000000-0000-4000-8000-000000000002' },
  };
  const deliver = (body: string, signature?: string) =>
    fetch(listener.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-delivery': event.id,
        ...(signature ? { 'x-service-signature': signature } : {}),
      },
      body,
    });

  it('accepts a correctly signed delivery once, and drops the repeat by delivery id', async () => {
    const body = JSON.stringify(event);
    expect((await deliver(body, signBody(secret, body))).status).toBe(204);
    expect((await deliver(body, signBody(secret, body))).status).toBe(204);
    expect(events).toEqual([event]);
    expect(notices.at(-1)).toContain('Duplicate delivery');
  });

  it('answers 401 to a bad or missing signature', async () => {
    const body = JSON.stringify({ ...event, id: 'evt_other' });
    expect((await deliver(body, signBody('whsec_wrong', body))).status).toBe(401);
    expect((await deliver(body)).status).toBe(401);
    expect((await deliver(`${body} `, signBody(secret, body))).status).toBe(401);
    expect(events).toHaveLength(1);
  });

  it('answers 405 to anything but POST', async () => {
    expect((await fetch(listener.url)).status).toBe(405);
  });
});

describe('npm run webhook-listen', () => {
  it('receives, verifies and prints what the service sends', async () => {
    const svc = await startService();
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const { apiKey: key, organizationId } = svc.credentials.primary;
    const created = await svc.call(`/organizations/${organizationId}/webhooks`, {
      key,
      method: 'POST',
      json: { url: `http://127.0.0.1:${port}/`, description: 'webhook-listen' },
    });
    const webhook = (await created.json()) as CreatedWebhook;
    const cli = launch('src/service/webhooks/listen.ts', [
      '--secret',
      webhook.secret,
      '--port',
      String(port),
    ]);
    try {
      await cli.waitFor(
        'stderr',
        /Listening for webhook deliveries on http:\/\/127\.0\.0\.1:\d+\//,
      );
      const test = await svc.call(`/organizations/${organizationId}/webhooks/${webhook.id}/test`, {
        key,
        method: 'POST',
      });
      const result = (await test.json()) as WebhookTestResponse;
      expect(result.success).toBe(true);
      const [line] = await cli.waitFor('stdout', /^.*\n/);
      expect(JSON.parse(line)).toMatchObject({
        id: result.eventId,
        type: 'ping',
        data: { test: true },
      });
    } finally {
      await cli.kill();
      await svc.dispose();
    }
  });

  it('exits 2 without a whsec_ secret', async () => {
    const cli = launch('src/service/webhooks/listen.ts', ['--secret', 'hunter2']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.output.stderr).toContain('whsec_');
  });
});

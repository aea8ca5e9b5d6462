import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkDestination,
  DestinationRefused,
  isPublicAddress,
} from '../../src/service/webhooks/destinations';
import { problemOf, startService, type RunningService } from './harness';

/** The webhook destination policy (issue 19): public addresses only, unless the sandbox's. */
describe('the webhook destination policy', () => {
  it.each([
    ['127.0.0.1', false],
    ['127.8.9.10', false],
    ['10.1.2.3', false],
    ['172.20.0.1', false],
    ['192.168.1.10', false],
    ['169.254.169.254', false], // cloud metadata
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:7f00:1', false],
    ['::7f00:1', false], // IPv4-compatible (::/96), 127.0.0.1
    ['::808:808', false], // IPv4-compatible, even for a public IPv4
    ['2002:7f00:1::1', false], // 6to4 of 127.0.0.1
    ['2002:a00:1::', false], // 6to4 of 10.0.0.1
    ['2002:a9fe:a9fe::1', false], // 6to4 of 169.254.169.254
    ['2002:808:808::1', true], // 6to4 of 8.8.8.8
    ['64:ff9b::7f00:1', false], // NAT64
    ['64:ff9b:1::a00:1', false], // local-use NAT64 (RFC 8215)
    ['fec0::1', false], // site-local
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false], // Teredo
    ['2001:db8::1', false], // documentation
    ['8.8.8.8', true],
    ['93.184.216.34', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['not an address', false],
  ])('%s is public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  it.each([
    ['http://127.0.0.1:8080/hook', '127.0.0.1 is not public'],
    ['http://[::1]/hook', '::1 is not public'],
    ['http://0x7f.0.0.1/hook', '127.0.0.1 is not public'], // hex: the URL parser writes a dotted quad
    ['http://2130706433/hook', '127.0.0.1 is not public'], // one number
    ['http://0177.0.0.1/hook', '127.0.0.1 is not public'], // octal
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is not public'],
    ['http://[2002:a9fe:a9fe::1]/latest/meta-data', '2002:a9fe:a9fe::1 is not public'],
    ['http://[fec0::1]/hook', 'fec0::1 is not public'],
    ['http://localhost:9/hook', 'localhost is not public'],
    ['http://metadata.google.internal/', 'cannot be resolved'],
    ['ftp://8.8.8.8/hook', 'must be http or https'],
  ])('refuses %s, naming the rule', async (url, rule) => {
    const refusal = await checkDestination(url, 'public').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DestinationRefused);
    expect((refusal as Error).message).toContain(rule);
  });

  it('never names the address a host resolved to', async () => {
    const refusal = (await checkDestination('http://localhost:9/hook', 'public').catch(
      (error: unknown) => error,
    )) as Error;
    expect(refusal).toBeInstanceOf(DestinationRefused);
    expect(refusal.message).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('takes a public address, and anything http(s) in the sandbox', async () => {
    await expect(checkDestination('https://8.8.8.8/hook', 'public')).resolves.toBeUndefined();
    await expect(checkDestination('http://127.0.0.1:9/hook', 'any')).resolves.toBeUndefined();
  });
});

describe('webhooks on a service with the default policy', () => {
  let svc: RunningService;
  let listener: Server;
  let hits = 0;
  beforeAll(async () => {
    svc = await startService({ webhookDestinations: 'public' });
    listener = createServer((_request, response) => {
      hits++;
      response.end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await svc.dispose();
    await new Promise((resolve) => listener.close(resolve));
  });

  /** The admin's session cookie: only a session may create webhooks. */
  const sessionCookie = async () => {
    const { admin } = svc.credentials;
    const login = await svc.call('/auth/login', {
      method: 'POST',
      json: { email: admin.email, password: admin.password },
    });
    return login.headers.get('set-cookie')!.split(';')[0]!;
  };

  it('refuses to create one for this machine with a 400 naming the rule, and sends nothing', async () => {
    const { admin } = svc.credentials;
    const cookie = await sessionCookie();
    const port = (listener.address() as AddressInfo).port;
    for (const url of [`http://127.0.0.1:${port}/hook`, `http://[::1]:${port}/hook`]) {
      const response = await svc.call(`/organizations/${admin.organizationId}/webhooks`, {
        method: 'POST',
        headers: { cookie },
        json: { url, description: 'local' },
      });
      expect(response.status).toBe(400);
      const problem = await problemOf(response);
      expect(problem.detail).toContain('"url"');
      expect(problem.detail).toContain('only to public addresses');
    }
    expect(hits).toBe(0);
  });

  it('says a name is not public without naming the address it resolved to', async () => {
    const { admin } = svc.credentials;
    const cookie = await sessionCookie();
    const port = (listener.address() as AddressInfo).port;
    const response = await svc.call(`/organizations/${admin.organizationId}/webhooks`, {
      method: 'POST',
      headers: { cookie },
      json: { url: `http://localhost:${port}/hook`, description: 'local by name' },
    });
    expect(response.status).toBe(400);
    const { detail } = await problemOf(response);
    expect(detail).toContain('localhost is not public');
    expect(detail).not.toMatch(/127\.0\.0\.1|::1/);
    expect(hits).toBe(0);
  });
});

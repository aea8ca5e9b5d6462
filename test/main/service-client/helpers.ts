import { createServer, type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { createApiClient, type ApiClient } from '../../../src/main/service-client/client';
import { ApiError, type ApiErrorKind } from '../../../src/main/service-client/errors';
import type { HttpTuning } from '../../../src/main/service-client/http';
import type { ServiceOptions } from '../../../src/service/app';
import { startFaultProxy, type FaultProxy } from '../../support/fault-proxy';
import { startService, type RunningService } from '../../service/harness';

interface TestClient {
  client: ApiClient;
  /** Every wait the client asked for between attempts, in order. */
  sleeps: number[];
}

/**
 * A client whose waits are recorded instead of slept and whose jitter is fixed (random() = 0.5),
 * so retry tests are fast and their delays exact.
 */
function testClient(baseUrl: string, apiKey: string, tuning: HttpTuning = {}): TestClient {
  const sleeps: number[] = [];
  const client = createApiClient({
    baseUrl,
    apiKey,
    baseDelayMs: 100,
    maxDelayMs: 1000,
    timeoutMs: 5000,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...tuning,
  });
  return { client, sleeps };
}

/** The reference service behind a fault proxy, with clients of it, for one test file. */
export interface ProxiedService {
  readonly svc: RunningService;
  readonly proxy: FaultProxy;
  /** A test client with the primary organization's key, through the proxy. */
  readonly client: ApiClient;
  /** Another test client (closed after all): another key, base URL or tuning. */
  connect(options?: { apiKey?: string; baseUrl?: string; tuning?: HttpTuning }): TestClient;
}

/**
 * Starts the service and the proxy before all tests of the file and stops them after all; clears
 * the proxy's log and fault queue after each test. Seed data in a later beforeAll.
 */
export function useProxiedService(options: Partial<ServiceOptions> = {}): ProxiedService {
  let svc: RunningService | undefined;
  let proxy: FaultProxy | undefined;
  const clients: ApiClient[] = [];
  const started = <T>(value: T | undefined): T => value ?? expect.fail('the service is not up yet');

  const env: ProxiedService = {
    get svc() {
      return started(svc);
    },
    get proxy() {
      return started(proxy);
    },
    get client() {
      return started(clients[0]);
    },
    connect({ apiKey, baseUrl, tuning } = {}) {
      const made = testClient(
        baseUrl ?? env.proxy.baseUrl,
        apiKey ?? env.svc.credentials.primary.apiKey,
        tuning,
      );
      clients.push(made.client);
      return made;
    },
  };

  beforeAll(async () => {
    svc = await startService(options);
    proxy = await startFaultProxy(svc.baseUrl);
    env.connect();
  });
  afterEach(() => proxy?.reset());
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await proxy?.close();
    await svc?.dispose();
  });
  return env;
}

/** The ApiError a call rejects with, checked to be of `kind`. */
export async function rejection(call: Promise<unknown>, kind: ApiErrorKind): Promise<ApiError> {
  const error: unknown = await call.then(
    () => expect.fail(`expected the call to fail with ${kind}`),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).kind).toBe(kind);
  return error as ApiError;
}

/** The API root of a port nothing listens on (a connection there is refused). */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api`;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MINUTE_MS } from '../../src/shared/api';
import {
  API_PREFIX,
  createService,
  type ClinicService,
  type ServiceOptions,
} from '../../src/service/app';
import { seedIdentity, type DemoCredentials } from '../../src/service/demo/identity-seed';
import type { HubMinute } from '../../src/service/hub/simulator';

export { DEMO_DEVICES, SECONDARY_DEVICE } from '../../src/service/demo/identity-seed';

/** A reference service on a real loopback port over a temporary data folder. */
export interface RunningService {
  service: ClinicService;
  baseUrl: string;
  dataDir: string;
  credentials: DemoCredentials;
  /** fetch against baseUrl, with `Authorization: Bearer <key>` when a key is given. */
  call(path: string, init?: RequestInit & { key?: string; json?: unknown }): Promise<Response>;
  /** Closes the service and opens a new one over the same data folder (a restart). */
  restart(): Promise<RunningService>;
  close(): Promise<void>;
  /** Removes the data folder too. */
  dispose(): Promise<void>;
}

async function listen(
  dataDir: string,
  credentials: DemoCredentials | undefined,
  options: Partial<ServiceOptions>,
): Promise<RunningService> {
  // The sandbox's webhook policy: tests deliver to listeners on this machine.
  const service = createService({
    dataDir,
    processingMs: 200,
    webhookDestinations: 'any',
    ...options,
  });
  const creds = credentials ?? seedIdentity(service, Date.now()).credentials;
  const address = await service.app.listen({ port: 0, host: '127.0.0.1' });
  const baseUrl = `${address}${API_PREFIX}`;
  const running: RunningService = {
    service,
    baseUrl,
    dataDir,
    credentials: creds,
    call(path, init = {}) {
      const { key, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key) headers.set('authorization', `Bearer ${key}`);
      if (json !== undefined) headers.set('content-type', 'application/json');
      return fetch(`${baseUrl}${path}`, {
        ...rest,
        headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    },
    async restart() {
      await service.close();
      return listen(dataDir, creds, options);
    },
    close: () => service.close(),
    async dispose() {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return running;
}

/** Starts a service seeded with the demo organizations, staff, devices and keys (no records). */
export function startService(options: Partial<ServiceOptions> = {}): Promise<RunningService> {
  return listen(mkdtempSync(join(tmpdir(), 'earmark-service-')), undefined, options);
}

/** A whole minute `index` minutes after `baseMs`, with `speechMs` of speech (0 = silent). */
export function hubMinute(
  baseMs: number,
  index: number,
  speechMs: number,
  audioOk = true,
): HubMinute {
  const text = speechMs > 0 ? `Line said in minute ${index}.` : '';
  return {
    minuteMs: baseMs + index * MINUTE_MS,
    speechMs,
    transcript: text,
    diarized: text && `Speaker 1: ${text}`,
    clips: speechMs > 0 ? [['consult-vaccination-00', 1000]] : [],
    audioOk,
  };
}

/** A minute-aligned time a few days back, clear of anything the tests insert elsewhere. */
export const baseMinute = (daysAgo = 3) => {
  const ms = Date.now() - daysAgo * 24 * 60 * MINUTE_MS;
  return ms - (ms % MINUTE_MS);
};

export const problemOf = async (response: Response) =>
  (await response.json()) as {
    type: string;
    title: string;
    status: number;
    detail: string;
    code: string;
    errors?: { location: string; pointer: string; message: string }[];
  };

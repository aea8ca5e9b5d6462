import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../src/shared/api';
import { startService, type RunningService } from './harness';

/**
 * The reference service under concurrent load from a second client on loopback, bounded in time:
 * reads and writes mixed, no errors, no lost events. p99 latency is printed (a figure, not a pass
 * mark: timing belongs to benchmarks).
 */
const CONNECTIONS = 16;
const DURATION_MS = 4000;

let svc: RunningService;
let labelIds: string[];
let patientId: string;

beforeAll(async () => {
  svc = await startService({ rateLimit: { requests: 1_000_000, perSeconds: 1 } });
  const orgId = svc.credentials.primary.organizationId;
  patientId = svc.service.labels.createPatient(orgId, 'Maple', 'dog');
  labelIds = Array.from({ length: 200 }, (_, i) =>
    svc.service.labels.create({
      organizationId: orgId,
      type: 'ClinicConversation',
      fromMs: Date.now() - i * MINUTE_MS,
      toMs: Date.now(),
      friendlyName: 'iPad',
      deviceSerial: 'X',
    }),
  );
});
afterAll(() => svc.dispose());

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

describe('the service under load', () => {
  it('answers every request of a mixed read/write load without error and logs every change', async () => {
    const orgId = svc.credentials.primary.organizationId;
    const authorization = `Bearer ${svc.credentials.primary.apiKey}`;
    const pool = new Pool(new URL(svc.baseUrl).origin, { connections: CONNECTIONS });
    const eventsBefore = svc.service.events.since(0, 1_000_000).length;
    const statuses = new Map<number, number>();
    const latencies: number[] = [];
    let assignsAnswered = 0;
    const deadline = Date.now() + DURATION_MS;

    // Each worker keeps one request in flight: one in three writes (an assignment, which logs
    // label_updated), the rest read.
    const worker = async (w: number) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const roll = (w + n) % 9;
        const started = performance.now();
        const assign = roll < 3;
        const labelId = labelIds[(w * 31 + n) % labelIds.length];
        const { statusCode, body } = await pool.request(
          assign
            ? {
                method: 'POST',
                path: `/api/labels/${labelId}/assign`,
                headers: { authorization, 'content-type': 'application/json' },
                body: JSON.stringify({ patientId }),
              }
            : {
                method: 'GET',
                path:
                  roll < 6
                    ? `/api/organizations/${orgId}/labels?limit=50`
                    : roll < 8
                      ? `/api/labels/${labelId}`
                      : '/api/auth/me',
                headers: { authorization },
              },
        );
        await body.dump();
        latencies.push(performance.now() - started);
        statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
        if (assign && statusCode === 200) assignsAnswered++;
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, (_, w) => worker(w)));
    await pool.close();

    latencies.sort((a, b) => a - b);
    console.log(
      `load: ${latencies.length} requests over ${CONNECTIONS} connections in ${DURATION_MS / 1000} s; ` +
        `p50 ${percentile(latencies, 0.5).toFixed(1)} ms, p99 ${percentile(latencies, 0.99).toFixed(1)} ms`,
    );
    expect(Object.fromEntries(statuses)).toEqual({ 200: latencies.length });
    expect(latencies.length).toBeGreaterThan(100);
    const logged = svc.service.events.since(0, 1_000_000).slice(eventsBefore);
    expect(logged.every((event) => event.type === 'label_updated')).toBe(true);
    expect(logged).toHaveLength(assignsAnswered);
  }, 30_000);
});

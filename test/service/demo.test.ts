import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MINUTE_MS,
  RECORD_TYPES,
  SOAP_NOTE_TYPE,
  type Conversation,
  type ConversationList,
  type Device,
  type Label,
  type Timeline,
} from '../../src/shared/api';
import { API_PREFIX, createService, type ClinicService } from '../../src/service/app';
import { seedDemo } from '../../src/service/demo/demo-seed';
import type { DemoCredentials } from '../../src/service/demo/identity-seed';

/** The demo is built for a fixed moment, with the service's clock held there: a Thursday afternoon. */
const NOW = new Date(2026, 10, 19, 15, 30).getTime();
const HOUR_MS = 60 * MINUTE_MS;
const STATUSES = ['ACTIVE', 'COMPLETED', 'PROCESSING', 'UPLOADED', 'FAILED', 'FILTERED'];
const HUB_TYPES = new Set<string>(['HubMic', 'HubBatch']);
const TRANSCRIPT_TYPES = new Set(['Transcript', 'NotesTranscript']);

let service: ClinicService;
let dataDir: string;
let baseUrl: string;
let credentials: DemoCredentials;
let orgId: string;
let devices: Device[];
let labels: Label[];
let detailed: Label[];

const call = (path: string, init: RequestInit = {}) => {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${credentials.primary.apiKey}`);
  return fetch(`${baseUrl}${path}`, { ...init, headers });
};

async function getJson<T>(path: string): Promise<T> {
  const response = await call(path);
  expect(response.status, `GET ${path}`).toBe(200);
  return (await response.json()) as T;
}

/** Local midnight `daysBack` days before NOW's day. */
const localMidnight = (daysBack: number) => {
  const d = new Date(NOW);
  d.setDate(d.getDate() - daysBack);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
};

const timeline = (deviceId: string, startMs: number, endMs: number) =>
  getJson<Timeline>(
    `/hub/conversations/timeline/${encodeURIComponent(deviceId)}?startMs=${startMs}&endMs=${endMs}`,
  );

const deviceNamed = (name: string) => {
  const device = devices.find((d) => d.displayName === name);
  expect(device, name).toBeDefined();
  return device!;
};

/** Runs `fn` over `items`, `width` at a time. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>) {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width)
    out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'earmark-demo-'));
  service = createService({ dataDir, now: () => NOW });
  credentials = seedDemo(service, NOW);
  orgId = credentials.primary.organizationId;
  baseUrl = `${await service.app.listen({ port: 0, host: '127.0.0.1' })}${API_PREFIX}`;
  devices = await getJson<Device[]>(`/devices?organizationId=${orgId}`);
  const response = await call(`/organizations/${orgId}/labels?limit=1000`);
  labels = (await response.json()) as Label[];
  expect(Number(response.headers.get('x-total-count'))).toBe(labels.length);
  detailed = await inBatches(labels, 16, (l) => getJson<Label>(`/labels/${l.id}`));
}, 60_000);

afterAll(async () => {
  await service?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('demo clinic: organization and devices', () => {
  it('is the Riverside clinic with three or four hub devices', async () => {
    const me = await getJson<{ organizationId: string; organizationName: string }>('/auth/me');
    expect(me.organizationId).toBe(orgId);
    expect(me.organizationName).toBe(credentials.primary.organizationName);
    expect(devices.length).toBeGreaterThanOrEqual(3);
    expect(devices.length).toBeLessThanOrEqual(4);
    expect(new Set(devices.map((d) => d.value)).size).toBe(devices.length);
    for (const d of devices) {
      expect(d.displayName).not.toBe('');
      expect(d.serial).not.toBe('');
    }
    expect(devices.map((d) => d.displayName)).toEqual(
      expect.arrayContaining(['Consult Room 1', 'Surgery Prep']),
    );
  });

  it("keeps the other organization's device out of the primary's list", async () => {
    const response = await fetch(`${baseUrl}/devices`, {
      headers: { authorization: `Bearer ${credentials.secondary.apiKey}` },
    });
    const theirs = (await response.json()) as Device[];
    expect(theirs.length).toBeGreaterThan(0);
    const ours = new Set(devices.map((d) => d.value));
    expect(theirs.some((d) => ours.has(d.value))).toBe(false);
  });
});

describe('demo clinic: records', () => {
  it('has about 300 labels covering all eight record types', async () => {
    expect(labels.length).toBeGreaterThanOrEqual(200);
    expect(labels.length).toBeLessThanOrEqual(400);
    expect(new Set(labels.map((l) => l.type))).toEqual(new Set(RECORD_TYPES));
    for (const type of RECORD_TYPES) {
      const response = await call(`/organizations/${orgId}/labels?limit=1&types=${type}`);
      const total = Number(response.headers.get('x-total-count'));
      expect(total, type).toBe(labels.filter((l) => l.type === type).length);
      expect(total, type).toBeGreaterThan(0);
    }
  });

  it('spreads the records over the past four weeks, none in the future', () => {
    const times = labels.map((l) => Date.parse(l.fromTime));
    expect(Math.max(...times)).toBeLessThanOrEqual(NOW);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(localMidnight(29));
    expect(Math.min(...times)).toBeLessThan(localMidnight(20));
    for (const l of labels) expect(Date.parse(l.toTime)).toBeGreaterThan(Date.parse(l.fromTime));
  });

  it('assigns a patient to most records not made by a hub', () => {
    const nonHub = labels.filter((l) => !HUB_TYPES.has(l.type));
    const assigned = nonHub.filter((l) => l.patient !== null && l.patient.name !== '');
    expect(nonHub.length).toBeGreaterThan(100);
    expect(assigned.length / nonHub.length).toBeGreaterThan(0.75);
  });

  it('keeps several versions of a transcript on some labels', () => {
    const versioned = detailed.filter((l) => {
      const counts = new Map<string, number>();
      for (const n of l.ownedPatientNotes ?? [])
        if (TRANSCRIPT_TYPES.has(n.type)) counts.set(n.type, (counts.get(n.type) ?? 0) + 1);
      return [...counts.values()].some((c) => c >= 2);
    });
    expect(versioned.length).toBeGreaterThan(0);
    for (const l of versioned) {
      const notes = (l.ownedPatientNotes ?? []).filter((n) => TRANSCRIPT_TYPES.has(n.type));
      const newest = notes.reduce((a, b) => (a.createdAt >= b.createdAt ? a : b));
      const oldest = notes.reduce((a, b) => (a.createdAt <= b.createdAt ? a : b));
      expect(Date.parse(newest.createdAt)).toBeGreaterThan(Date.parse(oldest.createdAt));
    }
    // Regeneration changed the text of at least one (a short script can come out the same).
    expect(
      versioned.some((l) => {
        const texts = (l.ownedPatientNotes ?? []).filter((n) => TRANSCRIPT_TYPES.has(n.type));
        return new Set(texts.map((n) => n.content)).size > 1;
      }),
    ).toBe(true);
  });

  it('stores transcripts as Transcript and NotesTranscript, and SOAP notes', () => {
    const notes = detailed.flatMap((l) => l.ownedPatientNotes ?? []);
    const types = new Set(notes.map((n) => n.type));
    expect(types.has('Transcript')).toBe(true);
    expect(types.has('NotesTranscript')).toBe(true);
    const soap = notes.filter((n) => n.type === SOAP_NOTE_TYPE);
    expect(soap.length).toBeGreaterThan(0);
    expect(soap.every((n) => /^S: .*\nO: .*\nA: .*\nP: /s.test(n.content))).toBe(true);
  });

  it('has a transcript still being generated (content "{}")', () => {
    const pending = detailed.filter((l) =>
      (l.ownedPatientNotes ?? []).some((n) => TRANSCRIPT_TYPES.has(n.type) && n.content === '{}'),
    );
    expect(pending.length).toBeGreaterThan(0);
    for (const l of pending) expect(Date.parse(l.fromTime)).toBeGreaterThan(NOW - 2 * 24 * HOUR_MS);
  });

  it('serves audio for at least 80% of records, as WAV and MP4', async () => {
    // Up to four labels of each type, spread over the list.
    const sample = RECORD_TYPES.flatMap((type) => {
      const ofType = labels.filter((l) => l.type === type);
      const step = Math.max(1, Math.floor(ofType.length / 4));
      return ofType.filter((_, i) => i % step === 0).slice(0, 4);
    });
    expect(sample.length).toBeGreaterThanOrEqual(28);
    const results = await inBatches(sample, 4, async (label) => {
      const response = await call(`/labels/${label.id}/audio`);
      // Read the whole body (a hub recording is megabytes of WAV) but keep only its first bytes.
      // Cancelling it instead would leave the server with a connection that blocks its close.
      const reader = response.body!.getReader();
      let head = Buffer.alloc(0);
      let length = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        length += value.length;
        if (head.length < 12) head = Buffer.concat([head, value]);
      }
      const type = response.headers.get('content-type') ?? '';
      if (response.status === 200) {
        expect(Number(response.headers.get('content-length'))).toBe(length);
        expect(length).toBeGreaterThan(44);
        expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="/);
      }
      const magic =
        type === 'audio/mp4'
          ? head.toString('ascii', 4, 8)
          : head.toString('ascii', 0, 4) + head.toString('ascii', 8, 12);
      return { label, status: response.status, type, magic };
    });
    for (const r of results) expect([200, 404], r.label.type).toContain(r.status);
    const counted = results.filter((r) => r.label.type !== 'AggregateLabel');
    const withAudio = counted.filter((r) => r.status === 200);
    expect(withAudio.length / counted.length).toBeGreaterThanOrEqual(0.8);
    const types = new Set(withAudio.map((r) => r.type));
    expect(types).toEqual(new Set(['audio/wav', 'audio/mp4']));
    for (const r of withAudio) expect(r.magic).toBe(r.type === 'audio/wav' ? 'RIFFWAVE' : 'ftyp');
    // Phone calls are the MP4 recordings.
    for (const r of withAudio)
      expect(r.type === 'audio/mp4', r.label.type).toBe(r.label.type === 'PhoneCallAudio');
  });
});

describe('demo clinic: hub', () => {
  it('has conversations in every status', async () => {
    const items: Conversation[] = [];
    let pageToken: string | undefined;
    let pages = 0;
    for (;;) {
      const query = new URLSearchParams({ pageSize: '20' });
      if (pageToken) query.set('pageToken', pageToken);
      const page = await getJson<ConversationList>(`/hub/conversations?${query}`);
      items.push(...page.items);
      pages++;
      if (!page.hasMore) {
        expect(page.nextPageToken).toBeUndefined();
        break;
      }
      expect(page.items).toHaveLength(20);
      pageToken = page.nextPageToken;
      expect(pageToken).toBeTruthy();
      expect(pages).toBeLessThan(100);
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(items.map((c) => c.conversationId)).size).toBe(items.length);
    expect(new Set(items.map((c) => c.status))).toEqual(new Set(STATUSES));
    const ours = new Set(devices.map((d) => d.value));
    expect(items.every((c) => ours.has(c.deviceId))).toBe(true);
    for (const c of items.filter((c) => c.status === 'UPLOADED')) {
      expect(c.isImportable).toBe(true);
      expect(c.transcriptText).toMatch(/^Speaker \d+: /);
    }
    for (const c of items.filter((c) => c.status === 'FAILED' || c.status === 'FILTERED')) {
      expect(c.isImportable).toBe(false);
      expect(c.notImportableReason).not.toBe('');
    }
  });

  it('records every one of the last seven days', async () => {
    for (const device of devices) {
      for (let back = 0; back <= 7; back++) {
        const start = localMidnight(back) + 9 * HOUR_MS;
        const { minutes } = await timeline(device.value, start, start + 6 * HOUR_MS);
        expect(minutes.length, `${device.displayName}, ${back} days back`).toBeGreaterThan(200);
      }
    }
  });

  it("has speech and silence in yesterday's clinic hours, diarized by speaker", async () => {
    const device = deviceNamed('Consult Room 1');
    const start = localMidnight(1) + 10 * HOUR_MS;
    const { minutes } = await timeline(device.value, start, start + 6 * HOUR_MS);
    expect(minutes.length).toBeGreaterThan(300);
    const speech = minutes.filter((m) => !m.vadIsSilent);
    const silent = minutes.filter((m) => m.vadIsSilent);
    expect(speech.length).toBeGreaterThan(10);
    expect(silent.length).toBeGreaterThan(10);
    for (const m of minutes) {
      expect(m.minuteStartMs % MINUTE_MS).toBe(0);
      expect(m.minuteStartMs).toBeGreaterThanOrEqual(start);
      expect(m.minuteStartMs).toBeLessThan(start + 6 * HOUR_MS);
      expect(m.vadIsSilent).toBe(m.vadSpeechDurationMs === 0);
    }
    for (const m of speech) {
      expect(m.vadSpeechDurationMs).toBeGreaterThan(0);
      expect(m.vadSpeechDurationMs).toBeLessThanOrEqual(MINUTE_MS);
      expect(m.transcriptText).not.toBe('');
      for (const line of m.diarizedTranscriptText.split('\n')) expect(line).toMatch(/^Speaker /);
    }
    for (const m of silent) expect(m.diarizedTranscriptText).toBe('');
  });

  it('has Surgery Prep switched off at night while Consult Room 1 records', async () => {
    const threeAm = localMidnight(1) + 3 * HOUR_MS;
    const window = [threeAm - HOUR_MS, threeAm + HOUR_MS] as const;
    const prep = await timeline(deviceNamed('Surgery Prep').value, ...window);
    const room = await timeline(deviceNamed('Consult Room 1').value, ...window);
    expect(prep.minutes).toEqual([]);
    expect(room.minutes).toHaveLength(120);
    expect(room.minutes.some((m) => m.minuteStartMs === threeAm)).toBe(true);
    // ...and Surgery Prep does record in the day.
    const day = await timeline(
      deviceNamed('Surgery Prep').value,
      threeAm + 6 * HOUR_MS,
      threeAm + 9 * HOUR_MS,
    );
    expect(day.minutes.length).toBeGreaterThan(0);
  });

  it('has no hub data after the present moment', async () => {
    const device = deviceNamed('Consult Room 1');
    const { minutes } = await timeline(device.value, NOW - HOUR_MS, NOW + HOUR_MS);
    expect(minutes.length).toBeGreaterThan(0);
    expect(minutes.every((m) => m.minuteStartMs < NOW)).toBe(true);
  });
});

describe('the demo at any day and hour', () => {
  it.each([
    ['a Sunday afternoon', new Date(2026, 10, 22, 14, 0)],
    ['a Monday before opening', new Date(2026, 10, 23, 8, 0)],
    ['just after midnight', new Date(2026, 10, 20, 0, 5)],
  ])('has conversations in every status when seeded on %s', (_, when) => {
    const folder = mkdtempSync(join(tmpdir(), 'earmark-demo-when-'));
    const at = createService({ dataDir: folder, now: () => when.getTime() });
    try {
      const { primary } = seedDemo(at, when.getTime());
      const statuses = at.db
        .prepare('SELECT DISTINCT status FROM conversations WHERE organization_id = ?')
        .all(primary.organizationId)
        .map((row) => (row as { status: string }).status);
      expect(statuses.sort()).toEqual([...STATUSES].sort());
    } finally {
      void at.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

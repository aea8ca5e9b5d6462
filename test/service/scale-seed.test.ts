import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, RECORD_TYPES, SOAP_NOTE_TYPE } from '../../src/shared/api';
import { API_PREFIX, createService, type ClinicService } from '../../src/service/app';
import type { LabelStore } from '../../src/service/db/label-store';
import {
  appendWithheldDay,
  buildScaleSeed,
  seedScale,
  startScaleSeed,
} from '../../src/service/demo/scale-seed';
import { HOSPITAL_PATIENT_COUNT } from '../../src/service/demo/hospital-people';
import {
  HOSPITAL_DAYS,
  HOSPITAL_DEVICES,
  addLocalDays,
  dayStartOf,
  hospitalPlan,
} from '../../src/service/hub/hospital';

/** Every scale seed of this file is built for the same moment, with the service's clock there. */
const NOW = new Date(2026, 10, 19, 15, 30).getTime();
const TODAY = new Date(2026, 10, 19).getTime();

const folders: string[] = [];
const services: ClinicService[] = [];

function freshService(): ClinicService {
  const dataDir = mkdtempSync(join(tmpdir(), 'earmark-scale-seed-'));
  folders.push(dataDir);
  const service = createService({ dataDir, now: () => NOW });
  services.push(service);
  return service;
}

afterAll(async () => {
  for (const service of services) await service.close().catch(() => undefined);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Days whose minutes the digests read: the first, one in the middle, the last two. */
const SAMPLE_DAYS = [0, 500, HOSPITAL_DAYS - 2, HOSPITAL_DAYS - 1];

/**
 * A digest of what a scale seed holds: records, their notes and audio, conversations, patients,
 * and the minutes of every device on the sample days. Staff are named by e-mail: organizations,
 * users and keys are random in every seed (keys are secrets), so their ids are left out.
 */
function digest(service: ClinicService): string {
  const hash = createHash('sha256');
  const rows = (sql: string) => {
    for (const row of service.db.prepare(sql).iterate()) hash.update(JSON.stringify(row));
  };
  rows(`SELECT l.id, l.type, l.from_ms, l.to_ms, l.patient_id, u.email, l.friendly_name, l.device_serial
          FROM labels l LEFT JOIN users u ON u.id = l.user_id ORDER BY l.id`);
  rows('SELECT label_id, type, content, created_ms, time_ms FROM notes ORDER BY label_id, id');
  rows('SELECT * FROM label_audio ORDER BY label_id');
  rows(`SELECT id, device_id, start_ms, end_ms, status, speech_minute_count, origin,
          not_importable_reason, transcript_text, label_id, created_ms FROM conversations ORDER BY id`);
  rows('SELECT id, name, species FROM patients ORDER BY id');
  const plan = hospitalPlan(1, NOW);
  for (const day of SAMPLE_DAYS) {
    const startMs = dayStartOf(plan, day);
    for (const device of HOSPITAL_DEVICES) {
      hash.update(
        JSON.stringify(service.hub.minutes(device.id, startMs, addLocalDays(startMs, 1))),
      );
    }
  }
  return hash.digest('hex');
}

const count = (service: ClinicService, sql: string, ...params: unknown[]) =>
  (service.db.prepare(sql).get(...params) as { n: number }).n;

describe('the scale seed is deterministic', () => {
  const N = 3000;
  let first: string;

  it('builds the same data for the same N, twice in fresh folders, ids included', () => {
    const a = freshService();
    seedScale(a, N, NOW);
    const b = freshService();
    seedScale(b, N, NOW);
    expect(count(a, 'SELECT count(*) AS n FROM labels')).toBe(N);
    first = digest(a);
    expect(digest(b)).toBe(first);
    // The ids are the same ones, not merely the same number of rows.
    const ids = (s: ClinicService) =>
      s.db.prepare('SELECT id FROM labels ORDER BY from_ms DESC LIMIT 5').pluck().all();
    expect(ids(b)).toEqual(ids(a));
  });

  it('builds other data for another N', () => {
    const other = freshService();
    seedScale(other, N + 1, NOW);
    expect(count(other, 'SELECT count(*) AS n FROM labels')).toBe(N + 1);
    expect(digest(other)).not.toBe(first);
  });

  it('builds the same data with its last day withheld and then appended', () => {
    const service = freshService();
    seedScale(service, N, NOW, { withheldDays: 1 });
    const lastDayMs = dayStartOf(hospitalPlan(N, NOW), HOSPITAL_DAYS - 1);
    expect(count(service, 'SELECT count(*) AS n FROM labels WHERE from_ms >= ?', lastDayMs)).toBe(
      0,
    );
    const added = appendWithheldDay(service);
    expect(added).toBeGreaterThan(0);
    expect(count(service, 'SELECT count(*) AS n FROM labels')).toBe(N);
    expect(digest(service)).toBe(first);
    expect(() => appendWithheldDay(service)).toThrow(/no withheld day/);
  });
  it('resumes a seed stopped part-way and builds the same data', () => {
    // Enough records for several transactions (of 10,000 rows each).
    const records = 12_000;
    const whole = freshService();
    seedScale(whole, records, NOW);
    const service = freshService();
    startScaleSeed(service, records, NOW);
    // The process dies while writing: after 6,000 records, the next write throws.
    let written = 0;
    const dying = Object.create(service.labels, {
      create: {
        value: (input: Parameters<LabelStore['create']>[0]) => {
          if (++written > 6000) throw new Error('killed');
          return service.labels.create(input);
        },
      },
    }) as LabelStore;
    expect(() => buildScaleSeed({ ...service, labels: dying })).toThrow('killed');
    const kept = count(service, 'SELECT count(*) AS n FROM labels');
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThan(6000);
    expect(buildScaleSeed(service)).toBeGreaterThan(0);
    expect(count(service, 'SELECT count(*) AS n FROM labels')).toBe(records);
    expect(digest(service)).toBe(digest(whole));
    // Two seeds of 12,000 records: 7 s alone on 2 cores, 27 s beside a benchmark.
  }, 60_000);
});

describe('a hospital of 20,000 records', () => {
  const N = 20_000;
  let service: ClinicService;
  beforeAll(() => {
    service = freshService();
    seedScale(service, N, NOW);
  });
  const all = <T>(sql: string, ...params: unknown[]) =>
    service.db.prepare(sql).all(...params) as T[];

  it('holds exactly N records over three years, up to yesterday', () => {
    const [span] = all<{ n: number; first: number; last: number }>(
      'SELECT count(*) AS n, min(from_ms) AS first, max(from_ms) AS last FROM labels',
    );
    expect(span!.n).toBe(N);
    expect(span!.first).toBeGreaterThanOrEqual(addLocalDays(TODAY, -HOSPITAL_DAYS));
    expect(span!.first).toBeLessThan(addLocalDays(TODAY, -HOSPITAL_DAYS + 2));
    expect(span!.last).toBeLessThan(TODAY);
    expect(span!.last).toBeGreaterThanOrEqual(addLocalDays(TODAY, -1));
  });

  it('has every record type, hub records from all ten devices in the demo proportions', () => {
    const types = new Map(
      all<{ type: string; n: number }>('SELECT type, count(*) AS n FROM labels GROUP BY type').map(
        (r) => [r.type, r.n],
      ),
    );
    expect([...types.keys()].sort()).toEqual([...RECORD_TYPES].sort());
    const hub = (types.get('HubMic') ?? 0) + (types.get('HubBatch') ?? 0);
    expect(hub / N).toBeGreaterThan(0.65);
    expect(hub / N).toBeLessThan(0.72);
    expect(types.get('HubBatch')! / hub).toBeGreaterThan(0.15);
    expect(types.get('HubBatch')! / hub).toBeLessThan(0.25);
    for (const type of ['PhoneCallAudio', 'DictationAudio', 'ClinicConversation'])
      expect(types.get(type), type).toBeGreaterThan(N / 50);

    const byDevice = all<{ device_serial: string; n: number }>(
      "SELECT device_serial, count(*) AS n FROM labels WHERE type IN ('HubMic', 'HubBatch') GROUP BY 1",
    );
    expect(byDevice.map((d) => d.device_serial).sort()).toEqual(
      HOSPITAL_DEVICES.map((d) => d.serial).sort(),
    );
    for (const device of byDevice) expect(device.n).toBeGreaterThan(hub / 40);
  });

  it('has a conversation for every hub record, and filtered and failed ones', () => {
    const statuses = new Map(
      all<{ status: string; n: number }>(
        'SELECT status, count(*) AS n FROM conversations GROUP BY status',
      ).map((r) => [r.status, r.n]),
    );
    const hub = count(
      service,
      "SELECT count(*) AS n FROM labels WHERE type IN ('HubMic', 'HubBatch')",
    );
    expect(statuses.get('UPLOADED')).toBe(hub);
    expect(statuses.get('FILTERED')).toBeGreaterThan(0);
    expect(statuses.get('FAILED')).toBeGreaterThan(0);
    expect(
      count(
        service,
        `SELECT count(*) AS n FROM conversations c JOIN labels l ON l.id = c.label_id
           WHERE c.start_ms = l.from_ms AND c.end_ms = l.to_ms AND c.device_id IN (${HOSPITAL_DEVICES.map((d) => `'${d.id}'`).join(',')})`,
      ),
    ).toBe(hub);
  });

  it('varies its transcripts and notes, names thousands of patients, writes SOAP notes', () => {
    const transcripts = all<{ n: number; d: number }>(
      "SELECT count(*) AS n, count(DISTINCT content) AS d FROM notes WHERE type IN ('Transcript', 'NotesTranscript')",
    )[0]!;
    expect(transcripts.n).toBeGreaterThan(N * 0.95);
    expect(transcripts.d / transcripts.n).toBeGreaterThan(0.9);
    const soap = all<{ n: number; d: number }>(
      'SELECT count(*) AS n, count(DISTINCT content) AS d FROM notes WHERE type = ?',
      SOAP_NOTE_TYPE,
    )[0]!;
    expect(soap.n).toBeGreaterThan(N / 20);
    expect(soap.d / soap.n).toBeGreaterThan(0.9);
    expect(
      all(
        'SELECT * FROM notes WHERE type = ? AND content LIKE ?',
        SOAP_NOTE_TYPE,
        'S: %\nO: %\nA: %\nP: %',
      ),
    ).toHaveLength(soap.n);
    expect(count(service, 'SELECT count(*) AS n FROM patients')).toBe(HOSPITAL_PATIENT_COUNT);
    expect(
      count(
        service,
        'SELECT count(DISTINCT patient_id) AS n FROM labels WHERE patient_id IS NOT NULL',
      ),
    ).toBeGreaterThan(2500);
    // A patient's pet name is what its transcript calls it.
    const [named] = all<{ content: string; name: string }>(
      `SELECT n.content, p.name FROM labels l JOIN notes n ON n.label_id = l.id JOIN patients p ON p.id = l.patient_id
         WHERE l.type = 'ClinicConversation' AND n.type = 'Transcript' LIMIT 1`,
    );
    expect(named!.content).toContain(named!.name.split(' ')[0]);
  });

  it('gives the newest week audio, and the history none', () => {
    const weekAgo = addLocalDays(TODAY, -7);
    const newest = count(service, 'SELECT count(*) AS n FROM labels WHERE from_ms >= ?', weekAgo);
    const withAudio = count(
      service,
      'SELECT count(*) AS n FROM labels l JOIN label_audio a ON a.label_id = l.id WHERE l.from_ms >= ?',
      weekAgo,
    );
    expect(withAudio).toBeGreaterThan(newest * 0.8);
    expect(
      count(
        service,
        'SELECT count(*) AS n FROM labels l JOIN label_audio a ON a.label_id = l.id WHERE l.from_ms < ?',
        addLocalDays(TODAY, -8),
      ),
    ).toBe(0);
  });

  it('serves the minutes a hub record was made from, computed rather than stored', () => {
    expect(count(service, 'SELECT count(*) AS n FROM hub_minutes')).toBe(0);
    const [record] = all<{
      from_ms: number;
      to_ms: number;
      device_serial: string;
      content: string;
    }>(
      `SELECT l.from_ms, l.to_ms, l.device_serial, n.content FROM labels l JOIN notes n ON n.label_id = l.id
         WHERE l.type = 'HubMic' ORDER BY l.from_ms LIMIT 1 OFFSET 5000`,
    );
    const device = HOSPITAL_DEVICES.find((d) => d.serial === record!.device_serial)!;
    const minutes = service.hub.minutes(device.id, record!.from_ms, record!.to_ms);
    expect(minutes.length).toBe((record!.to_ms - record!.from_ms) / MINUTE_MS);
    expect(
      minutes
        .map((m) => m.diarized)
        .filter((text) => text !== '')
        .join('\n'),
    ).toBe(record!.content);
    // A whole day of a device recording around the clock; none before the history began.
    const dayMs = addLocalDays(TODAY, -200);
    const ward = HOSPITAL_DEVICES.find((d) => d.id === 'hub-ward')!;
    const day = service.hub.minutes(ward.id, dayMs, addLocalDays(dayMs, 1));
    expect(day.length).toBe((addLocalDays(dayMs, 1) - dayMs) / MINUTE_MS);
    expect(day.filter((m) => m.speech_ms > 0).length).toBeGreaterThan(0);
    const before = addLocalDays(TODAY, -HOSPITAL_DAYS - 1);
    expect(service.hub.minutes(ward.id, before, addLocalDays(before, 1))).toEqual([]);
    // Today, up to now: the hubs keep recording.
    const today = service.hub.minutes(ward.id, TODAY, addLocalDays(TODAY, 1));
    expect(today.at(-1)!.minute_ms).toBe(NOW - (NOW % MINUTE_MS) - MINUTE_MS);
  });
});

describe.each(['seed', 'field'] as const)('served in the %s dialect', (dialect) => {
  it('lists the records, gives their notes and the devices’ timelines', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'earmark-scale-seed-'));
    folders.push(dataDir);
    const service = createService({ dataDir, dialect });
    services.push(service);
    const credentials = seedScale(service, 2000, Date.now());
    const baseUrl = `${await service.app.listen({ port: 0, host: '127.0.0.1' })}${API_PREFIX}`;
    const get = async (path: string) => {
      const response = await fetch(`${baseUrl}${path}`, {
        headers: { authorization: `Bearer ${credentials.primary.apiKey}` },
      });
      expect(response.status, path).toBe(200);
      return {
        body: (await response.json()) as unknown,
        total: response.headers.get('x-total-count'),
      };
    };
    const org = credentials.primary.organizationId;
    const list = await get(`/organizations/${org}/labels?limit=50`);
    expect(list.total).toBe('2000');
    const rows = list.body as { id: string; type: string }[];
    const withSoap = await Promise.all(
      rows.map(
        async (row) =>
          (await get(`/labels/${row.id}`)).body as {
            ownedPatientNotes: { type: string; content: string }[];
          },
      ),
    );
    const notes = withSoap.flatMap((label) => label.ownedPatientNotes);
    expect(notes.some((n) => n.type === 'Transcript' && n.content.length > 100)).toBe(true);
    const devices = (await get(`/devices?organizationId=${org}`)).body as { value: string }[];
    expect(devices.map((d) => d.value)).toEqual(
      expect.arrayContaining(HOSPITAL_DEVICES.map((d) => d.id)),
    );
    // The timeline around the newest hub record: the visit's speech.
    const [hubRecord] = (await get(`/organizations/${org}/labels?limit=1&types=HubMic`)).body as {
      fromTime: string | number;
      toTime: string | number;
      deviceSerial: string;
    }[];
    const device = HOSPITAL_DEVICES.find((d) => d.serial === hubRecord!.deviceSerial)!;
    const [fromMs, toMs] = [hubRecord!.fromTime, hubRecord!.toTime].map((t) =>
      new Date(t).getTime(),
    );
    const timeline = (
      await get(`/hub/conversations/timeline/${device.id}?startMs=${fromMs}&endMs=${toMs}`)
    ).body as { minutes: { vadIsSilent: boolean }[] };
    expect(timeline.minutes).toHaveLength((toMs! - fromMs!) / MINUTE_MS);
    expect(timeline.minutes.filter((m) => !m.vadIsSilent).length).toBeGreaterThan(1);
  });
});

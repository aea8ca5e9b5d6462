import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOTAL_COUNT_HEADER } from '../../src/shared/api';
import { parseSoap } from '../../src/shared/record/soap';
import { seedLabel } from '../main/audio/fixtures';
import { startService, type RunningService } from './harness';

/**
 * The reference service's field dialect (issue 18): each difference from the seed's letter that
 * public integrations report of the real service, side by side with the seed dialect.
 */
const SOAP = 'S: Coughing.\nO: Harsh lung sounds.\nA: Kennel cough.\nP: Rest.';
let field: RunningService;
let seed: RunningService;
const ids: Record<'field' | 'seed', string> = { field: '', seed: '' };

beforeAll(async () => {
  [field, seed] = await Promise.all([startService({ dialect: 'field' }), startService()]);
  for (const [name, svc] of [
    ['field', field],
    ['seed', seed],
  ] as const) {
    ids[name] = seedLabel(svc.service, svc.credentials.primary.organizationId, {
      fromMs: Date.UTC(2026, 10, 23, 10, 0),
      notes: [
        ['Transcript', 'Vet: Hello.', 1],
        ['SOAP', SOAP, 2],
      ],
    });
  }
});
afterAll(async () => {
  await Promise.all([field?.dispose(), seed?.dispose()]);
});

const get = async (svc: RunningService, path: string) => {
  const response = await svc.call(path.replace('ORG', svc.credentials.primary.organizationId), {
    key: svc.credentials.primary.apiKey,
  });
  return { response, body: (await response.json()) as unknown };
};
type Row = Record<string, unknown> & {
  ownedPatientNotes: { type: string; content: string }[] | null;
};

describe('the field dialect', () => {
  it('sends record times as epoch milliseconds', async () => {
    const list = (await get(field, '/organizations/ORG/labels')).body as Row[];
    expect(list[0]).toMatchObject({
      fromTime: Date.UTC(2026, 10, 23, 10, 0),
      ownedPatientNotes: null,
    });
    const seedList = (await get(seed, '/organizations/ORG/labels')).body as Row[];
    expect(seedList[0]!.fromTime).toBe('2026-11-23T10:00:00.000Z');
  });

  it('gives records time-ordered ids (UUIDv7), in both dialects', () => {
    for (const id of [ids.field, ids.seed]) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      // The first 48 bits are when the record was made (this run), in milliseconds.
      const madeMs = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
      expect(Math.abs(madeMs - Date.now())).toBeLessThan(10 * 60_000);
    }
  });

  it('sends the SOAP note as a JSON document, which reads as the same sections', async () => {
    const label = (await get(field, `/labels/${ids.field}`)).body as Row;
    const soap = label.ownedPatientNotes!.find((note) => note.type === 'SOAP')!;
    expect(JSON.parse(soap.content)).toEqual({
      clinical_note: {
        subjective: { value: 'Coughing.' },
        objective: { value: 'Harsh lung sounds.' },
        assessment: { value: 'Kennel cough.' },
        plan: { value: 'Rest.' },
      },
    });
    expect(parseSoap(soap.content)).toEqual(parseSoap(SOAP));
    expect(label.toTime).toBe(Date.UTC(2026, 10, 23, 10, 2));
  });

  it('matches nothing for an unknown type, ignores types[]= and unknown parameters', async () => {
    const unknown = await get(field, '/organizations/ORG/labels?types=Nonsense');
    expect(unknown.response.status).toBe(200);
    expect(unknown.body).toEqual([]);
    expect(unknown.response.headers.get(TOTAL_COUNT_HEADER)).toBe('0');
    const empty = await get(field, '/organizations/ORG/labels?types[]=&whatever=1');
    expect(empty.response.status).toBe(200);
    expect((empty.body as Row[]).length).toBe(1);
    // The seed dialect refuses both.
    expect((await get(seed, '/organizations/ORG/labels?types=Nonsense')).response.status).toBe(400);
    expect((await get(seed, '/organizations/ORG/labels?whatever=1')).response.status).toBe(400);
  });

  it('lists sign-ins among the devices, and more fields on the hubs', async () => {
    const devices = (await get(field, '/devices?organizationId=ORG')).body as Row[];
    const hubs = devices.filter((d) => d.deviceType === 'HUB');
    const others = devices.filter((d) => d.deviceType !== 'HUB');
    expect(hubs.length).toBeGreaterThan(0);
    expect(hubs[0]).toMatchObject({
      lastReportAt: expect.any(String),
      firmwareVersions: expect.any(Object),
    });
    expect(others.map((d) => d.deviceType).sort()).toEqual(['PHONE', 'WEB']);
    const seedDevices = (await get(seed, '/devices?organizationId=ORG')).body as Row[];
    expect(seedDevices.length).toBe(hubs.length);
    expect(Object.keys(seedDevices[0]!).sort()).toEqual(['displayName', 'serial', 'value']);
  });

  it('sends audio without an ETag', async () => {
    const audio = (svc: RunningService, id: string) =>
      svc.call(`/labels/${id}/audio`, {
        key: svc.credentials.primary.apiKey,
        headers: { range: 'bytes=0-15' },
      });
    const fromField = await audio(field, ids.field);
    expect(fromField.status).toBe(206);
    expect(fromField.headers.get('etag')).toBeNull();
    expect((await audio(seed, ids.seed)).headers.get('etag')).not.toBeNull();
    await fromField.arrayBuffer();
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS, type Label, type RecordType } from '../../src/shared/api';
import { recipeByteLength, type AudioRecipe } from '../../src/service/audio/recipe';
import { watchPrepared } from '../support/prepared';
import { problemOf, startService, type RunningService } from './harness';

let svc: RunningService;
let orgId: string;
let key: string;
const HOUR = 60 * MINUTE_MS;
const T0 = Date.UTC(2026, 9, 1, 8, 0, 0);

/** Fixture: labels at known times, types and patients. */
const fixture: {
  id: string;
  type: RecordType;
  fromMs: number;
  patient: string | null;
  userIndex: number;
}[] = [];
let patients: Record<string, string>;
let staff: string[];

beforeAll(async () => {
  svc = await startService();
  orgId = svc.credentials.primary.organizationId;
  key = svc.credentials.primary.apiKey;
  const { labels, identity } = svc.service;
  patients = Object.fromEntries(
    ['Maple', 'Rocky', 'Ångström', 'bella'].map((name) => [
      name,
      labels.createPatient(orgId, name, 'dog'),
    ]),
  );
  staff = [
    identity.userByEmail(svc.credentials.admin.email)!.id,
    identity.createUser({ email: 'vet2@example.com', displayName: 'Vet Two', password: 'pw' }),
  ];
  const plan: [RecordType, number, string | null, number][] = [
    ['ClinicConversation', 0, 'Maple', 0],
    ['DictationAudio', 1, 'Rocky', 1],
    ['PhoneCallAudio', 2, 'Maple', 0],
    ['HubMic', 3, null, 0],
    ['HubBatch', 4, 'bella', 1],
    ['AggregateLabel', 5, 'Ångström', 0],
    ['ClinicConversation', 6, 'Rocky', 1],
    ['ButtonRecording', 7, null, 0],
  ];
  for (const [type, hours, patient, userIndex] of plan) {
    const fromMs = T0 + hours * HOUR;
    const id = labels.create({
      organizationId: orgId,
      type,
      fromMs,
      toMs: fromMs + 10 * MINUTE_MS,
      patientId: patient ? patients[patient] : null,
      userId: staff[userIndex],
      friendlyName: 'Exam Room iPad',
      deviceSerial: 'IPAD-1',
    });
    fixture.push({ id, type, fromMs, patient, userIndex });
  }
});
afterAll(() => svc.dispose());

const list = async (query: string) => {
  const response = await svc.call(`/organizations/${orgId}/labels?${query}`, { key });
  expect(response.status).toBe(200);
  return {
    labels: (await response.json()) as Label[],
    total: Number(response.headers.get('x-total-count')),
  };
};
const ids = (labels: Label[]) => labels.map((l) => l.id);
const byTime = (descending: boolean) =>
  [...fixture]
    .sort((a, b) => (descending ? b.fromMs - a.fromMs : a.fromMs - b.fromMs))
    .map((f) => f.id);

describe('GET /organizations/{orgId}/labels (seed §4.2)', () => {
  it('lists newest first by default with X-Total-Count', async () => {
    const { labels, total } = await list('');
    expect(total).toBe(fixture.length);
    expect(ids(labels)).toEqual(byTime(true));
    expect(labels[0]).toMatchObject({
      ownedPatientNotes: null,
      friendlyName: 'Exam Room iPad',
      deviceSerial: 'IPAD-1',
    });
    expect(labels[0]!.fromTime).toBe(new Date(fixture[7]!.fromMs).toISOString());
  });

  it('pages with limit and offset without overlap, the total unchanged', async () => {
    const pages = [];
    for (let offset = 0; offset < fixture.length; offset += 3) {
      const page = await list(`limit=3&offset=${offset}&isSortingDescending=false`);
      expect(page.total).toBe(fixture.length);
      pages.push(...ids(page.labels));
    }
    expect(pages).toEqual(byTime(false));
    expect((await list(`offset=${fixture.length}`)).labels).toEqual([]);
  });

  it('sorts by type and by patient, either direction, patients missing last', async () => {
    const byType = (await list('sortingProperty=Type&isSortingDescending=false')).labels.map(
      (l) => l.type,
    );
    expect(byType).toEqual([...byType].sort());
    const byTypeDesc = (await list('sortingProperty=Type&isSortingDescending=true')).labels.map(
      (l) => l.type,
    );
    expect(byTypeDesc).toEqual([...byType].reverse());
    const names = (await list('sortingProperty=Patient&isSortingDescending=false')).labels.map(
      (l) => l.patient?.name ?? null,
    );
    // NOCASE folds ASCII only, so Å sorts after every ASCII letter.
    expect(names).toEqual(['bella', 'Maple', 'Maple', 'Rocky', 'Rocky', 'Ångström', null, null]);
    const namesDesc = (await list('sortingProperty=Patient&isSortingDescending=true')).labels.map(
      (l) => l.patient?.name ?? null,
    );
    expect(namesDesc.slice(-2)).toEqual([null, null]);
    expect(namesDesc.filter((n) => n !== null)).toEqual(names.filter((n) => n !== null).reverse());
  });

  it('filters by one type or by several types sent as repeated parameters', async () => {
    const one = await list('types=ClinicConversation');
    expect(one.total).toBe(2);
    expect(one.labels.every((l) => l.type === 'ClinicConversation')).toBe(true);
    const two = await list('types=HubMic&types=HubBatch');
    expect(two.total).toBe(2);
    expect(two.labels.map((l) => l.type).sort()).toEqual(['HubBatch', 'HubMic']);
  });

  it('refuses the types[]= form instead of silently ignoring it', async () => {
    const response = await svc.call(`/organizations/${orgId}/labels?types[]=HubMic`, { key });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toContain('types[]');
  });

  it('filters on record start, fromTime inclusive and toTime exclusive', async () => {
    const from = new Date(T0 + 2 * HOUR).toISOString();
    const to = new Date(T0 + 5 * HOUR).toISOString();
    const { labels, total } = await list(`fromTime=${from}&toTime=${to}&isSortingDescending=false`);
    expect(total).toBe(3);
    expect(labels.map((l) => l.fromTime)).toEqual(
      [2, 3, 4].map((h) => new Date(T0 + h * HOUR).toISOString()),
    );
  });

  it('searches patients by name, case-insensitively, with wildcards taken literally', async () => {
    expect((await list('patientSearch=MAP')).total).toBe(2);
    expect((await list('patientSearch=%25')).total).toBe(0);
    expect((await list('patientSearch=_')).total).toBe(0);
  });

  it('filters by the recording user (userId)', async () => {
    const { labels, total } = await list(`userId=${staff[1]}`);
    expect(total).toBe(fixture.filter((f) => f.userIndex === 1).length);
    expect(ids(labels).sort()).toEqual(
      fixture
        .filter((f) => f.userIndex === 1)
        .map((f) => f.id)
        .sort(),
    );
  });

  it('refuses toTime before fromTime', async () => {
    const response = await svc.call(
      `/organizations/${orgId}/labels?fromTime=2026-10-02T00:00:00Z&toTime=2026-10-01T00:00:00Z`,
      { key },
    );
    expect(response.status).toBe(400);
    expect((await problemOf(response)).detail).toContain('toTime');
  });
});

describe('the listing’s SQL', () => {
  it('reads a page in the index’s order, and counts without the patients unless it searches them', async () => {
    // A service of its own, so each listing's text is prepared (seen) here first.
    const own = await startService();
    try {
      const prepared = watchPrepared(own.service.db);
      const { organizationId, apiKey } = own.credentials.primary;
      for (const query of ['toTime=2026-12-01T00:00:00Z', 'types=HubMic&isSortingDescending=false'])
        expect(
          (await own.call(`/organizations/${organizationId}/labels?${query}`, { key: apiKey }))
            .status,
        ).toBe(200);
      prepared.stop();
      const params = { organizationId, toMs: 0, type0: 'HubMic', limit: 50, offset: 0 };
      const plan = (sql: string) => prepared.plan(sql, params);
      const pages = prepared.texts.filter((sql) => sql.includes('LIMIT @limit'));
      const counts = prepared.texts.filter((sql) => sql.includes('count(*)'));
      expect(pages).toHaveLength(2);
      expect(counts).toHaveLength(2);
      // A million labels were sorted for every page when the order repeated from_ms.
      for (const sql of pages) expect(plan(sql)).not.toContain('TEMP B-TREE');
      for (const sql of counts) expect(sql).not.toContain('patients');
    } finally {
      await own.dispose();
    }
  });
});

describe('GET /labels/{labelId}', () => {
  it('returns every note version, append-only', async () => {
    const label = fixture[0]!;
    const { labels } = svc.service;
    labels.addNote(label.id, {
      type: 'Transcript',
      content: 'first pass',
      createdMs: T0 + HOUR,
      timeMs: T0 + HOUR,
    });
    labels.addNote(label.id, {
      type: 'SOAP',
      content: 'S: ...',
      createdMs: T0 + HOUR,
      timeMs: T0 + HOUR,
    });
    labels.addNote(label.id, {
      type: 'Transcript',
      content: 'regenerated',
      createdMs: T0 + 2 * HOUR,
      timeMs: T0 + 2 * HOUR,
    });
    const response = await svc.call(`/labels/${label.id}`, { key });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Label;
    expect(body.ownedPatientNotes).toHaveLength(3);
    expect(
      body
        .ownedPatientNotes!.filter((n) => n.type === 'Transcript')
        .map((n) => n.content)
        .sort(),
    ).toEqual(['first pass', 'regenerated']);
    expect(body.patient).toEqual({ id: patients.Maple, name: 'Maple' });
  });

  it('answers 404 for an unknown label', async () => {
    const response = await svc.call('/labels/00000000-0000-4000-8000-000000000000', { key });
    expect(response.status).toBe(404);
    expect((await problemOf(response)).code).toBe('not_found');
  });
});

describe('POST /labels/{labelId}/assign', () => {
  it('assigns a patient and logs label_updated', async () => {
    const label = fixture[3]!;
    const response = await svc.call(`/labels/${label.id}/assign`, {
      key,
      method: 'POST',
      json: { patientId: patients.Rocky },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as Label).patient).toEqual({
      id: patients.Rocky,
      name: 'Rocky',
    });
    const stored = (await (await svc.call(`/labels/${label.id}`, { key })).json()) as Label;
    expect(stored.patient?.name).toBe('Rocky');
    const events = svc.service.events.since(0).filter((e) => e.type === 'label_updated');
    expect(events.map((e) => e.data.labelId)).toContain(label.id);
  });

  it("answers 404 for an unknown patient or another organization's", async () => {
    const label = fixture[1]!;
    const unknown = await svc.call(`/labels/${label.id}/assign`, {
      key,
      method: 'POST',
      json: { patientId: 'nope' },
    });
    expect(unknown.status).toBe(404);
    const foreign = svc.service.labels.createPatient(
      svc.credentials.secondary.organizationId,
      'Elsewhere',
      'cat',
    );
    const response = await svc.call(`/labels/${label.id}/assign`, {
      key,
      method: 'POST',
      json: { patientId: foreign },
    });
    expect(response.status).toBe(404);
    expect(
      ((await (await svc.call(`/labels/${label.id}`, { key })).json()) as Label).patient?.name,
    ).toBe('Rocky');
  });

  it('requires patientId', async () => {
    const response = await svc.call(`/labels/${fixture[1]!.id}/assign`, {
      key,
      method: 'POST',
      json: {},
    });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).errors?.[0]).toMatchObject({
      location: 'body',
      pointer: '/patientId',
      message: 'is required',
    });
  });
});

describe('GET /labels/{labelId}/audio', () => {
  const recipe: AudioRecipe = {
    sampleRate: 8000,
    samples: 8000 * 5,
    clips: [['consult-vaccination-00', 4000]],
  };
  let wavLabel: string;
  let mp4Label: string;
  let full: Buffer;

  beforeAll(async () => {
    const { labels, clips } = svc.service;
    const base = {
      organizationId: orgId,
      fromMs: T0,
      toMs: T0 + 5000,
      patientId: patients.Maple,
      friendlyName: 'x',
      deviceSerial: 'y',
    };
    wavLabel = labels.create({
      ...base,
      type: 'ClinicConversation',
      audio: {
        content_type: 'audio/wav',
        byte_length: recipeByteLength(recipe),
        source_kind: 'recipe',
        source: JSON.stringify(recipe),
      },
    });
    const call = clips.callFile('phone-lab-results')!;
    mp4Label = labels.create({
      ...base,
      type: 'PhoneCallAudio',
      audio: {
        content_type: 'audio/mp4',
        byte_length: clips.fileSize(call),
        source_kind: 'file',
        source: call,
      },
    });
    const response = await svc.call(`/labels/${wavLabel}/audio`, { key });
    expect(response.status).toBe(200);
    full = Buffer.from(await response.arrayBuffer());
  });

  it('serves WAV with its type, length, a filename and Accept-Ranges', async () => {
    const response = await svc.call(`/labels/${wavLabel}/audio`, { key });
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('accept-ranges')).toBe('bytes');
    expect(Number(response.headers.get('content-length'))).toBe(recipeByteLength(recipe));
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="Maple \d{4}-\d\d-\d\d \d{4} ClinicConversation\.wav"/,
    );
    expect(full.length).toBe(recipeByteLength(recipe));
    expect(full.toString('ascii', 0, 4)).toBe('RIFF');
  });

  it('serves MP4 audio as audio/mp4 with an .m4a name', async () => {
    const response = await svc.call(`/labels/${mp4Label}/audio`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mp4');
    expect(response.headers.get('content-disposition')).toContain('.m4a');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.toString('ascii', 4, 8)).toBe('ftyp');
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=45-1000', 45, 1000],
    ['bytes=-300', -300, -1],
    ['bytes=70000-', 70000, -1],
  ])('answers Range %s with 206 and exactly those bytes', async (range, start, end) => {
    const response = await svc.call(`/labels/${wavLabel}/audio`, { key, headers: { range } });
    expect(response.status).toBe(206);
    const size = full.length;
    const first = start < 0 ? size + start : start;
    const last = end < 0 ? size - 1 : end;
    expect(response.headers.get('content-range')).toBe(`bytes ${first}-${last}/${size}`);
    expect(Buffer.from(await response.arrayBuffer()).equals(full.subarray(first, last + 1))).toBe(
      true,
    );
  });

  it('resumes an MP4 download with Range', async () => {
    const whole = Buffer.from(
      await (await svc.call(`/labels/${mp4Label}/audio`, { key })).arrayBuffer(),
    );
    const response = await svc.call(`/labels/${mp4Label}/audio`, {
      key,
      headers: { range: 'bytes=1000-' },
    });
    expect(response.status).toBe(206);
    expect(Buffer.from(await response.arrayBuffer()).equals(whole.subarray(1000))).toBe(true);
  });

  it('answers 416 for a range past the end', async () => {
    const response = await svc.call(`/labels/${wavLabel}/audio`, {
      key,
      headers: { range: `bytes=${full.length}-` },
    });
    expect(response.status).toBe(416);
    expect(response.headers.get('content-range')).toBe(`bytes */${full.length}`);
  });

  it('serves the whole file when If-Range no longer matches', async () => {
    const response = await svc.call(`/labels/${wavLabel}/audio`, {
      key,
      headers: { range: 'bytes=0-9', 'if-range': '"stale"' },
    });
    expect(response.status).toBe(200);
  });

  it('answers HEAD with the length and no body', async () => {
    const response = await svc.call(`/labels/${wavLabel}/audio`, { key, method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBe(full.length);
  });

  it('answers 404 for a label without audio', async () => {
    const response = await svc.call(`/labels/${fixture[5]!.id}/audio`, { key });
    expect(response.status).toBe(404);
    expect((await problemOf(response)).code).toBe('no_audio');
  });
});

describe('the listing’s patient filter', () => {
  it('reads the matching patients’ labels by patient when they are few, else every label of the range: the same answers', async () => {
    const own = await startService();
    try {
      const { organizationId } = own.credentials.primary;
      const { labels } = own.service;
      const prepared = watchPrepared(own.service.db);
      // One patient of forty is a Quince; the other thirty-nine are Abbeys. Two labels each.
      const made = Array.from({ length: 40 }, (_, i) => {
        const name = i === 0 ? 'Quince' : `Abbey ${i}`;
        const patientId = labels.createPatient(organizationId, name, 'cat');
        return [0, 1].map((k) =>
          labels.create({
            organizationId,
            type: k === 0 ? 'ClinicConversation' : 'HubMic',
            fromMs: T0 + (i * 2 + k) * HOUR,
            toMs: T0 + (i * 2 + k) * HOUR + MINUTE_MS,
            patientId,
            userId: null,
            friendlyName: 'Consult room hub',
            deviceSerial: 'HUB-1',
          }),
        );
      });
      const filtered = (patientSearch: string) => {
        const from = prepared.texts.length;
        const page = labels.list(organizationId, {
          patientSearch,
          types: ['HubMic'],
          fromTime: new Date(T0).toISOString(),
          limit: 100,
        });
        const pageSql = prepared.texts.slice(from).find((sql) => sql.includes('LIMIT @limit'));
        return { ids: page.items.map((item) => item.id), total: page.total, pageSql };
      };
      const quince = filtered('quin');
      expect(quince).toMatchObject({ ids: [made[0]![1]], total: 1 });
      expect(quince.pageSql).toContain('INDEXED BY labels_by_patient');
      const abbey = filtered('abbey');
      expect(abbey).toMatchObject({
        ids: made
          .slice(1)
          .map((pair) => pair[1])
          .reverse(),
        total: 39,
      });
      expect(abbey.pageSql).not.toContain('labels_by_patient');
      prepared.stop();
    } finally {
      await own.dispose();
    }
  });
});

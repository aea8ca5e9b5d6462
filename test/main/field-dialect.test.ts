import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSoap } from '../../src/shared/record/soap';
import type { Core } from '../../src/main/core';
import { MINUTE_MS } from '../../src/shared/api';
import {
  DEMO_DEVICES,
  baseMinute,
  hubMinute,
  startService,
  type RunningService,
} from '../service/harness';
import { until } from '../service/poll';
import * as fx from './audio/fixtures';
import { ipcCalls } from '../support/ipc-calls';
import { testCore } from '../support/core';

/**
 * The app against the service as it is in the field (issue 18): epoch-ms times, list rows
 * without notes, SOAP as JSON, sign-ins among the devices, audio without an ETag — the same
 * answers to the renderer as on the seed dialect.
 */
const SOAP = 'S: Coughing.\nO: Harsh lung sounds.\nA: Suspected pneumonia.\nP: Radiographs.';
/** Four days back: well inside the text the clinic keeps (90 days by default), whatever today is. */
const FROM = baseMinute(4);
const BASE = baseMinute(2);

describe('the app on the field dialect', () => {
  let svc: RunningService;
  let core: Core;
  let labelId: string;
  const { call } = ipcCalls(() => core);

  beforeAll(async () => {
    svc = await startService({ dialect: 'field', processingMs: 300 });
    svc.service.hub.insertMinutes(
      DEMO_DEVICES[0].id,
      Array.from({ length: 20 }, (_, i) => hubMinute(BASE, i, 20_000)),
    );
    labelId = fx.seedLabel(svc.service, svc.credentials.primary.organizationId, {
      fromMs: FROM,
      patient: 'Bella',
      notes: [
        ['Transcript', 'Vet: Hello Bella.', 1],
        ['SOAP', SOAP, 2],
      ],
    });
    core = testCore({
      dataDir: fx.tempFolder('earmark-field-'),
      exportFolder: fx.tempFolder('earmark-field-exports-'),
    });
    await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
  });
  afterAll(async () => {
    await core?.close();
    await svc?.dispose();
  });

  it('offers only the hubs on the timeline, not the sign-ins', async () => {
    const devices = await call('devices.list', {});
    expect(devices.value.map((d) => d.value).sort()).toEqual(DEMO_DEVICES.map((d) => d.id).sort());
  });

  it('reads epoch-ms times as the seed’s ISO times, and the SOAP note as its sections', async () => {
    const { value: label } = await call('labels.get', { labelId });
    expect(label.fromTime).toBe(new Date(FROM).toISOString());
    const soap = label.ownedPatientNotes!.find((note) => note.type === 'SOAP')!;
    expect(parseSoap(soap.content)).toEqual(parseSoap(SOAP));
    const page = await call('labels.list', {});
    expect(page.value.items[0]!.toTime).toBe(new Date(FROM + 2 * 60_000).toISOString());
  });

  it('syncs the notes the list rows leave out, so offline search finds a word of the SOAP note', async () => {
    await until(
      () => call('sync.status', {}),
      (status) => status.lastSyncAt !== null,
      30_000,
    );
    const hits = await until(
      () => call('search', { query: 'pneumonia' }),
      (found) => found.length > 0,
      30_000,
    );
    expect(hits[0]).toMatchObject({ kind: 'note', noteType: 'SOAP' });
  });

  it('exports whole audio without an ETag, its SHA-256 the service’s', async () => {
    const folder = fx.tempFolder('earmark-field-export-');
    const { folderId } = await call('export.useFolder', { path: folder });
    const summary = await call('export.run', {
      exportId: randomUUID(),
      folderId,
      labels: { ids: [labelId] },
      transcripts: true,
      onExists: 'keep-both',
    });
    const [row] = summary.rows;
    expect(row!.status).toBe('exported');
    expect(fx.sha256(readFileSync(join(folder, row!.file!)))).toBe(
      fx.sha256(await fx.serviceAudio(svc, labelId)),
    );
  });

  it('plays a record: its audio prepared and served whole, without an ETag to resume by', async () => {
    const prepared = await call('audio.prepare', { labelId });
    expect(prepared.bytes).toBeGreaterThan(0);
    const media = await core.media({ method: 'GET', headers: { range: 'bytes=0-3' } }, labelId);
    expect(media.status).toBe(206);
    const chunks: Buffer[] = [];
    for await (const chunk of media.body!) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString('latin1')).toBe('RIFF');
  });

  it('reaches the record a completed conversation became, matched by its epoch-ms range', async () => {
    const deviceId = DEMO_DEVICES[0].id;
    const range = { deviceId, startMs: BASE + 2 * MINUTE_MS, endMs: BASE + 6 * MINUTE_MS };
    const created = await call('hub.create', range);
    const ref = { deviceId, conversationId: created.conversation!.conversationId };
    await call('hub.complete', ref);
    await until(
      () => call('conversations.get', ref),
      (answer) => answer.value.status === 'UPLOADED',
      10_000,
    );
    const record = await call('conversations.record', ref);
    expect(record.value).toMatchObject({
      fromTime: new Date(range.startMs).toISOString(),
      toTime: new Date(range.endMs).toISOString(),
    });
  });
});

import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MINUTE_MS } from '../../../src/shared/api';
import type { ChannelInput, ChannelName, ChannelOutput } from '../../../src/shared/ipc';
import type { Core } from '../../../src/main/core';
import { DEMO_DEVICES, startService, type RunningService } from '../../service/harness';
import * as fx from '../audio/fixtures';
import { testCore } from '../../support/core';

/**
 * A record's notes beyond the audio, against the reference service: a hub record's transcript
 * lines in step with its audio (from its device's minutes), and what an export writes beside the
 * audio — the timed transcript, WebVTT subtitles and the clinical note — each in the manifest
 * with its SHA-256.
 */
const HUB = DEMO_DEVICES[0];
const START = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000 + 10 * 3_600_000;
const SOAP = 'S: Vomiting since Tuesday.\nO: T 39.1 °C.\nA: Gastritis.\nP: Bland diet, recheck.';

let svc: RunningService;
let core: Core;
let folder: string;
const ids: Record<string, string> = {};

async function call<C extends ChannelName>(
  channel: C,
  input: ChannelInput<C>,
): Promise<ChannelOutput<C>> {
  const answer = await core.rpc.invoke(channel, input);
  if (!answer.ok) throw new Error(`${channel}: ${JSON.stringify(answer.error)}`);
  return answer.value as ChannelOutput<C>;
}

beforeAll(async () => {
  svc = await startService();
  const org = svc.credentials.primary.organizationId;
  // Minutes 0-2 of the consult: the vet and the owner, diarized; minute 3 says nothing.
  const said = [
    'Vet: How is Bella today?\nOwner: She has been sick since Tuesday.',
    'Vet: Any fever?',
    'Owner: Not that we noticed.',
  ];
  svc.service.hub.insertMinutes(
    HUB.id,
    said.map((diarized, i) => ({
      minuteMs: START + i * MINUTE_MS,
      speechMs: 20_000,
      transcript: diarized.replace(/^\w+: /gm, ''),
      diarized,
      clips: [],
      audioOk: true,
    })),
  );
  ids.hub = fx.seedLabel(svc.service, org, {
    type: 'HubMic',
    deviceSerial: HUB.serial,
    fromMs: START,
    minutes: 4,
    patient: 'Bella',
    notes: [
      ['Transcript', said.join('\n'), 5],
      ['SOAP', '{}', 5],
      ['SOAP', SOAP, 6],
    ],
  });
  ids.dictation = fx.seedLabel(svc.service, org, {
    type: 'DictationAudio',
    fromMs: START,
    notes: [['Transcript', 'Dictated: Rocky is limping.', 1]],
  });
  folder = join(fx.tempFolder('earmark-record-notes-'), 'exports');
  mkdirSync(folder);
  core = testCore({ dataDir: fx.tempFolder('earmark-record-notes-data-'), exportFolder: folder });
  await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
});
afterAll(async () => {
  await core?.close();
  await svc?.dispose();
});

describe('a hub record’s transcript in step with its audio', () => {
  it('dates each line by its minute on the record’s device, speakers kept', async () => {
    const lines = await call('labels.transcriptLines', { labelId: ids.hub! });
    expect(lines).toEqual([
      { clockMs: START, offsetMs: 0, speaker: 'Vet', text: 'How is Bella today?' },
      {
        clockMs: START,
        offsetMs: 0,
        speaker: 'Owner',
        text: 'She has been sick since Tuesday.',
      },
      { clockMs: START + MINUTE_MS, offsetMs: MINUTE_MS, speaker: 'Vet', text: 'Any fever?' },
      {
        clockMs: START + 2 * MINUTE_MS,
        offsetMs: 2 * MINUTE_MS,
        speaker: 'Owner',
        text: 'Not that we noticed.',
      },
    ]);
  });

  it('invents no times for a record that is not a hub’s', async () => {
    expect(await call('labels.transcriptLines', { labelId: ids.dictation! })).toBeNull();
  });
});

describe('an export with the notes', () => {
  it('writes the timed transcript, WebVTT subtitles and the SOAP note, each hashed in the manifest', async () => {
    const { folderId } = await call('export.useFolder', { path: folder });
    const summary = await call('export.run', {
      exportId: randomUUID(),
      folderId,
      labels: { ids: [ids.hub!, ids.dictation!] },
      transcripts: true,
      onExists: 'keep-both',
    });
    expect(summary.status).toBe('completed');
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      labels: Record<string, string | number | null>[];
    };
    const hub = manifest.labels.find((row) => row.labelId === ids.hub)!;
    const stem = String(hub.file).replace(/\.wav$/, '');
    expect(hub).toMatchObject({
      transcriptFile: `${stem}.txt`,
      subtitlesFile: `${stem}.vtt`,
      clinicalNoteFile: `${stem}.soap.txt`,
    });
    const read = (name: unknown) => readFileSync(join(folder, String(name)), 'utf8');
    for (const [file, hash] of [
      ['transcriptFile', 'transcriptSha256'],
      ['subtitlesFile', 'subtitlesSha256'],
      ['clinicalNoteFile', 'clinicalNoteSha256'],
    ] as const) {
      expect(hub[hash]).toBe(fx.sha256(readFileSync(join(folder, String(hub[file])))));
    }
    // The summary the dialog shows names them too.
    expect(summary.rows.find((row) => row.labelId === ids.hub)!.textFiles).toEqual([
      `${stem}.txt`,
      `${stem}.vtt`,
      `${stem}.soap.txt`,
    ]);
    expect(read(hub.transcriptFile)).toMatch(/^\d\d:\d\d {2}Vet: How is Bella today\?\n/);
    expect(read(hub.clinicalNoteFile)).toBe(
      'Subjective\nVomiting since Tuesday.\n\nObjective\nT 39.1 °C.\n\nAssessment\nGastritis.\n\nPlan\nBland diet, recheck.\n',
    );

    // The subtitles parse: a WEBVTT header, cues in order, every one within the audio's 4 minutes.
    const vtt = read(hub.subtitlesFile);
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    const seconds = (stamp: string) => {
      const [h, m, s] = stamp.split(':').map(Number);
      return h! * 3600 + m! * 60 + s!;
    };
    const cues = [...vtt.matchAll(/^(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})$/gm)].map(
      (m) => [seconds(m[1]!), seconds(m[2]!)] as const,
    );
    expect(cues).toHaveLength(4);
    cues.forEach(([from, to], i) => {
      expect(to).toBeGreaterThan(from);
      expect(to).toBeLessThanOrEqual(4 * 60);
      if (i > 0) expect(from).toBeGreaterThanOrEqual(cues[i - 1]![1]);
    });
    expect(vtt).toContain('<v Owner>She has been sick since Tuesday.');

    // A record without line times: its transcript as the service wrote it, no subtitles.
    const dictation = manifest.labels.find((row) => row.labelId === ids.dictation)!;
    expect(read(dictation.transcriptFile)).toBe('Dictated: Rocky is limping.\n');
    expect(dictation.subtitlesFile).toBeNull();
    expect(dictation.clinicalNoteFile).toBeNull();
    const csv = readFileSync(join(folder, 'manifest.csv'), 'utf8');
    expect(csv.split('\r\n')[0]).toContain('subtitles_file,subtitles_sha256');
  });
});

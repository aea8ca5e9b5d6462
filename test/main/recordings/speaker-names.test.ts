import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebVTTParser } from 'webvtt-parser';
import { MINUTE_MS } from '../../../src/shared/api';
import type { RecordSpeakers } from '../../../src/shared/ipc';
import { SessionSecretStore } from '../../../src/main/accounts/secret-store';
import { openCache } from '../../../src/main/cache';
import type { Core } from '../../../src/main/core';
import { SpeakerNames } from '../../../src/main/recordings/speaker-names';
import { label, MINUTE, note, T0 } from '../cache/helpers';
import { DEMO_DEVICES, startService, type RunningService } from '../../service/harness';
import { ipcCalls } from '../../support/ipc-calls';
import * as fx from '../audio/fixtures';
import { testCore } from '../../support/core';

/**
 * Speaker names through the app's core, against the reference service in both dialects: named
 * and a line moved on a hub record, then in the search (offline too), the export's text files
 * and subtitles, a regenerated transcript version (names carried where they fit, one dropped),
 * Undo, a restart, and naming with the service gone.
 */
const HUB = DEMO_DEVICES[0];
const START = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 2 * 86_400_000 + 11 * 3_600_000;
const SAID = [
  'Speaker 1: Good morning, how is Bella today?\nSpeaker 2: She has been sick since Tuesday.',
  'Speaker 1: Any fever at home?\nSpeaker 2: Not that we noticed.',
  'Speaker 3: She weighs twelve kilograms.\nSpeaker 1: Let me feel her tummy.',
  'Speaker 2: Is it serious?\nSpeaker 3: I will fetch the thermometer.',
];
const SOAP = 'S: Speaker 2 reports vomiting since Tuesday.\nA: Gastritis.\nP: Bland diet.';
const NAMES = [
  { label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' as const },
  { label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' as const },
  { label: 'Speaker 3', name: 'Jo', role: 'nurse' as const },
];

describe.each(['seed', 'field'] as const)('speaker names (%s dialect)', (dialect) => {
  let svc: RunningService;
  let core: Core;
  let dataDir: string;
  let folder: string;
  let labelId: string;

  const { call, refused } = ipcCalls(() => core);
  // The test's keychain: it outlives a restart, as the system's does.
  const keychain = new SessionSecretStore();
  const openCore = () => testCore({ dataDir, keychain, exportFolder: folder });
  const current = (speakers: RecordSpeakers) =>
    speakers.versions.find((v) => v.versionKey === speakers.currentVersionKey);

  beforeAll(async () => {
    svc = await startService({ dialect });
    const org = svc.credentials.primary.organizationId;
    svc.service.hub.insertMinutes(
      HUB.id,
      SAID.map((diarized, i) => ({
        minuteMs: START + i * MINUTE_MS,
        speechMs: 20_000,
        transcript: diarized.replace(/^Speaker \d: /gm, ''),
        diarized,
        clips: [],
        audioOk: true,
      })),
    );
    labelId = fx.seedLabel(svc.service, org, {
      type: 'HubMic',
      deviceSerial: HUB.serial,
      fromMs: START,
      minutes: 5,
      patient: 'Bella',
      notes: [
        ['Transcript', SAID.join('\n'), 6],
        ['SOAP', SOAP, 7],
      ],
    });
    dataDir = fx.tempFolder('earmark-speakers-data-');
    folder = join(fx.tempFolder('earmark-speakers-'), 'exports');
    mkdirSync(folder);
    core = openCore();
    await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
  });
  afterAll(async () => {
    await core?.close();
    await svc?.dispose();
  });

  it('names speakers and moves a line on the current version; the search finds their lines', async () => {
    const before = await call('speakers.get', { labelId });
    expect(before).toMatchObject({ labelId, versions: [] });
    expect(before.currentVersionKey).toMatch(/^[0-9a-z]+$/);
    // Line 5 ("Let me feel her tummy", Speaker 1) was the nurse's; a name of a label the
    // version does not have is left out.
    const saved = await call('speakers.save', {
      labelId,
      versionKey: before.currentVersionKey!,
      names: [...NAMES, { label: 'Speaker 9', name: 'Nobody', role: null }],
      moves: [{ line: 5, label: 'Speaker 3' }],
    });
    // Kept in the order the speakers first speak.
    expect(current(saved)).toMatchObject({
      names: [NAMES[1], NAMES[0], NAMES[2]],
      moves: [{ line: 5, label: 'Speaker 3' }],
      notice: null,
    });
    const hits = await call('search', { query: 'jo tummy' });
    expect(hits).toMatchObject([
      { kind: 'speaker', speaker: 'Jo', line: 5, label: { id: labelId } },
    ]);
    expect(await call('speakers.of', { labelIds: [labelId, randomUUID()] })).toEqual([
      { labelId, speakers: [NAMES[1], NAMES[0], NAMES[2]] },
    ]);
    expect(await call('speakers.known', { search: 'mar' })).toMatchObject([
      { name: 'Dr Marsh', role: 'vet' },
    ]);
  });

  it('writes the names into the exported transcript, subtitles (voice spans) and clinical note', async () => {
    const { folderId } = await call('export.useFolder', { path: folder });
    const summary = await call('export.run', {
      exportId: randomUUID(),
      folderId,
      labels: { ids: [labelId] },
      transcripts: true,
      onExists: 'keep-both',
    });
    expect(summary.rows[0]).toMatchObject({
      status: 'exported',
      speakers: 'Dr Marsh (vet), Mrs Patel (owner), Jo (nurse)',
    });
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8')) as {
      labels: Record<string, string>[];
    };
    const row = manifest.labels[0]!;
    const read = (name: string) => readFileSync(join(folder, name), 'utf8');
    const txt = read(row.transcriptFile!);
    expect(txt).toMatch(/^\d\d:\d\d {2}Dr Marsh: Good morning, how is Bella today\?\n/);
    expect(txt).toContain('  Jo: Let me feel her tummy.\n');
    expect(txt).not.toContain('Speaker');

    const vtt = new WebVTTParser().parse(read(row.subtitlesFile!), 'metadata');
    expect(vtt.errors).toEqual([]);
    expect(
      vtt.cues.map((cue) =>
        cue.tree.children.map((node) => (node.type === 'object' ? node.value : null)),
      ),
    ).toEqual(
      ['Dr Marsh', 'Mrs Patel', 'Dr Marsh', 'Mrs Patel', 'Jo', 'Jo', 'Mrs Patel', 'Jo'].map(
        (name) => [name],
      ),
    );
    expect(read(row.clinicalNoteFile!)).toBe(
      'Speakers: Dr Marsh (vet), Mrs Patel (owner), Jo (nurse)\n\nSubjective\nMrs Patel reports vomiting since Tuesday.\n\nAssessment\nGastritis.\n\nPlan\nBland diet.\n',
    );
    expect(readFileSync(join(folder, 'manifest.csv'), 'utf8')).toContain(
      ',"Dr Marsh (vet), Mrs Patel (owner), Jo (nurse)",',
    );
  });

  it('carries the names that fit to a regenerated version, and drops the one that does not', async () => {
    const old = await call('speakers.get', { labelId });
    // The new pass numbers the vet and the owner the other way round, and hears no nurse.
    const regenerated = SAID.join('\n')
      .split('\n')
      .filter((line) => !line.startsWith('Speaker 3'))
      .map((line) =>
        line.replace(/^Speaker ([12])/, (_, n: string) => `Speaker ${n === '1' ? 2 : 1}`),
      )
      .join('\n');
    svc.service.regenerateNote(labelId, 'Transcript', regenerated);
    const carried = await call('speakers.get', { labelId });
    expect(carried.currentVersionKey).not.toBe(old.currentVersionKey);
    const now = current(carried)!;
    expect(now.names).toEqual([
      { label: 'Speaker 2', name: 'Dr Marsh', role: 'vet' },
      { label: 'Speaker 1', name: 'Mrs Patel', role: 'owner' },
    ]);
    expect(now.notice).toMatchObject({
      fromVersionKey: old.currentVersionKey,
      carried: [
        { name: 'Dr Marsh', from: 'Speaker 1', label: 'Speaker 2' },
        { name: 'Mrs Patel', from: 'Speaker 2', label: 'Speaker 1' },
      ],
      dropped: [{ name: 'Jo', label: 'Speaker 3', reason: 'gone' }],
      // "Let me feel her tummy" was moved to the nurse, who is gone.
      droppedMoves: 1,
    });
    // The earlier version keeps its own names (the version diff shows each with its own).
    expect(
      carried.versions.find((v) => v.versionKey === old.currentVersionKey)?.names,
    ).toHaveLength(3);
    // The lines in step with the audio are the new version's, speakers as it numbers them.
    const lines = await call('labels.transcriptLines', { labelId });
    expect(lines?.[0]).toMatchObject({ speaker: 'Speaker 2', offsetMs: 0 });
    expect(lines).toHaveLength(6);
    // The search holds the new version's lines: Jo's are gone, Dr Marsh's are under her new label.
    expect(await call('search', { query: 'jo' })).toEqual([]);
    expect(await call('search', { query: 'marsh fever' })).toMatchObject([
      { kind: 'speaker', speaker: 'Dr Marsh', line: 2 },
    ]);
    const dismissed = await call('speakers.dismissNotice', {
      labelId,
      versionKey: carried.currentVersionKey!,
    });
    expect(current(dismissed)?.notice).toBeNull();
    expect(current(dismissed)?.names).toHaveLength(2);
  });

  it('undoes a change by saving the names before it; keeps the names across a restart', async () => {
    const before = await call('speakers.get', { labelId });
    const key = before.currentVersionKey!;
    const previous = current(before)!;
    await call('speakers.save', {
      labelId,
      versionKey: key,
      names: [{ label: 'Speaker 1', name: 'Someone else', role: 'other' }],
      moves: [],
    });
    const undone = await call('speakers.save', {
      labelId,
      versionKey: key,
      names: previous.names,
      moves: previous.moves,
    });
    expect(current(undone)?.names).toEqual(previous.names);

    await core.close();
    core = openCore();
    expect(current(await call('speakers.get', { labelId }))?.names).toEqual(previous.names);
  });

  it('names speakers and finds them with the service gone', async () => {
    const { currentVersionKey } = await call('speakers.get', { labelId });
    await svc.close();
    const saved = await call('speakers.save', {
      labelId,
      versionKey: currentVersionKey!,
      names: [{ label: 'Speaker 1', name: 'Mrs Anita Patel', role: 'owner' }],
      moves: [],
    });
    expect(current(saved)?.names).toEqual([
      { label: 'Speaker 1', name: 'Mrs Anita Patel', role: 'owner' },
    ]);
    expect(await call('search', { query: 'anita' })).toMatchObject([
      { kind: 'speaker', label: { id: labelId } },
    ]);
    // Read back offline: the record comes from the cache.
    expect(current(await call('speakers.get', { labelId }))?.names[0]?.name).toBe(
      'Mrs Anita Patel',
    );
    // A version this computer has never seen cannot be named.
    expect(
      await refused('speakers.save', {
        labelId,
        versionKey: 'nosuchversion',
        names: [],
        moves: [],
      }),
    ).toMatchObject({ kind: 'not_found' });
  }, 60_000);
});

describe('after a sync brings a new transcript version', () => {
  it('carries the names over and re-indexes the lines without the record being opened', async () => {
    const cache = await openCache({
      file: join(fx.tempFolder('earmark-speakers-refresh-'), 'c.sqlite'),
    });
    try {
      const names = new SpeakerNames({
        cache: () => Promise.resolve(cache),
        record: () => Promise.reject(new Error('a refresh reads the cache only')),
        now: () => T0,
      });
      const first = note('Speaker 1: Any fever?\nSpeaker 2: None at all.', T0);
      await cache.write.storeLabels([label(1, { notes: [first] })], T0);
      const { currentVersionKey } = await names.of(label(1, { notes: [first] }));
      await names.save({
        labelId: label(1).id,
        versionKey: currentVersionKey!,
        names: [{ label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' }],
        moves: [],
      });
      expect(await names.refresh()).toBe(0);
      // The sync stores a regenerated version; nothing has asked for the record since.
      const second = note(
        "Speaker 2: Any fever?\nSpeaker 1: None at all, she's fine.",
        T0 + MINUTE,
      );
      await cache.write.storeLabels([label(1, { notes: [first, second] })], T0 + MINUTE);
      expect((await cache.read.search('patel')).hits).toMatchObject([
        {
          kind: 'speaker',
          snippet: expect.arrayContaining([{ text: ': None at all.', hit: false }]),
        },
      ]);
      expect(await names.refresh()).toBe(1);
      expect((await cache.read.search('patel')).hits).toMatchObject([
        {
          kind: 'speaker',
          line: 1,
          snippet: expect.arrayContaining([{ text: ": None at all, she's fine.", hit: false }]),
        },
      ]);
      expect(await cache.read.spokenBy([label(1).id])).toEqual([
        {
          labelId: label(1).id,
          speakers: [{ label: 'Speaker 1', name: 'Mrs Patel', role: 'owner' }],
        },
      ]);
      expect(await names.refresh()).toBe(0);
    } finally {
      await cache.close();
    }
  });
});

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SessionSecretStore } from '../../../src/main/accounts/secret-store';
import { audioFilesOf } from '../../../src/main/audio/audio-cache';
import { readSealedFile } from '../../../src/main/at-rest/sealed-file';
import type { Core } from '../../../src/main/core';
import { MINUTE_MS } from '../../../src/shared/api';
import { DEMO_DEVICES, startService, type RunningService } from '../../service/harness';
import { until } from '../../service/poll';
import { filesHolding } from '../../support/files';
import { ipcCalls } from '../../support/ipc-calls';
import { accountKeyIn, readWithKey } from '../../support/sealed-files';
import * as fx from '../audio/fixtures';
import { testCore } from '../../support/core';

/**
 * Removed text is gone from the account's files (issue 29, "Really gone"): records with words
 * found nowhere else — in a transcript, a SOAP note, a patient's name, a transcript line's
 * speaker ("Zorblax: …"), the name a user gave a speaker here, a hub timeline minute and the
 * conversation made of it — the record marked reviewed, and its audio and peaks, synced and
 * played through the app; every byte of every file of the data folder is searched before and
 * after retention removes them. The files are sealed (issue 30), so they are read as whoever
 * holds the account's key reads them (the cache decrypted whole, free pages too; the audio and
 * peaks opened): what retention removed must be gone from the plain bytes, not only unreadable.
 */
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
const aligned = (ms: number) => ms - (ms % MINUTE_MS);

const WORDS = {
  transcript: 'quorbantine',
  soap: 'zentrophagia',
  patient: 'Flimwaddle',
  speaker: 'Zorblax',
  namedSpeaker: 'Quillibrand',
  timeline: 'glimmerquat',
};
const RECENT_WORD = 'wobbleberry';

/**
 * What of a word the files may hold: as written, lower-cased (the indexes fold case), and its
 * first eight letters (an index keeps a stem, "quorbantin").
 */
const formsOf = (word: string) => [word, word.toLowerCase(), word.toLowerCase().slice(0, 8)];

describe.each(['seed', 'field'] as const)('the %s dialect', (dialect) => {
  let svc: RunningService;
  let core: Core;
  let dataDir: string;
  let oldId: string;
  const keychain = new SessionSecretStore();
  const device = DEMO_DEVICES[0].id;
  const OLD = aligned(Date.now() - 10 * DAY_MS);
  const { call } = ipcCalls(() => core);
  /** Waits until the cache holds `count` records older than a day (kept behind answers). */
  const cachedOld = (count: number) =>
    until(
      async () =>
        (
          await call('labels.list', {
            source: 'cache',
            toTime: new Date(Date.now() - DAY_MS).toISOString(),
          })
        ).value.total,
      (total) => total === count,
      30_000,
    );

  beforeAll(async () => {
    svc = await startService({ dialect, processingMs: 100 });
    const org = svc.credentials.primary.organizationId;
    oldId = fx.seedLabel(svc.service, org, {
      fromMs: OLD,
      minutes: 1,
      patient: `${WORDS.patient} Pertinax`,
      notes: [
        [
          'Transcript',
          `${WORDS.speaker}: the ${WORDS.transcript} dose was doubled\nSpeaker 2: Right.`,
          1,
        ],
        ['SOAP', `S: Lethargy.\nO: Pale.\nA: ${WORDS.soap} suspected.\nP: Bloods.`, 2],
      ],
    });
    fx.seedLabel(svc.service, org, {
      fromMs: aligned(Date.now() - 2 * HOUR_MS),
      patient: 'Cobblestone',
      notes: [['Transcript', `Vet: the ${RECENT_WORD} is fine`, 1]],
    });
    // Two minutes of a hub ten days ago; a conversation is made of them below.
    svc.service.hub.insertMinutes(
      device,
      [0, 1].map((i) => ({
        minuteMs: OLD + i * MINUTE_MS,
        speechMs: 20_000,
        transcript: `Vet: the ${WORDS.timeline} reading ${i}`,
        diarized: `Speaker 1: the ${WORDS.timeline} reading ${i}`,
        clips: [['consult-vaccination-00', 1000]],
        audioOk: true,
      })),
    );
    dataDir = fx.tempFolder('earmark-gone-');
    core = testCore({ dataDir, keychain });
    await call('accounts.add', {
      baseUrl: svc.baseUrl,
      apiKey: svc.credentials.primary.apiKey,
    });
  });
  afterAll(async () => {
    await core?.close();
    await svc?.dispose();
  });

  it('finds the words in the files before retention removes them, and none after', async () => {
    // The timeline opened, a conversation made of it and processed into a record.
    const range = { deviceId: device, startMs: OLD, endMs: OLD + 2 * MINUTE_MS };
    await call('hub.minutes', range);
    const created = await call('hub.create', range);
    const ref = { deviceId: device, conversationId: created.conversation!.conversationId };
    await call('hub.complete', ref);
    await until(
      async () => (await call('conversations.get', ref)).value,
      (c) => c.status === 'UPLOADED',
      30_000,
    );
    // The sync brought the old record; the one the conversation became is as old (a late
    // upload, which the sync's next full walk would find), opened from the conversation.
    await until(
      () => call('sync.status', {}),
      (status) => status.lastSyncAt !== null && status.state !== 'running',
      30_000,
    );
    expect((await call('conversations.record', ref)).value?.fromTime).toBe(
      new Date(OLD).toISOString(),
    );
    await cachedOld(2);
    // The second speaker named here, and the record reviewed: what the user made goes too.
    const speakers = await call('speakers.get', { labelId: oldId });
    await call('speakers.save', {
      labelId: oldId,
      versionKey: speakers.currentVersionKey!,
      names: [{ label: 'Speaker 2', name: `Dr ${WORDS.namedSpeaker}`, role: 'vet' }],
      moves: [],
    });
    await call('review.mark', { records: [oldId], conversations: [], reviewed: true });
    expect((await call('review.record', { labelId: oldId })).reviewed.state).toBe('current');
    // The old record played: its audio and peaks in the account's audio cache.
    await until(
      () => call('audio.prepare', { labelId: oldId }),
      (prepared) => prepared.complete,
      30_000,
    );
    const [account] = await call('accounts.list', {});
    const key = accountKeyIn(keychain, account!.id);
    const files = audioFilesOf(join(dataDir, 'audio', account!.id), key, oldId);
    const audioBytes = (await readSealedFile(files.audio, key)).subarray(40_000, 44_096);
    const peaksBytes = (await readSealedFile(files.peaks, key)).subarray(64, 576);

    const holding = (needles: (string | Buffer)[]) =>
      filesHolding(dataDir, needles, readWithKey(key));
    for (const word of Object.values(WORDS)) expect(holding([word]), word).not.toEqual([]);
    // Sealed: nothing of it in the bytes as they lie on disk.
    for (const word of Object.values(WORDS))
      expect(filesHolding(dataDir, [word]), word).toEqual([]);
    expect(holding([audioBytes])).toEqual([files.audio]);
    expect(holding([peaksBytes])).toEqual([files.peaks]);

    const overview = await call('retention.setSettings', {
      textDays: 1,
      audioDays: 1,
    });
    // The old record and the one its conversation became; the audio played.
    expect(overview.next).toMatchObject({ records: 2, audioFiles: 1, spared: 0 });
    const summary = await call('retention.removeNow', {});
    expect(summary).toMatchObject({ records: 2, audioFiles: 1 });
    expect(summary.audioBytes).toBeGreaterThan(audioBytes.length);

    for (const word of Object.values(WORDS)) expect(holding(formsOf(word)), word).toEqual([]);
    expect(holding([audioBytes, peaksBytes])).toEqual([]);
    // What is kept stays: the record of two hours ago.
    expect(holding([RECENT_WORD])).not.toEqual([]);
  }, 90_000);
});

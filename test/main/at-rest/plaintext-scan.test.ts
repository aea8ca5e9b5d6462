import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Core } from '../../../src/main/core';
import { startService, type RunningService } from '../../service/harness';
import { filesHolding } from '../../support/files';
import { ipcCalls, syncToEnd } from '../../support/ipc-calls';
import { seedLabel, serviceAudio } from '../audio/fixtures';
import { testCore } from '../../support/core';

/**
 * A lost or shared computer gives away no clinical data (issue 30): an account's data folder
 * filled through a real sync and playback — transcripts, a patient's name, a speaker named on
 * this computer, a review mark, a recording played whole with its waveform, a follow-up's comment
 * posted from here (the service cannot list them) — then every byte of
 * every file scanned, while the app runs (its WAL live) and after it closed, for what a thief
 * would look for: a transcript's words, the patient's name, the speaker's name, a record's id,
 * SQLite's header, the recording's RIFF header. Sealed, none is there, not even in a file's
 * name; in the clear (as before this issue), the same scan finds every one.
 */

const PHRASE = 'Marzipan swallowed the whole tennis ball after breakfast';
const PATIENT = 'Marzipan Featherstonehaugh';
const SPEAKER = 'Dr Oyelaran-Whitcombe';
const COMMENT = 'Owner rang about the swallowed tennis ball, wants a call back';

describe.each(['seed', 'field'] as const)(
  'the data folder after a session (%s dialect)',
  (dialect) => {
    let svc: RunningService;
    let labelId: string;
    /** The recording's first bytes: "RIFF", its length, "WAVE" (a needle long enough not to turn up in ciphertext by chance). */
    let riff: Buffer;
    const folders: string[] = [];

    beforeAll(async () => {
      svc = await startService({ dialect });
      labelId = seedLabel(svc.service, svc.credentials.primary.organizationId, {
        patient: PATIENT,
        minutes: 2,
        fromMs: Date.now() - 3_600_000,
        notes: [['Transcript', `Vet: ${PHRASE}.\nOwner: Is he going to be all right?`, 0]],
      });
      riff = (await serviceAudio(svc, labelId)).subarray(0, 12);
      expect(riff.toString('latin1', 0, 4)).toBe('RIFF');
      expect(riff.toString('latin1', 8, 12)).toBe('WAVE');
    });
    afterAll(async () => {
      await svc?.dispose();
      for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    });

    /** A session in a data folder of its own; the files scanned live and after the app closed. */
    async function session(atRest: 'sealed' | 'plain') {
      const dataDir = mkdtempSync(join(tmpdir(), 'earmark-scan-'));
      folders.push(dataDir);
      const core: Core = testCore({ dataDir, atRest });
      const { call } = ipcCalls(() => core);
      await call('accounts.add', { baseUrl: svc.baseUrl, apiKey: svc.credentials.primary.apiKey });
      await syncToEnd(call);
      expect((await call('search', { query: 'tennis ball' })).length).toBeGreaterThan(0);
      // Played from the first byte to the last through the shells' media route.
      await call('audio.prepare', { labelId });
      const media = await core.media({ method: 'GET', headers: {} }, labelId);
      expect(media.status).toBe(200);
      for await (const _ of media.body!) void _;
      await vi.waitUntil(async () => (await call('audio.prepare', { labelId })).complete, {
        timeout: 30_000,
        interval: 50,
      });
      expect((await call('audio.waveform', { labelId }))?.peaks[0].length).toBeGreaterThan(0);
      const speakers = await call('speakers.get', { labelId });
      await call('speakers.save', {
        labelId,
        versionKey: speakers.currentVersionKey!,
        names: [{ label: 'Vet', name: SPEAKER, role: 'vet' }],
        moves: [],
      });
      await call('review.mark', { records: [labelId], conversations: [], reviewed: true });
      const board = await call('followUps.createBoard', { name: 'Follow-ups' });
      const [task] = await call('followUps.addTasks', {
        boardId: board.id,
        items: [{ title: 'Call the owner' }],
      });
      await call('followUps.comment', { taskId: task!.id, body: COMMENT });
      const live = scan(dataDir);
      await core.close();
      return { dataDir, live, closed: scan(dataDir), boardId: board.id };
    }

    /** Which needle each file holds, and which file names say something. */
    function scan(dataDir: string) {
      const needles = {
        phrase: PHRASE,
        patient: PATIENT,
        speaker: SPEAKER,
        comment: COMMENT,
        'record id': labelId,
        'SQLite header': 'SQLite format 3\0',
        'RIFF header': riff,
      };
      const found = Object.fromEntries(
        Object.entries(needles).map(([name, needle]) => [name, filesHolding(dataDir, [needle])]),
      );
      const names = readdirSync(dataDir, { recursive: true, encoding: 'utf8' }).filter(
        (path) => path.includes(labelId) || /\.(wav|m4a)\b/.test(path),
      );
      return { found, names };
    }

    it('sealed: not a byte of it is readable, live or closed, nor a file name', async () => {
      const { live, closed } = await session('sealed');
      for (const { found, names } of [live, closed]) {
        for (const [needle, files] of Object.entries(found)) expect(files, needle).toEqual([]);
        expect(names).toEqual([]);
      }
    }, 90_000);

    it('in the clear (as before issue 30): the same scan finds every one of them', async () => {
      const { live, closed } = await session('plain');
      for (const { found, names } of [live, closed]) {
        for (const [needle, files] of Object.entries(found))
          expect(files.length, needle).toBeGreaterThan(0);
        expect(names.length).toBeGreaterThan(0);
      }
    }, 90_000);

    it('in the clear from an earlier version, then opened by this one: sealed, nothing left readable', async () => {
      const { dataDir, boardId } = await session('plain');
      const core = testCore({ dataDir });
      const { call } = ipcCalls(() => core);
      try {
        await call('accounts.add', {
          baseUrl: svc.baseUrl,
          apiKey: svc.credentials.primary.apiKey,
        });
        // What the earlier version kept reads as before: the cache sealed first, the audio in
        // the background (the recording asked for, at once).
        expect((await call('search', { query: 'tennis ball' })).length).toBeGreaterThan(0);
        const speakers = await call('speakers.get', { labelId });
        expect(JSON.stringify(speakers)).toContain(SPEAKER);
        expect((await call('review.record', { labelId })).reviewed).toMatchObject({
          state: 'current',
        });
        expect(await call('audio.prepare', { labelId })).toMatchObject({ complete: true });
        const clear = join(dataDir, 'audio', readdirSync(join(dataDir, 'audio'))[0]!, 'files');
        await vi.waitUntil(() => !existsSync(clear), { timeout: 30_000, interval: 50 });
        // The comments too, after the first sync, before any board is opened; they read as before.
        await syncToEnd(call);
        await vi.waitUntil(() => filesHolding(dataDir, [COMMENT]).length === 0, {
          timeout: 30_000,
          interval: 50,
        });
        const { comments } = (await call('followUps.board', { boardId })).value;
        expect(
          Object.values(comments)
            .flat()
            .map((c) => c.body),
        ).toEqual([COMMENT]);
      } finally {
        await core.close();
      }
      const { found, names } = scan(dataDir);
      for (const [needle, files] of Object.entries(found)) expect(files, needle).toEqual([]);
      expect(names).toEqual([]);
    }, 90_000);
  },
);

import { randomUUID } from 'node:crypto';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ManifestRow } from '../../../src/main/export/export';
import { AccountKey } from '../../../src/main/at-rest/account-key';
import { ExportJournal } from '../../../src/main/export/journal';
import { tempFolder } from '../audio/fixtures';

const row = (labelId: string, status: ManifestRow['status']): ManifestRow => ({
  labelId,
  patient: 'Maple',
  type: 'ClinicConversation',
  fromTime: null,
  toTime: null,
  status,
  file: status === 'exported' ? `${labelId}.wav` : null,
  bytes: status === 'exported' ? 10 : null,
  sha256: null,
  contentType: null,
  transcriptFile: null,
  error: null,
});

const header = (accountId: string, labelIds: string[]) => ({
  journalId: randomUUID(),
  accountId,
  folder: '/exports',
  labelIds,
  transcripts: true,
  onExists: 'keep-both' as const,
  startedAt: new Date().toISOString(),
});

/** Accounts whose data is kept in the clear (no key). */
const inClear = async () => undefined;

describe('the export journal', () => {
  it('keeps the finished rows of an export, the latest of each, and only its own labels', async () => {
    const journal = new ExportJournal(join(tempFolder('earmark-journal-'), 'exports'), inClear);
    const started = header('clinic-a', ['l1', 'l2', 'l3']);
    const writer = await journal.begin(started);
    await writer.append(row('l1', 'exported'));
    // Failed and cancelled recordings are exported again on resume: not kept.
    await writer.append(row('l2', 'failed'));
    await writer.append(row('l3', 'cancelled'));
    await writer.append(row('not-in-this-export', 'exported'));
    await writer.append(row('l2', 'no_audio'));

    const { header: read, rows } = await journal.load(started.journalId);
    expect(read).toMatchObject({ version: 1, ...started });
    expect(rows.map((r) => [r.labelId, r.status])).toEqual([
      ['l1', 'exported'],
      ['l2', 'no_audio'],
    ]);
  });

  it('ignores a line torn by a crash and lists each account’s unfinished exports only to it', async () => {
    const folder = join(tempFolder('earmark-journal-'), 'exports');
    const journal = new ExportJournal(folder, inClear);
    const mine = header('clinic-a', ['l1', 'l2']);
    const theirs = header('clinic-b', ['m1']);
    await (await journal.begin(mine)).append(row('l1', 'exported'));
    await journal.begin(theirs);
    appendFileSync(join(folder, `${mine.journalId}.rows.jsonl`), '{"labelId":"l2","stat');

    expect(await journal.unfinished('clinic-a')).toEqual([
      {
        journalId: mine.journalId,
        folder: '/exports',
        total: 2,
        done: 1,
        startedAt: mine.startedAt,
      },
    ]);
    expect((await journal.unfinished('clinic-b')).map((u) => u.journalId)).toEqual([
      theirs.journalId,
    ]);
    expect(await journal.unfinished('clinic-c')).toEqual([]);

    await journal.remove(mine.journalId);
    expect(await journal.unfinished('clinic-a')).toEqual([]);
    expect(readdirSync(folder)).toEqual([
      `${theirs.journalId}.json`,
      `${theirs.journalId}.rows.jsonl`,
    ]);
    await expect(journal.load(mine.journalId)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('seals each row under the account’s key: none of it readable in the file, nor without the key', async () => {
    const folder = join(tempFolder('earmark-journal-'), 'exports');
    const { key } = AccountKey.random();
    let unlocked = true;
    const journal = new ExportJournal(folder, async () => {
      if (!unlocked) throw new Error('The account is locked.');
      return key;
    });
    const started = header('clinic-a', ['l1', 'l2', 'l3']);
    await (await journal.begin(started)).append(row('l1', 'exported'));
    // A row an earlier version wrote in the clear, then one more sealed (a resumed export).
    appendFileSync(
      join(folder, `${started.journalId}.rows.jsonl`),
      `${JSON.stringify(row('l2', 'exported'))}\n`,
    );
    await (await journal.writer(started)).append(row('l3', 'no_audio'));
    const file = readFileSync(join(folder, `${started.journalId}.rows.jsonl`), 'utf8');
    expect(file.split('\n').filter((line) => line.startsWith('sealed:'))).toHaveLength(2);
    expect(file.match(/Maple/g)).toHaveLength(1); // the earlier version's clear row only
    expect((await journal.load(started.journalId)).rows).toEqual([
      row('l1', 'exported'),
      row('l2', 'exported'),
      row('l3', 'no_audio'),
    ]);
    // Locked (or removed): the sealed rows read as not done; the header still says what to give up.
    unlocked = false;
    expect(await journal.load(started.journalId)).toMatchObject({
      header: { labelIds: ['l1', 'l2', 'l3'], folder: '/exports' },
      rows: [row('l2', 'exported')],
    });
    // Under another key: not done either.
    const other = new ExportJournal(folder, async () => AccountKey.random().key);
    expect((await other.load(started.journalId)).rows).toEqual([row('l2', 'exported')]);
  });

  it('answers not_found for an id that is not a journal’s, and lists nothing without a folder', async () => {
    const journal = new ExportJournal(join(tempFolder('earmark-journal-'), 'never-made'), inClear);
    await expect(journal.load('../../etc/passwd')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(journal.load(randomUUID())).rejects.toMatchObject({ kind: 'not_found' });
    expect(await journal.unfinished('clinic-a')).toEqual([]);
  });
});

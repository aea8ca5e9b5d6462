import { beforeEach, describe, expect, it } from 'vitest';
import type { ExportRow, ExportSummary, UnfinishedExport } from '../../src/shared/ipc';
import { ExportDialogStore } from '../../src/renderer/src/lib/export-dialog.svelte';
import { ExportRunStore } from '../../src/renderer/src/lib/export-run.svelte';
import { FakeEarmark, settle } from './support';

const info = (folderChoice: 'dialog' | 'path') => ({
  version: '0.1.0',
  shell: folderChoice === 'path' ? ('browser' as const) : ('electron' as const),
  platform: 'linux',
  folderChoice,
  defaultExportFolder: '/home/vet/Downloads',
});
const row = (labelId: string, status: ExportRow['status']): ExportRow => ({
  labelId,
  patient: null,
  type: 'HubMic',
  status,
  file: status === 'exported' ? `${labelId}.wav` : null,
  bytes: null,
  sha256: null,
  textFiles: [],
  speakers: null,
  error: status === 'failed' ? 'The service answered 500.' : null,
});
const summary = (exportId: string, rows: ExportRow[]): ExportSummary => ({
  exportId,
  status: 'completed',
  folder: '/home/vet/Exports',
  rows,
  manifestFiles: ['manifest.csv', 'manifest.json'],
});

describe('an export run', () => {
  let fake: FakeEarmark;
  let exportDialog: ExportDialogStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    exportDialog = new ExportDialogStore();
    exportDialog.open({ ids: ['a', 'b', 'c'] }, 3);
  });

  it('in the browser shell: checks the typed folder, runs with the options, follows its progress', async () => {
    fake.handle('app.info', () => info('path'));
    fake.handle('export.useFolder', ({ path }) => ({ folderId: 'f-1', path }));
    let finish: (value: ExportSummary) => void = () => {};
    fake.handle('export.run', () => new Promise((resolve) => (finish = resolve)));
    const run = new ExportRunStore(
      fake,
      exportDialog,
      () => ({ ids: ['a', 'b', 'c'] }),
      () => 3,
    );
    expect((await run.loadInfo())?.defaultExportFolder).toBe('/home/vet/Downloads');
    run.transcripts = false;
    run.onExists = 'skip';
    run.path = ' /home/vet/Exports ';
    const started = run.start();
    await settle();
    expect(fake.callsOf('export.useFolder')).toEqual([{ path: '/home/vet/Exports' }]);
    const [asked] = fake.callsOf('export.run');
    expect(asked).toMatchObject({
      folderId: 'f-1',
      labels: { ids: ['a', 'b', 'c'] },
      transcripts: false,
      onExists: 'skip',
    });
    expect(run.phase).toBe('running');
    expect(exportDialog.running).toEqual({ filesDone: 0, filesTotal: 3 });

    const progress = (labelId: string, state: 'downloading' | 'exported', filesDone: number) =>
      fake.emit('export.progress', {
        exportId: asked!.exportId,
        filesDone,
        filesTotal: 3,
        bytesDone: 100,
        bytesTotal: 300,
        file: { labelId, state, bytesDone: 50, bytesTotal: state === 'exported' ? 50 : null },
      });
    progress('a', 'downloading', 0);
    progress('b', 'downloading', 0);
    progress('a', 'exported', 1);
    fake.emit('export.progress', {
      exportId: 'another-export',
      filesDone: 9,
      filesTotal: 9,
      bytesDone: 0,
      bytesTotal: 0,
      file: { labelId: 'z', state: 'exported', bytesDone: 0, bytesTotal: 0 },
    });
    // Running files first, then the finished; another export's progress is not this one's.
    expect(run.shownFiles.map((f) => [f.labelId, f.state])).toEqual([
      ['b', 'downloading'],
      ['a', 'exported'],
    ]);
    expect(run.overall.filesDone).toBe(1);
    expect(run.sizesKnown).toBe(false);
    expect(exportDialog.running).toEqual({ filesDone: 1, filesTotal: 3 });

    finish(summary(asked!.exportId, [row('a', 'exported'), row('b', 'exported')]));
    expect(await started).toBe(true);
    expect(run.phase).toBe('done');
    expect(run.summaryCounts).toEqual([{ state: 'exported', n: 2 }]);
    expect(run.completion).toBe('Export finished: 2 exported.');
    expect(exportDialog.running).toBeNull();
  });

  it('says why a typed folder cannot be used, and starts nothing', async () => {
    fake.handle('app.info', () => info('path'));
    fake.fail('export.useFolder', { kind: 'invalid_input', message: 'No such folder.' });
    const run = new ExportRunStore(
      fake,
      exportDialog,
      () => ({ ids: ['a'] }),
      () => 1,
    );
    await run.loadInfo();
    run.path = '/nowhere';
    expect(await run.start()).toBe(false);
    expect(run.error?.message).toBe('That folder cannot be used (/nowhere): No such folder.');
    expect(run.phase).toBe('setup');
    expect(fake.callsOf('export.run')).toEqual([]);
  });

  it('retries only what failed or was cancelled, into the same folder', async () => {
    fake.handle('app.info', () => info('dialog'));
    fake.handle('export.chooseFolder', () => ({ folderId: 'f-2', path: '/media/usb' }));
    fake.handle('export.run', ({ exportId, labels }) =>
      'ids' in labels && labels.ids.length === 3
        ? summary(exportId, [row('a', 'exported'), row('b', 'failed'), row('c', 'cancelled')])
        : summary(exportId, [row('b', 'exported'), row('c', 'exported')]),
    );
    const run = new ExportRunStore(
      fake,
      exportDialog,
      () => ({ ids: ['a', 'b', 'c'] }),
      () => 3,
    );
    await run.loadInfo();
    await run.chooseFolder();
    expect(run.canStart(false)).toBe(true);
    expect(run.canStart(true)).toBe(false); // offline
    await run.start();
    expect(run.unfinished).toEqual(['b', 'c']);
    expect(run.completion).toBe('Export finished: 1 exported, 1 failed, 1 cancelled.');
    await run.retry();
    const retried = fake.callsOf('export.run')[1]!;
    expect(retried).toMatchObject({ folderId: 'f-2', labels: { ids: ['b', 'c'] } });
    expect(run.total).toBe(2);
    expect(run.unfinished).toEqual([]);
  });

  it('goes on with an unfinished export, and says when it stops', async () => {
    const stopped: UnfinishedExport = {
      journalId: 'j-1',
      folder: '/home/vet/Exports',
      total: 5,
      done: 2,
      startedAt: '2026-11-23T10:00:00.000Z',
    };
    fake.fail('export.resume', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    const run = new ExportRunStore(
      fake,
      exportDialog,
      () => ({ resume: stopped }),
      () => 5,
    );
    run.resume();
    await settle();
    expect(fake.callsOf('export.resume')[0]).toMatchObject({ journalId: 'j-1' });
    expect(run.phase).toBe('setup');
    expect(run.error?.message).toBe(
      'The export into /home/vet/Exports stopped: The clinic service cannot be reached.',
    );
  });
});

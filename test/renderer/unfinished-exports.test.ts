import { describe, expect, it, vi } from 'vitest';
import type { UnfinishedExport } from '../../src/shared/ipc';
import { ExportDialogStore } from '../../src/renderer/src/lib/export-dialog.svelte';
import { UnfinishedExportsStore } from '../../src/renderer/src/lib/unfinished-exports.svelte';
import { FakeEarmark } from './support';

const stopped = (journalId: string): UnfinishedExport => ({
  journalId,
  folder: '/x',
  total: 2,
  done: 1,
  startedAt: '2026-11-23T10:00:00.000Z',
});

describe('unfinished exports', () => {
  it('lists them, and after a discard lists what is left (or says why it failed)', async () => {
    const fake = new FakeEarmark();
    let left = [stopped('j-1'), stopped('j-2')];
    fake.handle('export.unfinished', () => left);
    fake.handle('export.discard', ({ journalId }) => {
      left = left.filter((e) => e.journalId !== journalId);
      return null;
    });
    const unfinished = new UnfinishedExportsStore(fake, new ExportDialogStore());
    await unfinished.load();
    expect(unfinished.list).toHaveLength(2);
    await unfinished.discard(stopped('j-1'));
    expect(unfinished.list.map((e) => e.journalId)).toEqual(['j-2']);
    fake.fail('export.discard', { kind: 'internal', message: 'The journal cannot be removed.' });
    await unfinished.discard(stopped('j-2'));
    expect(unfinished.discardError?.message).toBe('The journal cannot be removed.');
    expect(unfinished.list).toHaveLength(1);
  });

  it('goes on with one in the export dialog, and reads the list again once the dialog is done', async () => {
    const fake = new FakeEarmark();
    let left = [stopped('j-1')];
    fake.handle('export.unfinished', () => left);
    const dialog = new ExportDialogStore();
    const unfinished = new UnfinishedExportsStore(fake, dialog);
    await unfinished.load();
    unfinished.resume(stopped('j-1'));
    expect(dialog.opened?.labels).toEqual({ resume: stopped('j-1') });
    expect(dialog.opened?.count).toBe(2);
    left = [];
    dialog.close();
    await vi.waitFor(() => expect(unfinished.list).toEqual([]));
  });
});

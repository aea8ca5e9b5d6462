import { describe, expect, it } from 'vitest';
import { ExportDialogStore } from '../../src/renderer/src/lib/export-dialog.svelte';

describe('the export dialog', () => {
  it('hides while an export runs (it goes on), shows it again, and says how a hidden one ended', () => {
    const dialog = new ExportDialogStore();
    dialog.open({ ids: ['a'] }, 1);
    expect([dialog.visible, dialog.opened?.count]).toEqual([true, 1]);
    dialog.running = { filesDone: 0, filesTotal: 1 };
    dialog.hide();
    expect([dialog.visible, dialog.opened?.count]).toEqual([false, 1]);
    dialog.endedHidden = 'completed';
    dialog.show();
    expect([dialog.visible, dialog.endedHidden]).toEqual([true, null]);
  });

  it('keeps one export at a time: opening another while one runs shows the running one', () => {
    const dialog = new ExportDialogStore();
    dialog.open({ ids: ['a', 'b'] }, 2);
    dialog.running = { filesDone: 1, filesTotal: 2 };
    dialog.hide();
    dialog.open({ ids: ['c'] }, 1);
    expect(dialog.opened?.labels).toEqual({ ids: ['a', 'b'] });
    expect(dialog.visible).toBe(true);
    // Once it is done with, another opens.
    dialog.close();
    dialog.open({ ids: ['c'] }, 1);
    expect(dialog.opened?.labels).toEqual({ ids: ['c'] });
  });

  it('tells its opener once it is done with: closed, or replaced by another export', () => {
    const dialog = new ExportDialogStore();
    const closed: string[] = [];
    dialog.open({ ids: ['a'] }, 1, () => closed.push('a'));
    dialog.open({ ids: ['b'] }, 1, () => closed.push('b'));
    expect(closed).toEqual(['a']);
    dialog.running = { filesDone: 0, filesTotal: 1 };
    dialog.close();
    expect(closed).toEqual(['a', 'b']);
    expect([dialog.opened, dialog.running, dialog.visible]).toEqual([null, null, false]);
  });
});

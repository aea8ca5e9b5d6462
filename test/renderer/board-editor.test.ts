import { beforeEach, describe, expect, it } from 'vitest';
import type { TaskBoard } from '../../src/shared/api';
import { DEFAULT_FIELDS, DEFAULT_STATUSES } from '../../src/shared/api/values';
import {
  BoardEditorStore,
  invalidFieldText,
  removedStatusText,
} from '../../src/renderer/src/lib/board-editor.svelte';
import { FollowUpsStore } from '../../src/renderer/src/lib/follow-ups.svelte';
import { FakeEarmark, sourced } from './support';

const board: TaskBoard = {
  id: 'b-1',
  name: 'Follow-ups',
  statuses: [
    { id: 'todo', name: 'To do', category: 'open' },
    { id: 'waiting', name: 'Waiting', category: 'open' },
    { id: 'done', name: 'Done', category: 'done' },
  ],
  fields: [
    { key: 'patient', name: 'Patient', type: 'text' },
    { key: 'kind', name: 'Kind', type: 'select', options: ['Call', 'Invoice'] },
  ],
  createdAt: '2026-11-01T00:00:00.000Z',
};

describe('the board editor', () => {
  let fake: FakeEarmark;
  let followUps: FollowUpsStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    fake.handle('followUps.board', ({ boardId }) =>
      sourced({ board: { ...board, id: boardId }, tasks: [], total: 0, comments: {} }),
    );
    followUps = new FollowUpsStore(fake);
  });

  it('starts a new board from the default template, and makes ids and keys from the names', async () => {
    fake.handle('followUps.createBoard', (input) => ({
      id: 'b-new',
      name: input.name,
      statuses: input.statuses ?? [],
      fields: input.fields ?? [],
      createdAt: '2026-11-24T08:00:00.000Z',
    }));
    const editor = new BoardEditorStore(followUps, null, ' Recheck calls ');
    expect(editor.creating).toBe(true);
    expect(editor.statuses.map((s) => [s.id, s.name])).toEqual(
      DEFAULT_STATUSES.map((s) => [null, s.name]),
    );
    expect(editor.fields).toHaveLength(DEFAULT_FIELDS.length);
    editor.addStatus();
    editor.statuses.at(-1)!.name = 'Not addressed';
    expect(await editor.save()).toBe(true);
    const [asked] = fake.callsOf('followUps.createBoard');
    expect(asked!.name).toBe('Recheck calls');
    // A name already taken as an id gets a number.
    expect(asked!.statuses!.map((s) => s.id)).toEqual([
      'not_addressed',
      'in_progress',
      'completed',
      'no_action_needed',
      'not_addressed_2',
    ]);
    expect(followUps.boards.map((b) => b.id)).toEqual(['b-new']);
  });

  it('says what is wrong before sending anything', async () => {
    const editor = new BoardEditorStore(followUps, board);
    editor.name = ' ';
    editor.statuses[1]!.name = '';
    editor.fields[1]!.options = ' , ';
    expect(await editor.save()).toBe(false);
    expect(editor.problems).toEqual([
      'The board needs a name.',
      'Status 2 needs a name.',
      'The choice list “Kind” needs at least one option.',
    ]);
    expect(fake.calls.filter((c) => c.channel === 'followUps.saveBoard')).toEqual([]);
  });

  it('keeps ids of existing statuses and fields, moves and removes rows, and never removes the last status', () => {
    const editor = new BoardEditorStore(followUps, board);
    editor.moveStatus(2, -1);
    expect(editor.statuses.map((s) => s.id)).toEqual(['todo', 'done', 'waiting']);
    editor.moveStatus(0, -1); // already first
    expect(editor.statuses.map((s) => s.id)).toEqual(['todo', 'done', 'waiting']);
    for (const row of [...editor.statuses]) editor.removeStatus(row.uid);
    expect(editor.statuses.map((s) => s.id)).toEqual(['waiting']);
    editor.fields[1]!.options = 'Call, Invoice\nCall, Recheck';
    expect(editor.built.fields[1]).toEqual({
      key: 'kind',
      name: 'Kind',
      type: 'select',
      options: ['Call', 'Invoice', 'Recheck'],
    });
  });

  it('turns a counted 409 into its two choices, and saves again with them', async () => {
    fake.fail('followUps.saveBoard', {
      kind: 'conflict',
      message: 'Tasks use what this change removes.',
      boardConflict: {
        statusesInUse: [{ id: 'waiting', name: 'Waiting', taskCount: 3 }],
        invalidFieldValues: [
          { key: 'kind', name: 'Kind', taskCount: 2, reason: 'options are removed' },
        ],
      },
    });
    const editor = new BoardEditorStore(followUps, board);
    editor.removeStatus(editor.statuses[1]!.uid);
    editor.fields[1]!.options = 'Call';
    expect(await editor.save()).toBe(false);
    expect(editor.conflict?.counted).toBe(true);
    // The first open status is offered for the tasks of the removed open one.
    expect(editor.migrateTo).toBe('todo');
    expect([editor.movedTasks, editor.droppedTasks]).toEqual([3, 2]);
    expect(editor.conflictReady).toBe(false);
    editor.dropValues = true;
    expect(editor.conflictReady).toBe(true);

    fake.handle('followUps.saveBoard', (input) => ({ ...board, statuses: input.statuses ?? [] }));
    expect(await editor.save()).toBe(true);
    expect(fake.callsOf('followUps.saveBoard').at(-1)).toMatchObject({
      boardId: 'b-1',
      migrateTo: 'todo',
      dropInvalidFieldValues: true,
    });
  });

  it('offers the choices from what the edit removes when the 409 has no lists; an edit asks again', async () => {
    fake.fail('followUps.saveBoard', { kind: 'conflict', message: 'The board is in use.' });
    const editor = new BoardEditorStore(followUps, board);
    editor.removeStatus(editor.statuses[2]!.uid);
    editor.fields[0]!.type = 'number';
    editor.removeField(editor.fields[1]!.uid);
    await editor.save();
    expect(editor.conflict).toEqual({
      statusesInUse: [{ id: 'done', name: 'Done', taskCount: 0 }],
      invalidFieldValues: [
        { key: 'patient', name: 'Patient', taskCount: 0, reason: 'its type changes' },
        { key: 'kind', name: 'Kind', taskCount: 0, reason: 'the field is removed' },
      ],
      counted: false,
    });
    // No status of the removed one's category is left: the first status is offered.
    expect(editor.migrateTo).toBe('todo');
    editor.addField();
    expect([editor.conflict, editor.error]).toEqual([null, null]);
  });

  it('says a refusal other than a conflict, and keeps the editor open', async () => {
    fake.fail('followUps.saveBoard', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    const editor = new BoardEditorStore(followUps, board);
    expect(await editor.save()).toBe(false);
    expect([editor.conflict, editor.error?.kind, editor.saving]).toEqual([null, 'offline', false]);
  });
});

describe('the board editor’s words', () => {
  it('counts the tasks a change touches when the service counted them', () => {
    expect(removedStatusText({ name: 'Waiting', taskCount: 1 }, true)).toBe(
      '“Waiting” is removed but 1 task uses it.',
    );
    expect(removedStatusText({ name: 'Waiting', taskCount: 0 }, false)).toBe(
      '“Waiting” is removed.',
    );
    expect(
      invalidFieldText({ name: 'Kind', taskCount: 2, reason: 'options are removed' }, true),
    ).toBe('2 tasks hold values of “Kind” that become invalid (options are removed).');
    expect(invalidFieldText({ name: 'Kind', taskCount: 0, reason: '' }, false)).toBe(
      'Values of “Kind” may become invalid.',
    );
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskBoard } from '../../src/shared/api';
import { FollowUpsStore } from '../../src/renderer/src/lib/follow-ups.svelte';
import { TaskDetailStore } from '../../src/renderer/src/lib/task-detail.svelte';
import { FakeEarmark, settle, sourced } from './support';

const board: TaskBoard = {
  id: 'b-1',
  name: 'Follow-ups',
  statuses: [
    { id: 'todo', name: 'To do', category: 'open' },
    { id: 'done', name: 'Done', category: 'done' },
  ],
  fields: [
    { key: 'patient', name: 'Patient', type: 'text' },
    { key: 'cost', name: 'Cost', type: 'number' },
  ],
  createdAt: '2026-11-01T00:00:00.000Z',
};
const task = (id: string, extra: Partial<Task> = {}): Task => ({
  id,
  boardId: 'b-1',
  title: `Task ${id}`,
  groupKey: 'label-1',
  fields: { patient: 'Bella', cost: 40, retired: 'x' },
  linkUrl: '',
  description: '',
  assignee: '',
  dueDate: '',
  completedAt: '',
  completedAtIso: null,
  statusId: 'todo',
  createdAt: '2026-11-23T11:00:00.000Z',
  updatedAt: '2026-11-23T11:00:00.000Z',
  ...extra,
});

describe('a task’s details', () => {
  let fake: FakeEarmark;
  let followUps: FollowUpsStore;
  /** The task the panel shows, as the board has it now (the screen passes it the same way). */
  let shownId: string;
  let detail: TaskDetailStore;
  beforeEach(async () => {
    fake = new FakeEarmark();
    fake.handle('followUps.boards', () => sourced([board]));
    fake.handle('followUps.board', () =>
      sourced({ board, tasks: [task('t-1'), task('t-2')], total: 2, comments: {} }),
    );
    followUps = new FollowUpsStore(fake);
    followUps.attach('account-1');
    await settle();
    shownId = 't-1';
    detail = new TaskDetailStore(
      followUps,
      () => board,
      () => followUps.view!.tasks.find((t) => t.id === shownId)!,
    );
    detail.show();
  });

  it('drafts the task’s values as text and sends only what changed, a number as a number', async () => {
    expect(detail.draft.fields).toEqual({ patient: 'Bella', cost: '40' });
    expect(detail.dirty).toBe(false);
    detail.draft.fields.cost = ' 42.5 ';
    detail.draft.fields.patient = '';
    detail.draft.assignee = ' Reception ';
    expect(detail.dirty).toBe(true);
    fake.handle('followUps.patchTask', ({ taskId, patch }) =>
      task(taskId, { fields: { cost: 42.5 }, assignee: patch.assignee ?? '' }),
    );
    await detail.save();
    expect(fake.callsOf('followUps.patchTask')).toEqual([
      {
        taskId: 't-1',
        patch: { fields: { patient: null, cost: 42.5 }, assignee: 'Reception' },
      },
    ]);
    // The draft follows the service's answer; the save is said.
    expect(detail.draft.fields).toEqual({ patient: '', cost: '42.5' });
    expect(detail.saved).toBe(true);
  });

  it('refuses a number field that holds no number, without asking the service', async () => {
    detail.draft.fields.cost = 'forty';
    await detail.save();
    expect(detail.saveError?.message).toBe('Cost must be a number.');
    expect(fake.callsOf('followUps.patchTask')).toEqual([]);
    detail.undo();
    expect(detail.dirty).toBe(false);
  });

  it('keeps the draft when the service refuses, and says why', async () => {
    fake.fail('followUps.patchTask', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    detail.draft.description = 'Call after 3 pm';
    await detail.save();
    expect([detail.saving, detail.saved, detail.saveError?.kind]).toEqual([
      false,
      false,
      'offline',
    ]);
    expect(detail.draft.description).toBe('Call after 3 pm');
  });

  it('changes the status at once; a refusal says so and the menu goes back', async () => {
    fake.handle('followUps.patchTask', ({ taskId, patch }) =>
      task(taskId, { statusId: patch.statusId! }),
    );
    expect(await detail.changeStatus('todo')).toBe(true); // its own: nothing sent
    expect(fake.callsOf('followUps.patchTask')).toEqual([]);
    expect(await detail.changeStatus('done')).toBe(true);
    expect(followUps.view?.tasks[0]?.statusId).toBe('done');
    fake.fail('followUps.patchTask', { kind: 'conflict', message: 'The board changed.' });
    expect(await detail.changeStatus('todo')).toBe(false);
    expect(detail.statusError?.message).toBe('The board changed.');
  });

  it('posts a comment and empties the box; a blank one is not sent', async () => {
    fake.handle('followUps.comment', ({ taskId, body }) => ({
      id: 'c-1',
      taskId,
      body,
      authorEmail: '',
      createdAt: '2026-11-24T09:00:00.000Z',
    }));
    detail.commentBody = '   ';
    await detail.comment();
    expect(fake.callsOf('followUps.comment')).toEqual([]);
    detail.commentBody = ' Owner called back. ';
    await detail.comment();
    expect(fake.callsOf('followUps.comment')).toEqual([
      { taskId: 't-1', body: 'Owner called back.' },
    ]);
    expect(detail.commentBody).toBe('');
    expect(followUps.view?.comments['t-1']).toHaveLength(1);
  });

  it('starts afresh for another task, and names the values of fields the board no longer has', async () => {
    expect(detail.orphanValues).toEqual([['retired', 'x']]);
    fake.fail('followUps.comment', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    detail.commentBody = 'Again';
    await detail.comment();
    detail.draft.assignee = 'Reception';
    detail.show(); // the same task again: the draft and the error stay
    expect([detail.draft.assignee, detail.commentError?.kind]).toEqual(['Reception', 'offline']);
    shownId = 't-2';
    detail.show();
    expect([detail.draft.assignee, detail.commentError, detail.commentBody]).toEqual([
      '',
      null,
      '',
    ]);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskBoard } from '../../src/shared/api';
import type { BoardView } from '../../src/shared/ipc';
import { FollowUpsStore } from '../../src/renderer/src/lib/follow-ups.svelte';
import { FakeEarmark, settle, sourced } from './support';

const board = (id: string): TaskBoard => ({
  id,
  name: `Board ${id}`,
  statuses: [
    { id: 'todo', name: 'To do', category: 'open' },
    { id: 'done', name: 'Done', category: 'done' },
  ],
  fields: [],
  createdAt: '2026-11-01T00:00:00.000Z',
});
const task = (id: string, boardId: string, extra: Partial<Task> = {}): Task => ({
  id,
  boardId,
  title: `Task ${id}`,
  groupKey: 'label-1',
  fields: {},
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
const view = (boardId: string, tasks: Task[]): BoardView => ({
  board: board(boardId),
  tasks,
  total: tasks.length,
  comments: {},
});

describe('the Follow-ups store', () => {
  let fake: FakeEarmark;
  let store: FollowUpsStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    fake.handle('followUps.boards', () => sourced([board('b-1'), board('b-2')], 'cache'));
    fake.handle('followUps.board', ({ boardId }) =>
      sourced(view(boardId, [task(`${boardId}-t1`, boardId)])),
    );
    store = new FollowUpsStore(fake);
  });

  it('reads the boards (saying they are the cache’s) and opens the first', async () => {
    store.attach('account-1');
    await settle();
    expect(store.boards.map((b) => b.id)).toEqual(['b-1', 'b-2']);
    expect(store.boardsSource).toBe('cache');
    expect(store.board?.id).toBe('b-1');
    expect(store.view?.tasks.map((t) => t.id)).toEqual(['b-1-t1']);
  });

  it('opens a task shown from a record before the screen attaches, and keeps it', async () => {
    store.show('account-1', 'b-2', 'b-2-t1');
    store.attach('account-1');
    await settle();
    expect(store.board?.id).toBe('b-2');
    expect(store.selected?.id).toBe('b-2-t1');
    expect(store.filter).toBe('all');
    store.attach('account-2'); // another account starts over
    expect(store.selectedTaskId).toBeNull();
    expect(store.filter).toBe('open');
  });

  it('keeps only the board chosen last when answers cross', async () => {
    const answers = new Map<string, () => void>();
    fake.handle(
      'followUps.board',
      ({ boardId }) =>
        new Promise((resolve) =>
          answers.set(boardId, () =>
            resolve(sourced(view(boardId, [task(`${boardId}-t`, boardId)]))),
          ),
        ),
    );
    store.attach('account-1');
    await settle();
    store.selectBoard('b-2');
    await settle();
    answers.get('b-2')!();
    await settle();
    answers.get('b-1')!();
    await settle();
    expect(store.view?.board.id).toBe('b-2');
  });

  it('sends only the changed fields of a task and shows the service’s answer', async () => {
    fake.handle('followUps.patchTask', ({ taskId }) =>
      task(taskId, 'b-1', { statusId: 'done', completedAtIso: '2026-11-24T09:00:00.000Z' }),
    );
    store.attach('account-1');
    await settle();
    await store.patchTask('b-1-t1', { statusId: 'done' });
    expect(fake.callsOf('followUps.patchTask')).toEqual([
      { taskId: 'b-1-t1', patch: { statusId: 'done' } },
    ]);
    expect(store.view?.tasks[0]!.statusId).toBe('done');
  });

  it('adds a comment under its task; a refused one changes nothing', async () => {
    fake.handle('followUps.comment', ({ taskId, body }) => ({
      id: 'c-1',
      taskId,
      body,
      authorEmail: 'vet@example.com',
      createdAt: '2026-11-24T09:00:00.000Z',
    }));
    store.attach('account-1');
    await settle();
    await store.comment('b-1-t1', 'Owner called back.');
    expect(store.view?.comments['b-1-t1']?.map((c) => c.body)).toEqual(['Owner called back.']);
    fake.fail('followUps.comment', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    const refused = await store.comment('b-1-t1', 'Again');
    expect(refused.ok).toBe(false);
    expect(store.view?.comments['b-1-t1']).toHaveLength(1);
  });

  it('moves a task dropped on another column to that status, not one dropped on its own; a refusal is kept', async () => {
    store.attach('account-1');
    await settle();
    fake.handle('followUps.patchTask', ({ taskId, patch }) => ({
      ...task(taskId, 'b-1'),
      statusId: patch.statusId!,
    }));
    await store.moveTask('b-1-t1', 'todo');
    expect(fake.callsOf('followUps.patchTask')).toEqual([]);
    await store.moveTask('b-1-t1', 'done');
    expect(fake.callsOf('followUps.patchTask')).toEqual([
      { taskId: 'b-1-t1', patch: { statusId: 'done' } },
    ]);
    expect(store.view?.tasks[0]?.statusId).toBe('done');
    expect(store.moveError).toBeNull();
    fake.fail('followUps.patchTask', { kind: 'conflict', message: 'The board changed.' });
    await store.moveTask('b-1-t1', 'todo');
    expect(store.moveError?.message).toBe('The board changed.');
    expect(store.view?.tasks[0]?.statusId).toBe('done');
  });

  it('says what the board shows: tasks by the filter, counts, its columns, strays and visits', async () => {
    fake.handle('followUps.board', ({ boardId }) =>
      sourced({
        ...view(boardId, [
          task('t-1', boardId, { groupKey: 'visit-a' }),
          task('t-2', boardId, { statusId: 'done', groupKey: 'visit-a' }),
          task('t-3', boardId, { statusId: 'gone', groupKey: '' }),
        ]),
        comments: { 't-1': [] },
      }),
    );
    store.attach('account-1');
    await settle();
    expect(store.cached).toBe(true); // the board list came from the cache
    expect(store.categoryCounts).toEqual({ open: 2, done: 1, all: 3 });
    expect(store.countsByStatus).toEqual({ todo: 1, done: 1, gone: 1 });
    // Open: a status the board no longer has counts as open, and is shown apart.
    expect(store.shown.map((t) => t.id)).toEqual(['t-1', 't-3']);
    expect(store.columns.map((s) => s.id)).toEqual(['todo']);
    expect(store.strays.map((t) => t.id)).toEqual(['t-3']);
    store.filter = 'done';
    expect(store.columns.map((s) => s.id)).toEqual(['done']);
    expect(store.tasksIn('done').map((t) => t.id)).toEqual(['t-2']);
    store.filter = 'all';
    expect(store.visits.map((v) => [v.groupKey, v.tasks.map((t) => t.id)])).toEqual([
      ['visit-a', ['t-1', 't-2']],
      ['', ['t-3']],
    ]);
    expect(store.commentCount('t-1')).toBe(0);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { Task, TaskBoard } from '../../src/shared/api';
import { RECORD_LINK_PREFIX } from '../../src/shared/ipc/constants';
import { FollowUpsStore } from '../../src/renderer/src/lib/follow-ups.svelte';
import {
  DEFAULT_BOARD_NAME,
  RecordFollowUpsStore,
} from '../../src/renderer/src/lib/record-follow-ups.svelte';
import { FakeEarmark, sourced } from './support';

const board = (id: string, fieldKeys: string[]): TaskBoard => ({
  id,
  name: `Board ${id}`,
  statuses: [{ id: 'todo', name: 'To do', category: 'open' }],
  fields: fieldKeys.map((key) => ({ key, name: key, type: 'text' })),
  createdAt: '2026-11-01T00:00:00.000Z',
});
const task = (id: string, boardId: string): Task => ({
  id,
  boardId,
  title: 'Call the owner',
  groupKey: 'label-1',
  fields: {},
  linkUrl: `${RECORD_LINK_PREFIX}label-1`,
  description: '',
  assignee: '',
  dueDate: '',
  completedAt: '',
  completedAtIso: null,
  statusId: 'todo',
  createdAt: '2026-11-23T11:00:00.000Z',
  updatedAt: '2026-11-23T11:00:00.000Z',
});

let fake: FakeEarmark;
let store: RecordFollowUpsStore;
beforeEach(() => {
  fake = new FakeEarmark();
  store = new RecordFollowUpsStore(fake, new FollowUpsStore(fake));
});

describe('a record’s follow-ups', () => {
  it('lists the record’s tasks and adds several at once, linked back to the record', async () => {
    const boards = [board('b-1', ['patient']), board('b-2', ['patient', 'doctor'])];
    let tasks: Task[] = [];
    fake.handle('followUps.group', ({ groupKey }) => sourced({ groupKey, boards, tasks }));
    fake.handle('followUps.addTasks', ({ boardId, items }) => {
      tasks = items.map((_, i) => task(`t-${i}`, boardId));
      return tasks;
    });
    await store.open('label-1');
    expect(store.group?.tasks).toEqual([]);
    const added = await store.add({
      boardId: 'b-1',
      titles: ['  Call the owner ', '', 'Recheck in 2 weeks'],
      fields: { patient: ' Bella ', doctor: 'Dr Reyes' },
    });
    expect(added).toBe(true);
    // Blank titles left out; only the fields the board has; values trimmed.
    expect(fake.callsOf('followUps.addTasks')).toEqual([
      {
        boardId: 'b-1',
        items: ['Call the owner', 'Recheck in 2 weeks'].map((title) => ({
          title,
          groupKey: 'label-1',
          linkUrl: `${RECORD_LINK_PREFIX}label-1`,
          fields: { patient: 'Bella' },
        })),
      },
    ]);
    expect(store.added).toBe('Added 2 follow-ups to “Board b-1”.');
    expect(store.group?.tasks).toHaveLength(2);
  });

  it('makes the default board first when the organization has none', async () => {
    fake.handle('followUps.group', ({ groupKey }) => sourced({ groupKey, boards: [], tasks: [] }));
    fake.handle('followUps.createBoard', ({ name }) => ({ ...board('new', ['patient']), name }));
    fake.handle('followUps.board', () =>
      sourced({ board: board('new', []), tasks: [], total: 0, comments: {} }),
    );
    fake.handle('followUps.addTasks', ({ boardId }) => [task('t-1', boardId)]);
    await store.open('label-1');
    expect(await store.add({ boardId: null, titles: ['Call'], fields: {} })).toBe(true);
    expect(fake.callsOf('followUps.createBoard')).toEqual([{ name: DEFAULT_BOARD_NAME }]);
    expect(fake.callsOf('followUps.addTasks')[0]!.boardId).toBe('new');
  });

  it('keeps the form’s error when the service refuses, and adds nothing without a title', async () => {
    fake.handle('followUps.group', ({ groupKey }) =>
      sourced({ groupKey, boards: [board('b-1', [])], tasks: [] }),
    );
    fake.fail('followUps.addTasks', { kind: 'forbidden', message: 'This key cannot add tasks.' });
    await store.open('label-1');
    expect(await store.add({ boardId: 'b-1', titles: [' '], fields: {} })).toBe(false);
    expect(fake.callsOf('followUps.addTasks')).toEqual([]);
    expect(await store.add({ boardId: 'b-1', titles: ['Call'], fields: {} })).toBe(false);
    expect(store.saveError?.message).toBe('This key cannot add tasks.');
    expect(store.saving).toBe(false);
  });
});

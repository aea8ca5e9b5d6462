import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCache } from '../../../src/main/cache';
import {
  DEFAULT_FIELDS,
  DEFAULT_STATUSES,
  type Task,
  type TaskBoard,
} from '../../../src/shared/api';
import { T0, useTempDir } from './helpers';

const tempDir = useTempDir('cache-tasks');
const iso = (ms: number) => new Date(ms).toISOString();

const board = (id: string, atMs: number): TaskBoard => ({
  id,
  name: `Board ${id}`,
  statuses: [...DEFAULT_STATUSES],
  fields: [...DEFAULT_FIELDS],
  createdAt: iso(atMs),
});

const task = (
  id: string,
  boardId: string,
  statusId: string,
  atMs: number,
  groupKey = '',
): Task => ({
  id,
  boardId,
  title: `Task ${id}`,
  groupKey,
  fields: { patient: 'Maple', weight: 12 },
  linkUrl: '',
  description: '',
  assignee: '',
  dueDate: '',
  completedAt: '',
  completedAtIso: statusId === 'completed' ? iso(atMs) : null,
  statusId,
  createdAt: iso(atMs),
  updatedAt: iso(atMs),
});

describe('task boards and tasks', () => {
  it('are cached for the follow-up screen and filtered as the service filters them', async () => {
    const cache = await openCache({ file: join(tempDir(), 'c.sqlite'), thread: 'main' });
    expect(await cache.read.boardListRead()).toBeNull();
    await cache.write.storeBoardList([board('b2', T0 + 1), board('b1', T0)], T0);
    expect((await cache.read.taskBoards()).map((b) => b.id)).toEqual(['b1', 'b2']);
    expect(await cache.read.boardListRead()).toEqual({ fetchedAt: iso(T0), total: 2 });
    const tasks = [
      task('t1', 'b1', 'not_addressed', T0, 'today'),
      task('t2', 'b1', 'completed', T0 + 1, 'today'),
      task('t3', 'b1', 'in_progress', T0 + 2),
    ];
    await cache.write.storeTasks(tasks, T0, { boardId: 'b1', total: 3 });
    expect(await cache.read.tasks('b1')).toEqual({ items: tasks, total: 3 });
    expect(await cache.read.boardTasksRead('b1')).toEqual({ fetchedAt: iso(T0), total: 3 });
    expect(await cache.read.boardTasksRead('b2')).toBeNull();
    expect((await cache.read.groupTasks('today')).map((t) => t.id)).toEqual(['t1', 't2']);
    expect((await cache.read.tasks('b1', { category: 'open' })).items.map((t) => t.id)).toEqual([
      't1',
      't3',
    ]);
    expect((await cache.read.tasks('b1', { category: 'done' })).total).toBe(1);
    expect(
      (await cache.read.tasks('b1', { groupKey: 'today', limit: 1 })).items.map((t) => t.id),
    ).toEqual(['t1']);
    expect(
      (await cache.read.tasks('b1', { statusId: 'in_progress' })).items.map((t) => t.id),
    ).toEqual(['t3']);
    // A whole board drops what it lacks; the board list too, with the board's tasks.
    await cache.write.storeTasks(tasks.slice(1), T0 + 5, { boardId: 'b1', total: 2 });
    expect((await cache.read.tasks('b1')).total).toBe(2);
    // Single tasks join their board; tasks of a board the cache lacks are left out.
    await cache.write.storeTasks(
      [task('t4', 'b2', 'in_progress', T0), task('t5', 'bX', 'x', T0)],
      T0,
    );
    expect((await cache.read.tasks('b2')).items.map((t) => t.id)).toEqual(['t4']);
    expect((await cache.read.stats()).tasks).toBe(3);
    await cache.write.storeBoardList([board('b2', T0 + 1)], T0 + 9);
    expect(await cache.read.tasks('b1')).toEqual({ items: [], total: 0 });
    expect(await cache.read.boardTasksRead('b1')).toBeNull();
    expect((await cache.read.stats()).taskBoards).toBe(1);
    // A board created or opened joins the list without dropping the others.
    await cache.write.storeBoards([board('b3', T0 + 2)], T0 + 10);
    expect((await cache.read.taskBoards()).map((b) => b.id)).toEqual(['b2', 'b3']);
    await cache.close();
  });
});

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
    await cache.write.storeTaskBoards([board('b2', T0 + 1), board('b1', T0)], T0);
    expect((await cache.read.taskBoards()).map((b) => b.id)).toEqual(['b1', 'b2']);
    const tasks = [
      task('t1', 'b1', 'not_addressed', T0, 'today'),
      task('t2', 'b1', 'completed', T0 + 1, 'today'),
      task('t3', 'b1', 'in_progress', T0 + 2),
    ];
    await cache.write.storeTasks('b1', tasks, T0, { complete: true });
    expect(await cache.read.tasks('b1')).toEqual({ items: tasks, total: 3 });
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
    // A complete list drops what it lacks; the board list too, with the board's tasks.
    await cache.write.storeTasks('b1', tasks.slice(1), T0, { complete: true });
    expect((await cache.read.tasks('b1')).total).toBe(2);
    await cache.write.storeTaskBoards([board('b2', T0 + 1)], T0);
    expect(await cache.read.tasks('b1')).toEqual({ items: [], total: 0 });
    expect((await cache.read.stats()).taskBoards).toBe(1);
    await cache.close();
  });
});

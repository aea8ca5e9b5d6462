import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_FIELDS,
  DEFAULT_STATUSES,
  type BoardConflictProblem,
  type Comment,
  type FieldDefinition,
  type Task,
  type TaskBoard,
  type TaskItems,
  type TaskList,
  type TaskStatus,
} from '../../src/shared/api';
import { problemOf, startService, type RunningService } from './harness';

let svc: RunningService;
let key: string;

beforeAll(async () => {
  svc = await startService();
  key = svc.credentials.primary.apiKey;
});
afterAll(() => svc.dispose());

const send = (method: string, path: string, json?: unknown) =>
  svc.call(path, { key, method, json });

async function createBoard(body: object = { name: 'Follow-ups' }): Promise<TaskBoard> {
  const response = await send('POST', '/task-boards', body);
  expect(response.status).toBe(201);
  return (await response.json()) as TaskBoard;
}

async function bulk(boardId: string, items: object[]): Promise<Task[]> {
  const response = await send('POST', `/task-boards/${boardId}/tasks/bulk`, { items });
  expect(response.status).toBe(201);
  return ((await response.json()) as TaskItems).items;
}

async function patchTask(taskId: string, body: object): Promise<Task> {
  const response = await send('PATCH', `/tasks/${taskId}`, body);
  expect(response.status).toBe(200);
  return (await response.json()) as Task;
}

const listTasks = async (boardId: string, query = '') =>
  (await (await send('GET', `/task-boards/${boardId}/tasks${query}`)).json()) as TaskList;

const eventsOfTask = (taskId: string) =>
  svc.service.events.since(0).filter((e) => e.data.taskId === taskId);

describe('task boards (seed §2.6, §4.4)', () => {
  it('creates a board from the default template when statuses and fields are omitted', async () => {
    const board = await createBoard();
    expect(board.name).toBe('Follow-ups');
    expect(board.statuses.map((s) => s.name)).toEqual([
      'Not addressed',
      'In progress',
      'Completed',
      'No Action Needed',
    ]);
    expect(board.statuses.find((s) => s.id === 'completed')?.category).toBe('done');
    expect(board.fields.map((f) => f.name)).toEqual([
      'Patient',
      'Doctor',
      'Invoiced items',
      'Initials',
    ]);
    expect(board.fields.map((f) => f.key)).toEqual(
      expect.arrayContaining(['patient', 'doctor', 'initials']),
    );
    const fetched = await send('GET', `/task-boards/${board.id}`);
    expect(await fetched.json()).toEqual(board);
    const list = (await (await send('GET', '/task-boards')).json()) as { items: TaskBoard[] };
    expect(list.items.map((b) => b.id)).toContain(board.id);
  });

  it('takes custom statuses and fields, and refuses duplicate ids and select fields without options', async () => {
    const statuses: TaskStatus[] = [
      { id: 'todo', name: 'To do', category: 'open' },
      { id: 'done', name: 'Done', category: 'done' },
    ];
    const fields: FieldDefinition[] = [
      { key: 'weight', name: 'Weight (kg)', type: 'number' },
      { key: 'recheck', name: 'Recheck', type: 'date' },
      { key: 'channel', name: 'Channel', type: 'select', options: ['phone', 'email'] },
    ];
    const board = await createBoard({ name: 'Rechecks', statuses, fields });
    expect(board.statuses).toEqual(statuses);
    expect(board.fields).toEqual(fields);

    const duplicate = await send('POST', '/task-boards', {
      name: 'Bad',
      statuses: [statuses[0], { ...statuses[1], id: 'todo' }],
    });
    expect(duplicate.status).toBe(400);
    expect((await problemOf(duplicate)).errors?.[0]?.pointer).toBe('/statuses/1/id');
    const noOptions = await send('POST', '/task-boards', {
      name: 'Bad',
      fields: [{ key: 'channel', name: 'Channel', type: 'select' }],
    });
    expect(noOptions.status).toBe(400);
    expect((await problemOf(noOptions)).detail).toContain('"fields.0.options"');
    const badCategory = await send('POST', '/task-boards', {
      name: 'Bad',
      statuses: [{ id: 'x', name: 'X', category: 'archived' }],
    });
    expect(badCategory.status).toBe(400);
    expect((await send('POST', '/task-boards', { statuses })).status).toBe(400);
  });

  it('answers 404 for an unknown board and 403 for another organization’s', async () => {
    expect((await send('GET', '/task-boards/00000000-0000-4000-8000-000000000000')).status).toBe(
      404,
    );
    const board = await createBoard();
    const foreign = await svc.call(`/task-boards/${board.id}`, {
      key: svc.credentials.secondary.apiKey,
    });
    expect(foreign.status).toBe(403);
    expect((await problemOf(foreign)).code).toBe('organization_mismatch');
  });

  it('needs the tasks scope', async () => {
    const response = await svc.call('/task-boards', {
      key: svc.credentials.labelsOnly.apiKey,
      method: 'POST',
      json: { name: 'x' },
    });
    expect(response.status).toBe(403);
    expect((await problemOf(response)).code).toBe('scope_missing');
  });
});

describe('PATCH board: whole arrays, 409s and their escape hatches (§4.4 rules 2-3)', () => {
  it('replaces the arrays when nothing becomes invalid', async () => {
    const board = await createBoard();
    const statuses = [...board.statuses, { id: 'waiting', name: 'Waiting', category: 'open' }];
    const response = await send('PATCH', `/task-boards/${board.id}`, {
      name: 'Renamed',
      statuses,
    });
    expect(response.status).toBe(200);
    const patched = (await response.json()) as TaskBoard;
    expect(patched).toMatchObject({ name: 'Renamed', statuses, fields: board.fields });
    const shorter = await send('PATCH', `/task-boards/${board.id}`, {
      statuses: statuses.slice(0, 3),
    });
    expect(shorter.status).toBe(200); // no task uses "No Action Needed" or "Waiting"
  });

  it('refuses to remove a status tasks use, naming it and how many, and changes nothing', async () => {
    const board = await createBoard();
    await bulk(board.id, [
      { title: 'Call owner', statusId: 'in_progress' },
      { title: 'Send invoice', statusId: 'in_progress' },
      { title: 'Book recheck' },
    ]);
    const without = board.statuses.filter((s) => s.id !== 'in_progress');
    const response = await send('PATCH', `/task-boards/${board.id}`, {
      name: 'Should not stick',
      statuses: without,
    });
    expect(response.status).toBe(409);
    const problem = (await response.json()) as BoardConflictProblem;
    expect(problem.code).toBe('conflict');
    expect(problem.statusesInUse).toEqual([
      { id: 'in_progress', name: 'In progress', taskCount: 2 },
    ]);
    expect(problem.invalidFieldValues).toEqual([]);
    expect(problem.detail).toContain('"In progress"');
    expect(problem.detail).toContain('2 tasks');
    expect(problem.detail).toContain('migrateTo');
    expect(await (await send('GET', `/task-boards/${board.id}`)).json()).toEqual(board);
  });

  it('moves the tasks to migrateTo in the same save, stamping completedAtIso for a done status', async () => {
    const board = await createBoard();
    const [a, b, c] = await bulk(board.id, [
      { title: 'A', statusId: 'in_progress' },
      { title: 'B', statusId: 'in_progress' },
      { title: 'C' },
    ]);
    const without = board.statuses.filter((s) => s.id !== 'in_progress');
    const response = await send('PATCH', `/task-boards/${board.id}?migrateTo=completed`, {
      statuses: without,
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as TaskBoard).statuses).toEqual(without);
    const tasks = (await listTasks(board.id)).items;
    expect(tasks.map((t) => t.statusId)).toEqual(['completed', 'completed', 'not_addressed']);
    expect(tasks[0]!.completedAtIso).not.toBeNull();
    expect(tasks[2]!.completedAtIso).toBeNull();
    expect(eventsOfTask(a!.id).at(-1)?.data).toEqual({
      taskId: a!.id,
      boardId: board.id,
      changed: ['statusId', 'completedAtIso'],
    });
    expect(eventsOfTask(b!.id)).toHaveLength(2);
    expect(eventsOfTask(c!.id)).toHaveLength(1); // created only
  });

  it('refuses a migrateTo that is not a status the board keeps', async () => {
    const board = await createBoard();
    await bulk(board.id, [{ title: 'A', statusId: 'in_progress' }]);
    const response = await send('PATCH', `/task-boards/${board.id}?migrateTo=in_progress`, {
      statuses: board.statuses.filter((s) => s.id !== 'in_progress'),
    });
    expect(response.status).toBe(400);
    expect((await problemOf(response)).errors?.[0]).toMatchObject({
      location: 'query',
      pointer: '/migrateTo',
    });
  });

  it('refuses field changes that invalidate stored values, naming fields and counts', async () => {
    const board = await createBoard({
      name: 'Typed',
      fields: [
        { key: 'doctor', name: 'Doctor', type: 'text' },
        { key: 'weight', name: 'Weight', type: 'text' },
        { key: 'channel', name: 'Channel', type: 'select', options: ['phone', 'email'] },
      ],
    });
    await bulk(board.id, [
      { title: 'A', fields: { doctor: 'Dr Marsh', weight: '12 kg', channel: 'phone' } },
      { title: 'B', fields: { doctor: 'Dr Nair', channel: 'email' } },
      { title: 'C', fields: { weight: '3 kg' } },
    ]);
    const fields: FieldDefinition[] = [
      { key: 'weight', name: 'Weight', type: 'number' },
      { key: 'channel', name: 'Channel', type: 'select', options: ['phone'] },
    ];
    const response = await send('PATCH', `/task-boards/${board.id}`, { fields });
    expect(response.status).toBe(409);
    const problem = (await response.json()) as BoardConflictProblem;
    expect(problem.statusesInUse).toEqual([]);
    expect(problem.invalidFieldValues).toEqual([
      { key: 'doctor', name: 'Doctor', taskCount: 2, reason: 'the field is removed' },
      {
        key: 'weight',
        name: 'Weight',
        taskCount: 2,
        reason: "the field's type changes from text to number",
      },
      {
        key: 'channel',
        name: 'Channel',
        taskCount: 1,
        reason: 'the values are no longer among its options',
      },
    ]);
    expect(problem.detail).toContain('dropInvalidFieldValues=true');
    expect((await listTasks(board.id)).items[0]!.fields).toEqual({
      doctor: 'Dr Marsh',
      weight: '12 kg',
      channel: 'phone',
    });

    const dropped = await send('PATCH', `/task-boards/${board.id}?dropInvalidFieldValues=true`, {
      fields,
    });
    expect(dropped.status).toBe(200);
    expect(((await dropped.json()) as TaskBoard).fields).toEqual(fields);
    expect((await listTasks(board.id)).items.map((t) => t.fields)).toEqual([
      { channel: 'phone' },
      {},
      {},
    ]);
  });

  it('reports both conflicts at once, and an escape hatch for one still leaves the other', async () => {
    const board = await createBoard();
    await bulk(board.id, [{ title: 'A', statusId: 'in_progress', fields: { doctor: 'Dr Marsh' } }]);
    const change = {
      statuses: board.statuses.filter((s) => s.id !== 'in_progress'),
      fields: board.fields.filter((f) => f.key !== 'doctor'),
    };
    const both = (await (
      await send('PATCH', `/task-boards/${board.id}`, change)
    ).json()) as BoardConflictProblem;
    expect(both.statusesInUse).toHaveLength(1);
    expect(both.invalidFieldValues).toHaveLength(1);
    const onlyFields = await send(
      'PATCH',
      `/task-boards/${board.id}?migrateTo=not_addressed`,
      change,
    );
    expect(onlyFields.status).toBe(409);
    const problem = (await onlyFields.json()) as BoardConflictProblem;
    expect(problem.statusesInUse).toEqual([]);
    expect(problem.invalidFieldValues.map((f) => f.key)).toEqual(['doctor']);
    expect((await listTasks(board.id)).items[0]!.statusId).toBe('in_progress'); // nothing saved
    const ok = await send(
      'PATCH',
      `/task-boards/${board.id}?migrateTo=not_addressed&dropInvalidFieldValues=true`,
      change,
    );
    expect(ok.status).toBe(200);
    expect((await listTasks(board.id)).items[0]).toMatchObject({
      statusId: 'not_addressed',
      fields: {},
    });
  });
});

describe('tasks: creation, listing, PATCH, comments (§2.7, §3.2, §4.4)', () => {
  it('bulk creation is all-or-nothing; the error names the item index and field', async () => {
    const board = await createBoard({
      name: 'Bulk',
      fields: [...DEFAULT_FIELDS, { key: 'weight', name: 'Weight', type: 'number' }],
    });
    const before = svc.service.events.since(0).length;
    const items = [
      { title: 'Fine', fields: { patient: 'Maple' } },
      { title: 'Also fine', groupKey: 'visit-1', linkUrl: 'https://portal.example/v/1' },
      { title: 'Bad', fields: { weight: 'heavy' } },
    ];
    const bad = await send('POST', `/task-boards/${board.id}/tasks/bulk`, { items });
    expect(bad.status).toBe(400);
    const problem = await problemOf(bad);
    expect(problem.errors).toEqual([
      { location: 'body', pointer: '/items/2/fields/weight', message: 'must be a number' },
    ]);
    expect(problem.detail).toContain('"items.2.fields.weight"');
    expect(problem.detail).toContain('No task was created');

    const unknownField = await send('POST', `/task-boards/${board.id}/tasks/bulk`, {
      items: [items[0], { title: 'x', fields: { colour: 'red' } }],
    });
    expect((await problemOf(unknownField)).errors?.[0]?.pointer).toBe('/items/1/fields/colour');
    const missingTitle = await send('POST', `/task-boards/${board.id}/tasks/bulk`, {
      items: [items[0], { groupKey: 'v' }],
    });
    expect(missingTitle.status).toBe(400);
    expect((await problemOf(missingTitle)).detail).toContain('"items.1.title" is required');
    const badStatus = await send('POST', `/task-boards/${board.id}/tasks/bulk`, {
      items: [items[0], { title: 'x', statusId: 'nope' }],
    });
    expect((await problemOf(badStatus)).errors?.[0]?.pointer).toBe('/items/1/statusId');

    expect((await listTasks(board.id)).total).toBe(0);
    expect(svc.service.events.since(0)).toHaveLength(before);

    const created = await bulk(board.id, [
      { ...items[0], fields: { patient: 'Maple', weight: 12.5 } },
      items[1]!,
    ]);
    expect(created).toHaveLength(2);
    expect(created[0]).toMatchObject({
      title: 'Fine',
      statusId: 'not_addressed',
      fields: { patient: 'Maple', weight: 12.5 },
      groupKey: '',
      completedAtIso: null,
    });
    expect(created[1]).toMatchObject({
      groupKey: 'visit-1',
      linkUrl: 'https://portal.example/v/1',
    });
    const events = svc.service.events.since(0).slice(before);
    expect(events.map((e) => [e.type, e.data])).toEqual(
      created.map((t) => ['task_created', { taskId: t.id, boardId: board.id }]),
    );
  });

  it('creates a single task too, and reads it back', async () => {
    const board = await createBoard();
    const response = await send('POST', `/task-boards/${board.id}/tasks`, {
      title: 'One',
      statusId: 'completed',
    });
    expect(response.status).toBe(201);
    const task = (await response.json()) as Task;
    expect(task.completedAtIso).not.toBeNull(); // created in a done status
    expect(await (await send('GET', `/tasks/${task.id}`)).json()).toEqual(task);
  });

  it('lists with the category filter: items and total', async () => {
    const board = await createBoard();
    await bulk(board.id, [
      { title: 'open 1' },
      { title: 'open 2', statusId: 'in_progress', groupKey: 'visit-9' },
      { title: 'done 1', statusId: 'completed', groupKey: 'visit-9' },
      { title: 'done 2', statusId: 'no_action_needed' },
    ]);
    const open = await listTasks(board.id, '?category=open');
    expect(open.total).toBe(2);
    expect(open.items.map((t) => t.title)).toEqual(['open 1', 'open 2']);
    const done = await listTasks(board.id, '?category=done');
    expect(done.items.map((t) => t.title)).toEqual(['done 1', 'done 2']);
    expect((await listTasks(board.id)).total).toBe(4);
    const page = await listTasks(board.id, '?limit=1&offset=1');
    expect(page).toMatchObject({ total: 4, items: [{ title: 'open 2' }] });
    expect((await listTasks(board.id, '?groupKey=visit-9&category=done')).total).toBe(1);
    expect((await send('GET', `/task-boards/${board.id}/tasks?category=closed`)).status).toBe(400);
  });

  it('PATCH fields is a merge patch: only keys sent change, null deletes a key', async () => {
    const board = await createBoard();
    const [task] = await bulk(board.id, [
      { title: 'T', fields: { patient: 'Maple', doctor: 'Dr Marsh', initials: 'HM' } },
    ]);
    const patched = await patchTask(task!.id, { fields: { doctor: 'Dr Nair', initials: null } });
    expect(patched.fields).toEqual({ patient: 'Maple', doctor: 'Dr Nair' });
    expect(eventsOfTask(task!.id).at(-1)?.data.changed).toEqual([
      'fields.doctor',
      'fields.initials',
    ]);
    const bad = await send('PATCH', `/tasks/${task!.id}`, { fields: { colour: 'red' } });
    expect(bad.status).toBe(400);
    expect((await problemOf(bad)).errors?.[0]?.pointer).toBe('/fields/colour');
  });

  it('PATCH text properties: null or absent leaves them, "" clears them', async () => {
    const board = await createBoard();
    const [task] = await bulk(board.id, [
      { title: 'T', groupKey: 'visit-1', linkUrl: 'https://portal.example/v/1' },
    ]);
    const set = await patchTask(task!.id, {
      description: 'Call about lab results',
      assignee: 'Priya',
      dueDate: '2026-11-02',
      completedAt: '2026-11-01',
    });
    expect(set).toMatchObject({
      description: 'Call about lab results',
      assignee: 'Priya',
      dueDate: '2026-11-02',
      completedAt: '2026-11-01',
      groupKey: 'visit-1',
    });
    const unchanged = await patchTask(task!.id, {
      description: null,
      groupKey: null,
      assignee: null,
      dueDate: null,
      linkUrl: null,
      completedAt: null,
    });
    expect(unchanged).toEqual(set);
    const cleared = await patchTask(task!.id, {
      description: '',
      groupKey: '',
      linkUrl: '',
      completedAt: '',
    });
    expect(cleared).toMatchObject({
      description: '',
      groupKey: '',
      linkUrl: '',
      completedAt: '',
      assignee: 'Priya',
      dueDate: '2026-11-02',
    });
  });

  it('stamps completedAtIso on entering a done status, keeps it between done statuses, clears it on leaving', async () => {
    const board = await createBoard();
    const [task] = await bulk(board.id, [{ title: 'T' }]);
    const done = await patchTask(task!.id, { statusId: 'completed' });
    expect(Date.parse(done.completedAtIso!)).toBeGreaterThan(Date.now() - 5000);
    expect(done.completedAt).toBe(''); // the editable date is the user's
    expect(eventsOfTask(task!.id).at(-1)?.data.changed).toEqual(['statusId', 'completedAtIso']);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const stillDone = await patchTask(task!.id, { statusId: 'no_action_needed' });
    expect(stillDone.completedAtIso).toBe(done.completedAtIso);
    const reopened = await patchTask(task!.id, { statusId: 'in_progress' });
    expect(reopened.completedAtIso).toBeNull();
    const unknown = await send('PATCH', `/tasks/${task!.id}`, { statusId: 'archived' });
    expect(unknown.status).toBe(400);
    expect((await problemOf(unknown)).errors?.[0]?.pointer).toBe('/statusId');
  });

  it('logs no event for a PATCH that changes nothing', async () => {
    const board = await createBoard();
    const [task] = await bulk(board.id, [{ title: 'T', fields: { doctor: 'Dr Marsh' } }]);
    const before = eventsOfTask(task!.id).length;
    const same = await patchTask(task!.id, {
      title: 'T',
      fields: { doctor: 'Dr Marsh', initials: null },
    });
    expect(same).toEqual(task);
    expect(eventsOfTask(task!.id)).toHaveLength(before);
  });

  it('adds comments with a required body and logs task_comment_added', async () => {
    const board = await createBoard();
    const [task] = await bulk(board.id, [{ title: 'T' }]);
    const response = await send('POST', `/tasks/${task!.id}/comments`, {
      body: 'Left a voicemail',
    });
    expect(response.status).toBe(201);
    const comment = (await response.json()) as Comment;
    expect(comment).toMatchObject({
      taskId: task!.id,
      body: 'Left a voicemail',
      authorEmail: svc.credentials.admin.email,
    });
    expect(eventsOfTask(task!.id).at(-1)).toMatchObject({
      type: 'task_comment_added',
      data: { taskId: task!.id, boardId: board.id, commentId: comment.id },
    });
    for (const body of [{}, { body: '' }]) {
      const bad = await send('POST', `/tasks/${task!.id}/comments`, body);
      expect(bad.status).toBe(400);
    }
    const unknown = await send('POST', '/tasks/00000000-0000-4000-8000-000000000000/comments', {
      body: 'x',
    });
    expect(unknown.status).toBe(404);
  });

  it("refuses another organization's task", async () => {
    const board = await createBoard();
    const [task] = await bulk(board.id, [{ title: 'T' }]);
    const response = await svc.call(`/tasks/${task!.id}`, {
      key: svc.credentials.secondary.apiKey,
      method: 'PATCH',
      json: { description: 'x' },
    });
    expect(response.status).toBe(403);
  });
});

describe('the default template constants', () => {
  it('match the seed', () => {
    expect(DEFAULT_STATUSES.filter((s) => s.category === 'done').map((s) => s.id)).toEqual([
      'completed',
      'no_action_needed',
    ]);
  });
});

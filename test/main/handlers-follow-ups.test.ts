import { announceSkip } from '../support/skip';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_FIELDS, DEFAULT_STATUSES, type Task, type TaskBoard } from '../../src/shared/api';
import {
  RECORD_LINK_PREFIX,
  type BoardView,
  type ChannelInput,
  type ChannelName,
  type ChannelOutput,
  type GroupFollowUps,
  type IpcError,
  type Sourced,
} from '../../src/shared/ipc';
import { KeychainSecretStore } from '../../src/main/accounts/secret-store';
import type { Core } from '../../src/main/core';
import { startService, type RunningService } from '../service/harness';
import { startFaultProxy, type FaultProxy } from '../support/fault-proxy';
import { secretServiceProblem } from '../support/secret-service';
import { testCore } from '../support/core';
import { filesHolding } from '../support/files';

const problem = announceSkip(
  'the tests of test/main/handlers-follow-ups.test.ts',
  secretServiceProblem(),
);

describe.skipIf(problem !== undefined)('follow-up handlers against the reference service', () => {
  let svc: RunningService;
  let proxy: FaultProxy;
  let dataDir: string;
  let core: Core;

  async function call<C extends ChannelName>(
    channel: C,
    input: ChannelInput<C>,
  ): Promise<ChannelOutput<C>> {
    const result = await core.rpc.invoke(channel, input);
    if (!result.ok) throw new Error(`${channel}: ${JSON.stringify(result.error)}`);
    return result.value as ChannelOutput<C>;
  }
  async function refused(channel: ChannelName, input: unknown): Promise<IpcError> {
    const result = await core.rpc.invoke(channel, input);
    if (result.ok) throw new Error(`${channel} succeeded: ${JSON.stringify(result.value)}`);
    return result.error;
  }

  beforeAll(async () => {
    svc = await startService();
    proxy = await startFaultProxy(svc.baseUrl);
    dataDir = mkdtempSync(join(tmpdir(), 'earmark-follow-ups-'));
    core = testCore({
      dataDir,
      keychain: new KeychainSecretStore(`Earmark-follow-ups-test-${process.pid}`),
    });
    const added = await core.rpc.invoke('accounts.add', {
      baseUrl: proxy.baseUrl,
      apiKey: svc.credentials.primary.apiKey,
    });
    expect(added.ok).toBe(true);
  });
  afterAll(async () => {
    await core?.close();
    await proxy?.close().catch(() => {});
    await svc?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  let board: TaskBoard;
  let visitTasks: Task[];
  const labelId = '3b2d6c1e-9a4f-4e57-8c1d-0f6a2b7e9d10';

  it('starts with no board and creates one from the default template', async () => {
    const before: Sourced<TaskBoard[]> = await call('followUps.boards', {});
    expect(before).toMatchObject({ value: [], source: 'service' });
    expect(before.fetchedAt).not.toBeNull();
    board = await call('followUps.createBoard', { name: 'Follow-ups' });
    expect(board.statuses).toEqual(DEFAULT_STATUSES);
    expect(board.fields).toEqual(DEFAULT_FIELDS);
    const after = await call('followUps.boards', {});
    expect(after.value.map((b) => b.id)).toEqual([board.id]);
  });

  it('creates a custom board with its own statuses and fields, checked at the boundary', async () => {
    const custom = await call('followUps.createBoard', {
      name: 'Lab results',
      statuses: [
        { id: 'waiting', name: 'Waiting', category: 'open' },
        { id: 'sent', name: 'Sent to owner', category: 'done' },
      ],
      fields: [{ key: 'lab', name: 'Lab', type: 'select', options: ['IDEXX', 'In house'] }],
    });
    expect(custom.statuses.map((s) => s.id)).toEqual(['waiting', 'sent']);
    const bad = await refused('followUps.createBoard', {
      name: 'Bad',
      statuses: [{ id: 'x', name: 'X', category: 'closed' }],
    });
    expect(bad.kind).toBe('invalid_input');
    expect(bad.message).toContain('statuses');
  });

  it('adds a visit’s follow-ups at once and finds them by groupKey on every board', async () => {
    visitTasks = await call('followUps.addTasks', {
      boardId: board.id,
      items: ['Call the owner', 'Send the invoice', 'Book the recheck'].map((title) => ({
        title,
        groupKey: labelId,
        linkUrl: `${RECORD_LINK_PREFIX}${labelId}`,
        fields: { patient: 'Maple', doctor: 'Owen Gallagher' },
      })),
    });
    expect(visitTasks).toHaveLength(3);
    expect(visitTasks[0]).toMatchObject({
      groupKey: labelId,
      statusId: 'not_addressed',
      fields: { patient: 'Maple', doctor: 'Owen Gallagher' },
    });
    await call('followUps.addTasks', {
      boardId: board.id,
      items: [{ title: 'Another visit', groupKey: 'someone-else' }],
    });
    const sourced: Sourced<GroupFollowUps> = await call('followUps.group', { groupKey: labelId });
    expect(sourced.source).toBe('service');
    const group = sourced.value;
    expect(group.tasks.map((t) => t.title).sort()).toEqual([
      'Book the recheck',
      'Call the owner',
      'Send the invoice',
    ]);
    expect(group.boards.map((b) => b.name)).toContain('Follow-ups');
  });

  it('moves a task to Completed (stamped), edits it, and keeps the comments it posted', async () => {
    const [first] = visitTasks;
    const done = await call('followUps.patchTask', {
      taskId: first!.id,
      patch: {
        statusId: 'completed',
        fields: { initials: 'OG', doctor: null },
        description: 'Owner called back',
        assignee: 'Reception',
        dueDate: '2030-01-31',
      },
    });
    expect(Date.parse(done.completedAtIso ?? '')).not.toBeNaN();
    expect(done).toMatchObject({
      fields: { patient: 'Maple', initials: 'OG' },
      description: 'Owner called back',
      assignee: 'Reception',
      dueDate: '2030-01-31',
    });
    const comment = await call('followUps.comment', {
      taskId: first!.id,
      body: 'Left a voicemail first.',
    });
    expect(comment).toMatchObject({ taskId: first!.id, body: 'Left a voicemail first.' });

    const view: BoardView = (await call('followUps.board', { boardId: board.id })).value;
    expect(view.total).toBe(4);
    expect(view.tasks.find((t) => t.id === first!.id)?.statusId).toBe('completed');
    expect(view.comments[first!.id]?.map((c) => c.body)).toEqual(['Left a voicemail first.']);

    const reopened = await call('followUps.patchTask', {
      taskId: first!.id,
      patch: { statusId: 'in_progress' },
    });
    expect(reopened.completedAtIso).toBeNull();
  });

  it('turns the 409 of a board save into the choices: statuses in use and invalid values', async () => {
    const statuses = board.statuses.filter((s) => s.id !== 'in_progress');
    const fields = board.fields.filter((f) => f.key !== 'patient');
    const conflict = await refused('followUps.saveBoard', { boardId: board.id, statuses, fields });
    expect(conflict).toMatchObject({
      kind: 'conflict',
      status: 409,
      boardConflict: {
        statusesInUse: [{ id: 'in_progress', name: 'In progress', taskCount: 1 }],
        invalidFieldValues: [
          { key: 'patient', name: 'Patient', taskCount: 3, reason: 'the field is removed' },
        ],
      },
    });
    expect(conflict.detail).toContain('migrateTo');

    // One escape hatch given: the 409 names only what still blocks.
    const half = await refused('followUps.saveBoard', {
      boardId: board.id,
      statuses,
      fields,
      migrateTo: 'not_addressed',
    });
    expect(half.boardConflict).toEqual({
      statusesInUse: [],
      invalidFieldValues: [expect.objectContaining({ key: 'patient' })],
    });

    const saved = await call('followUps.saveBoard', {
      boardId: board.id,
      statuses,
      fields,
      migrateTo: 'not_addressed',
      dropInvalidFieldValues: true,
    });
    expect(saved.statuses.map((s) => s.id)).toEqual([
      'not_addressed',
      'completed',
      'no_action_needed',
    ]);
    const view = (await call('followUps.board', { boardId: board.id })).value;
    expect(view.tasks.every((t) => t.statusId !== 'in_progress')).toBe(true);
    expect(view.tasks.every((t) => !('patient' in t.fields))).toBe(true);
    board = saved;
  });

  it('a conflict without the lists stays a plain conflict with the service’s message', async () => {
    proxy.inject({
      kind: 'status',
      status: 409,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ status: 409, title: 'Conflict', detail: 'Tasks use it.' }),
    });
    const error = await refused('followUps.saveBoard', { boardId: board.id, name: 'Renamed' });
    expect(error).toMatchObject({ kind: 'conflict', detail: 'Tasks use it.' });
    expect(error.boardConflict).toBeUndefined();
  });

  it('without GET /task-boards, lists the boards this app knows', async () => {
    proxy.inject({ kind: 'status', status: 404 });
    const view = await call('followUps.boards', {});
    expect(view.value.map((b) => b.name).sort()).toEqual(['Follow-ups', 'Lab results']);
  });

  it('offline: the boards and tasks last read stay readable, edits fail as offline', async () => {
    await call('followUps.board', { boardId: board.id });
    await proxy.close();
    const boards = await call('followUps.boards', {});
    expect(boards.source).toBe('cache');
    expect(boards.value).toHaveLength(2);
    const view = await call('followUps.board', { boardId: board.id });
    expect(view.source).toBe('cache');
    // When it was read whole: before the service went away.
    expect(Date.parse(view.fetchedAt!)).toBeLessThanOrEqual(Date.now());
    expect(view.value.tasks).toHaveLength(4);
    expect(Object.values(view.value.comments).flat()).toHaveLength(1);
    const group = await call('followUps.group', { groupKey: labelId });
    expect(group).toMatchObject({ source: 'cache' });
    expect(group.value.tasks).toHaveLength(3);
    const edit = await refused('followUps.patchTask', {
      taskId: visitTasks[1]!.id,
      patch: { statusId: 'completed' },
    });
    expect(edit.kind).toBe('offline');
    const status = await core.rpc.invoke('app.connection', {});
    expect(status).toMatchObject({ ok: true, value: { state: 'offline' } });
    // The comments (which the service cannot list) are kept outside the cache, one file per
    // account, sealed under its key: neither their words, nor the board's, nor the API key.
    const kept = readdirSync(join(dataDir, 'comments'));
    expect(kept).toHaveLength(1);
    expect(
      filesHolding(join(dataDir, 'comments'), [
        'Left a voicemail first.',
        board.name,
        svc.credentials.primary.apiKey,
      ]),
    ).toEqual([]);
    expect(existsSync(join(dataDir, 'follow-ups.json'))).toBe(false);
  }, 30_000);
});

import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/main/service-client/errors';
import { BoardConflictError, boardConflictOf } from '../../../src/main/follow-ups/board-conflict';

const conflict = (extensions: Record<string, unknown>) =>
  new ApiError('conflict', { status: 409, detail: 'Tasks use it.', extensions });

describe('the 409 of PATCH board', () => {
  it('reads the lists tolerantly: names fall back to ids, counts are whole and never negative', () => {
    expect(
      boardConflictOf(
        conflict({
          statusesInUse: [
            { id: 'in_progress', name: 'In progress', taskCount: 2 },
            { id: 'waiting', taskCount: -3.4 },
            { name: 'no id' },
            'junk',
          ],
          invalidFieldValues: [{ key: 'patient', taskCount: 2.6, reason: 'the field is removed' }],
        }),
      ),
    ).toEqual({
      statusesInUse: [
        { id: 'in_progress', name: 'In progress', taskCount: 2 },
        { id: 'waiting', name: 'waiting', taskCount: 0 },
      ],
      invalidFieldValues: [
        { key: 'patient', name: 'patient', taskCount: 3, reason: 'the field is removed' },
      ],
    });
  });

  it('is no board conflict without the lists (a plain conflict stays one)', () => {
    expect(boardConflictOf(conflict({}))).toBeUndefined();
    expect(
      boardConflictOf(conflict({ statusesInUse: 'x', invalidFieldValues: [] })),
    ).toBeUndefined();
  });

  it('crosses IPC as kind conflict with the choices and the service’s own words', () => {
    const error = conflict({ statusesInUse: [{ id: 'a', name: 'A', taskCount: 1 }] });
    const lists = boardConflictOf(error)!;
    expect(new BoardConflictError(error, lists).toIpcError()).toEqual({
      kind: 'conflict',
      message: expect.stringContaining('Choose what happens to them') as string,
      status: 409,
      detail: 'Tasks use it.',
      boardConflict: lists,
    });
  });
});

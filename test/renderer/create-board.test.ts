import { beforeEach, describe, expect, it } from 'vitest';
import { CreateBoardStore } from '../../src/renderer/src/lib/create-board.svelte';
import { FollowUpsStore } from '../../src/renderer/src/lib/follow-ups.svelte';
import { FakeEarmark, sourced } from './support';

describe('creating a board', () => {
  let fake: FakeEarmark;
  let followUps: FollowUpsStore;
  let form: CreateBoardStore;
  beforeEach(() => {
    fake = new FakeEarmark();
    fake.handle('followUps.board', ({ boardId }) =>
      sourced({
        board: { id: boardId, name: 'x', statuses: [], fields: [], createdAt: '' },
        tasks: [],
        total: 0,
        comments: {},
      }),
    );
    followUps = new FollowUpsStore(fake);
    form = new CreateBoardStore(followUps);
  });

  it('creates one from the default template with the name trimmed, and opens it', async () => {
    fake.handle('followUps.createBoard', ({ name }) => ({
      id: 'b-1',
      name,
      statuses: [],
      fields: [],
      createdAt: '2026-11-24T08:00:00.000Z',
    }));
    form.name = ' Rechecks ';
    expect(await form.submit()).toEqual({ outcome: 'created' });
    expect(fake.callsOf('followUps.createBoard')).toEqual([{ name: 'Rechecks' }]);
    expect(followUps.boardId).toBe('b-1');
  });

  it('hands a custom board’s name to the editor without creating anything; no name, nothing', async () => {
    form.template = 'custom';
    form.name = ' Lab results ';
    expect(await form.submit()).toEqual({ outcome: 'custom', name: 'Lab results' });
    form.name = '  ';
    expect(await form.submit()).toBeNull();
    expect(fake.callsOf('followUps.createBoard')).toEqual([]);
  });

  it('says why the service did not create it', async () => {
    fake.fail('followUps.createBoard', {
      kind: 'scope_missing',
      message: 'This key cannot manage boards.',
    });
    expect(await form.submit()).toBeNull();
    expect([form.creating, form.error?.message]).toEqual([false, 'This key cannot manage boards.']);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { Label, Task, TaskBoard } from '../../src/shared/api';
import { RECORD_LINK_PREFIX } from '../../src/shared/ipc/constants';
import type { Sourced } from '../../src/shared/ipc';
import { withFake } from './fake-earmark';

const { fake, module } = await withFake(() => import('../../src/renderer/src/lib/record.svelte'));
const { RecordStore, PatientPicker, RecordFollowUpsStore, DEFAULT_BOARD_NAME } = module;

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const sourced = <T>(value: T, source: 'service' | 'cache' = 'service'): Sourced<T> => ({
  value,
  source,
  fetchedAt: '2026-11-24T10:00:00.000Z',
});
const note = {
  type: 'Transcript',
  content: 'Vet: Hello Bella.',
  createdAt: '2026-11-23T10:00:00.000Z',
  time: '2026-11-23T10:00:00.000Z',
};
const label = (id: string, extra: Partial<Label> = {}): Label => ({
  id,
  type: 'HubMic',
  fromTime: '2026-11-23T10:00:00.000Z',
  toTime: '2026-11-23T10:10:00.000Z',
  patient: null,
  ownedPatientNotes: [note],
  friendlyName: '',
  deviceSerial: 'S1',
  ...extra,
});
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

beforeEach(() => {
  fake.calls.length = 0;
  fake.handle('labels.transcriptLines', () => null);
});

describe('the record store', () => {
  it('reads the record and says where the answer came from', async () => {
    fake.handle('labels.get', ({ labelId }) => sourced(label(labelId), 'cache'));
    const store = new RecordStore();
    await store.load('label-1');
    expect(store.label?.id).toBe('label-1');
    expect(store.source).toBe('cache');
    expect(store.loading).toBe(false);
  });

  it('keeps only the last of two records opened one after the other', async () => {
    const answers = new Map<string, (value: Sourced<Label>) => void>();
    fake.handle('labels.get', ({ labelId }) => new Promise((r) => answers.set(labelId, r)));
    const store = new RecordStore();
    const first = store.load('label-1');
    const second = store.load('label-2');
    await settle();
    answers.get('label-2')!(sourced(label('label-2')));
    await second;
    answers.get('label-1')!(sourced(label('label-1')));
    await first;
    expect(store.label?.id).toBe('label-2');
  });

  it('reads a record’s timed transcript lines once, and not those of a record left', async () => {
    const line = { clockMs: 0, offsetMs: 0, speaker: 'Vet', text: 'Hello.' };
    const answers = new Map<string, (value: (typeof line)[] | null) => void>();
    fake.handle('labels.get', ({ labelId }) => sourced(label(labelId)));
    fake.handle(
      'labels.transcriptLines',
      ({ labelId }) => new Promise((r) => answers.set(labelId, r)),
    );
    const store = new RecordStore();
    await store.load('label-1');
    await store.load('label-2');
    await settle();
    answers.get('label-1')!([line]);
    answers.get('label-2')!(null);
    await settle();
    expect(store.lines).toBeNull();
    fake.handle('labels.transcriptLines', () => [line]);
    await store.load('label-3');
    await settle();
    expect(store.lines).toEqual([line]);
    await store.load('label-3'); // read again (a check for a newer version): the lines stay
    expect(fake.callsOf('labels.transcriptLines').map((c) => c.labelId)).toEqual([
      'label-1',
      'label-2',
      'label-3',
    ]);
  });

  it('shows the error of a record that cannot be read', async () => {
    fake.fail('labels.get', { kind: 'not_found', message: 'It was not found.' });
    const store = new RecordStore();
    await store.load('gone');
    expect(store.label).toBeNull();
    expect(store.error?.kind).toBe('not_found');
  });

  it('shows an assign at once, keeping the notes the answer left out, then reads the record again', async () => {
    let reads = 0;
    let answer: (value: Sourced<Label>) => void = () => {};
    fake.handle('labels.get', ({ labelId }) => {
      reads++;
      return reads === 1 ? sourced(label(labelId)) : new Promise((r) => (answer = r));
    });
    const store = new RecordStore();
    await store.load('label-1');
    const patient = { id: 'p-1', name: 'Bella' };
    const done = store.assigned(label('label-1', { patient, ownedPatientNotes: null }));
    expect(store.label?.patient).toEqual(patient);
    expect(store.label?.ownedPatientNotes).toEqual([note]);
    await settle();
    answer(sourced(label('label-1', { patient })));
    await done;
    expect(reads).toBe(2);
  });
});

describe('the patient picker', () => {
  const current = label('label-1', { patient: { id: 'p-1', name: 'Bella' } });

  it('offers the known patients but the record’s own, and keeps only the newest search', async () => {
    const answers: ((value: { id: string; name: string; recordings: number }[]) => void)[] = [];
    fake.handle('labels.patients', () => new Promise((r) => answers.push(r)));
    const picker = new PatientPicker(() => current);
    const older = picker.search('  B ');
    const newer = picker.search('Bi');
    await settle();
    expect(fake.callsOf('labels.patients')).toEqual([
      { search: 'B', limit: 20 },
      { search: 'Bi', limit: 20 },
    ]);
    answers[1]!([
      { id: 'p-1', name: 'Bella', recordings: 3 },
      { id: 'p-2', name: 'Biscuit', recordings: 1 },
    ]);
    await newer;
    answers[0]!([{ id: 'p-9', name: 'Baxter', recordings: 1 }]);
    await older;
    expect(picker.patients.map((p) => p.name)).toEqual(['Biscuit']);
  });

  it('assigns and says so; a refusal is kept as the error and nothing is returned', async () => {
    fake.handle('labels.assign', ({ patientId }) =>
      label('label-1', { patient: { id: patientId, name: 'Biscuit' } }),
    );
    const picker = new PatientPicker(() => current);
    const updated = await picker.assign('p-2');
    expect(updated?.patient?.name).toBe('Biscuit');
    expect(picker.assigned).toBe('Assigned to Biscuit.');
    fake.fail('labels.assign', { kind: 'not_found', message: 'No patient has that ID.' });
    expect(await picker.assign('nobody')).toBeNull();
    expect(picker.error?.message).toBe('No patient has that ID.');
    expect(picker.assigned).toBeNull();
  });
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
    const store = new RecordFollowUpsStore();
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
    const store = new RecordFollowUpsStore();
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
    const store = new RecordFollowUpsStore();
    await store.open('label-1');
    expect(await store.add({ boardId: 'b-1', titles: [' '], fields: {} })).toBe(false);
    expect(fake.callsOf('followUps.addTasks')).toEqual([]);
    expect(await store.add({ boardId: 'b-1', titles: ['Call'], fields: {} })).toBe(false);
    expect(store.saveError?.message).toBe('This key cannot add tasks.');
    expect(store.saving).toBe(false);
  });
});

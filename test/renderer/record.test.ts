import { beforeEach, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import type { Sourced } from '../../src/shared/ipc';
import { RecordStore } from '../../src/renderer/src/lib/record.svelte';
import { FakeEarmark, settle, sourced } from './support';

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

let fake: FakeEarmark;
beforeEach(() => {
  fake = new FakeEarmark();
  fake.handle('labels.transcriptLines', () => null);
});

describe('the record store', () => {
  it('reads the record and says where the answer came from', async () => {
    fake.handle('labels.get', ({ labelId }) => sourced(label(labelId), 'cache'));
    const store = new RecordStore(fake);
    await store.load('label-1');
    expect(store.label?.id).toBe('label-1');
    expect(store.source).toBe('cache');
    expect(store.loading).toBe(false);
  });

  it('keeps only the last of two records opened one after the other', async () => {
    const answers = new Map<string, (value: Sourced<Label>) => void>();
    fake.handle('labels.get', ({ labelId }) => new Promise((r) => answers.set(labelId, r)));
    const store = new RecordStore(fake);
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
    const store = new RecordStore(fake);
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
    const store = new RecordStore(fake);
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
    const store = new RecordStore(fake);
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

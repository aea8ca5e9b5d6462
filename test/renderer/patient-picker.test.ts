import { beforeEach, describe, expect, it } from 'vitest';
import type { Label } from '../../src/shared/api';
import { PatientPickerStore } from '../../src/renderer/src/lib/patient-picker.svelte';
import { FakeEarmark, settle } from './support';

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
});

describe('the patient picker', () => {
  const current = label('label-1', { patient: { id: 'p-1', name: 'Bella' } });

  it('offers the known patients but the record’s own, and keeps only the newest search', async () => {
    const answers: ((value: { id: string; name: string; recordings: number }[]) => void)[] = [];
    fake.handle('labels.patients', () => new Promise((r) => answers.push(r)));
    const picker = new PatientPickerStore(fake, () => current);
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
    const picker = new PatientPickerStore(fake, () => current);
    const updated = await picker.assign('p-2');
    expect(updated?.patient?.name).toBe('Biscuit');
    expect(picker.assigned).toBe('Assigned to Biscuit.');
    fake.fail('labels.assign', { kind: 'not_found', message: 'No patient has that ID.' });
    expect(await picker.assign('nobody')).toBeNull();
    expect(picker.error?.message).toBe('No patient has that ID.');
    expect(picker.assigned).toBeNull();
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import type { ChannelInput, RecordSpeakers } from '../../src/shared/ipc';
import { SpeakerNamesStore } from '../../src/renderer/src/lib/speaker-names.svelte';
import { FakeEarmark } from './support';

const LABEL = '00000000-0000-4000-8000-000000000001';

/** A fake main that keeps one record's names as speakers.save leaves them. */
function fakeMain(fake: FakeEarmark, initial: RecordSpeakers) {
  let held = initial;
  fake.handle('speakers.get', () => held);
  fake.handle('speakers.save', ({ versionKey, names, moves }: ChannelInput<'speakers.save'>) => {
    const others = held.versions.filter((v) => v.versionKey !== versionKey);
    const notice = held.versions.find((v) => v.versionKey === versionKey)?.notice ?? null;
    held = {
      ...held,
      versions: [
        { versionKey, names, moves, notice, updatedAt: '2026-11-27T10:00:00.000Z' },
        ...others,
      ],
    };
    return held;
  });
  fake.handle('speakers.dismissNotice', ({ versionKey }) => {
    held = {
      ...held,
      versions: held.versions.map((v) =>
        v.versionKey === versionKey ? { ...v, notice: null } : v,
      ),
    };
    return held;
  });
  fake.handle('speakers.known', ({ search }) =>
    [{ name: 'Dr Marsh', role: 'vet' as const, lastUsedAt: '2026-11-26T10:00:00.000Z' }].filter(
      (k) => k.name.toLowerCase().includes(search.toLowerCase()),
    ),
  );
}

describe('SpeakerNamesStore', () => {
  let fake: FakeEarmark;
  let store: SpeakerNamesStore;
  beforeEach(async () => {
    fake = new FakeEarmark();
    fakeMain(fake, { labelId: LABEL, currentVersionKey: 'v2', versions: [] });
    store = new SpeakerNamesStore(fake);
    await store.load(LABEL);
  });

  it('names a speaker for every line, moves a line, and undoes each change in turn', async () => {
    expect(store.overlay('v2')).toEqual({ names: [], moves: [] });
    expect(await store.name('v2', 'Speaker 1', '  Dr Marsh ', 'vet')).toBe(true);
    expect(store.said).toBe('Named Speaker 1 “Dr Marsh (vet)”.');
    expect(await store.name('v2', 'Speaker 2', 'Mrs Patel', 'owner')).toBe(true);
    expect(await store.moveLine('v2', 4, 'Speaker 1', 'Dr Marsh')).toBe(true);
    expect(store.overlay('v2')).toEqual({
      names: [
        { label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' },
        { label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' },
      ],
      moves: [{ line: 4, label: 'Speaker 1' }],
    });
    expect(store.canUndo).toBe(true);
    await store.undo();
    expect(store.said).toBe('Undone: the line is now Dr Marsh’s.');
    expect(store.overlay('v2').moves).toEqual([]);
    await store.undo();
    expect(store.overlay('v2').names.map((n) => n.name)).toEqual(['Dr Marsh']);
    await store.undo();
    expect(store.overlay('v2')).toEqual({ names: [], moves: [] });
    expect(store.canUndo).toBe(false);
    // Each undo is a save of the names before the change.
    expect(fake.callsOf('speakers.save').at(-1)).toEqual({
      labelId: LABEL,
      versionKey: 'v2',
      names: [],
      moves: [],
    });
  });

  it('takes a name away with an empty name, and a line back to its speaker', async () => {
    await store.name('v2', 'Speaker 1', 'Dr Marsh', null);
    await store.moveLine('v2', 2, 'Speaker 1', 'Dr Marsh');
    await store.name('v2', 'Speaker 1', '   ', null);
    expect(store.said).toBe('Speaker 1 is no longer named.');
    await store.moveLine('v2', 2, null, '');
    expect(store.overlay('v2')).toEqual({ names: [], moves: [] });
  });

  it('keeps the editor open and says why when a save is refused', async () => {
    store.edit({ versionKey: 'v2', line: 0, label: 'Speaker 1' });
    fake.fail('speakers.save', { kind: 'not_found', message: 'This version is gone.' });
    expect(await store.name('v2', 'Speaker 1', 'Dr Marsh', 'vet')).toBe(false);
    expect(store.saveError?.message).toBe('This version is gone.');
    expect(store.editing).toEqual({ versionKey: 'v2', line: 0, label: 'Speaker 1' });
    expect(store.canUndo).toBe(false);
  });

  it('offers names used before, and forgets a record’s changes when another opens', async () => {
    store.edit({ versionKey: 'v2', line: 0, label: 'Speaker 1' });
    await store.searchKnown('mar');
    expect(store.known.map((k) => k.name)).toEqual(['Dr Marsh']);
    await store.name('v2', 'Speaker 1', 'Dr Marsh', 'vet');
    expect(store.editing).toBeNull();
    await store.load('00000000-0000-4000-8000-000000000002');
    expect(store.canUndo).toBe(false);
    expect(store.said).toBeNull();
  });

  it('shows the carry-over notice of the current version until it is dismissed', async () => {
    fakeMain(fake, {
      labelId: LABEL,
      currentVersionKey: 'v3',
      versions: [
        {
          versionKey: 'v3',
          names: [{ label: 'Speaker 2', name: 'Dr Marsh', role: 'vet' }],
          moves: [],
          notice: {
            fromVersionKey: 'v2',
            carried: [{ label: 'Speaker 2', from: 'Speaker 1', name: 'Dr Marsh', role: 'vet' }],
            dropped: [{ label: 'Speaker 3', name: 'Jo', role: 'nurse', reason: 'gone', into: [] }],
            droppedMoves: 0,
          },
          updatedAt: '2026-11-27T10:00:00.000Z',
        },
      ],
    });
    await store.load(LABEL);
    expect(store.current?.notice?.dropped.map((d) => d.name)).toEqual(['Jo']);
    await store.dismissNotice();
    expect(store.current?.notice).toBeNull();
    expect(store.current?.names).toHaveLength(1);
  });
});

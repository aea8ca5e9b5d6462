import { describe, expect, it } from 'vitest';
import { SpokenByStore } from '../../src/renderer/src/lib/spoken-by.svelte';
import { FakeEarmark } from './support';

const marsh = { label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' as const };
const patel = { label: 'Speaker 2', name: 'Mrs Patel', role: null };

describe('who spoke in a list’s records', () => {
  it('says the named speakers of a record, with their roles; nothing for one not named', async () => {
    const fake = new FakeEarmark().handle('speakers.of', () => [
      { labelId: 'a', speakers: [marsh, patel] },
    ]);
    const spoken = new SpokenByStore(fake);
    await spoken.load(['a', 'b']);
    expect(spoken.of('a')).toBe('Dr Marsh (vet), Mrs Patel');
    expect([spoken.of('b'), spoken.of(null), spoken.of(undefined)]).toEqual([null, null, null]);
  });

  it('asks for at most 500 records, and nothing at all for none', async () => {
    const fake = new FakeEarmark().handle('speakers.of', () => []);
    const spoken = new SpokenByStore(fake);
    await spoken.load([]);
    expect(fake.callsOf('speakers.of')).toEqual([]);
    await spoken.load(Array.from({ length: 600 }, (_, i) => `r-${i}`));
    expect(fake.callsOf('speakers.of')[0]!.labelIds).toHaveLength(500);
  });

  it('keeps the answer of the last load when an earlier one answers later', async () => {
    const fake = new FakeEarmark();
    let answerFirst: (() => void) | undefined;
    fake.answer('speakers.of', ({ labelIds }) =>
      labelIds[0] === 'old'
        ? new Promise((resolve) => {
            answerFirst = () =>
              resolve({ ok: true, value: [{ labelId: 'old', speakers: [patel] }] });
          })
        : Promise.resolve({ ok: true, value: [{ labelId: 'new', speakers: [marsh] }] }),
    );
    const spoken = new SpokenByStore(fake);
    const first = spoken.load(['old']);
    await spoken.load(['new']);
    answerFirst!();
    await first;
    expect([spoken.of('new'), spoken.of('old')]).toEqual(['Dr Marsh (vet)', null]);
  });
});

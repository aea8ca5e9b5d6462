import Database from 'better-sqlite3-multiple-ciphers';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCache, type Cache, type SearchHit } from '../../../src/main/cache';
import { ftsExpression, snippetParts } from '../../../src/main/cache/search';
import type { Conversation } from '../../../src/shared/api';
import { checkIndexes, label, MINUTE, note, T0, useTempDir } from './helpers';

const tempDir = useTempDir('cache-search');
let cache: Cache;

const conversation = (id: string, transcriptText: string): Conversation => ({
  conversationId: id,
  deviceId: 'consult-room-1',
  status: 'UPLOADED',
  speechMinuteCount: 4,
  transcriptState: 'READY',
  isImportable: true,
  notImportableReason: '',
  transcriptText,
});

const texts = (hit: SearchHit) =>
  hit.snippet.map((part) => (part.hit ? `[${part.text}]` : part.text)).join('');
const labelOf = (hit: SearchHit) =>
  hit.kind === 'conversation' ? hit.conversationId : hit.label.id;

const labels = {
  vomiting: label(1, {
    patient: 'Maple Leaf',
    notes: [note('Owner reports the dog has been vomiting twice since Tuesday morning.', T0)],
  }),
  vomitMany: label(2, {
    patient: 'Rocky',
    notes: [note('Vomiting, vomiting and more vomiting: vomit everywhere.', T0)],
  }),
  limp: label(3, {
    patient: 'Biscuit',
    notes: [note('Limping on the left hind leg after the walk.', T0)],
  }),
  withSoap: label(5, {
    patient: 'Duchess',
    notes: [
      note('Vet: She has been drinking a lot.', T0),
      note(
        JSON.stringify({
          clinical_note: { assessment: { value: 'Suspected pyometra; bloods today.' } },
        }),
        T0 + MINUTE,
        'SOAP',
      ),
    ],
  }),
  regenerated: label(4, {
    patient: 'Éclair Dupont',
    notes: [
      note('The cat is [inaudible] and sneezing.', T0 + MINUTE),
      note('The cat is congested and sneezing.', T0 + 5 * MINUTE),
    ],
  }),
};

beforeAll(async () => {
  cache = await openCache({ file: join(tempDir(), 'c.sqlite') });
  await cache.write.storeLabels(Object.values(labels), T0);
  await cache.write.storeConversationPage({
    items: [conversation('conv-1', 'Speaker 1: he has a cough\nSpeaker 2: since Monday')],
    walk: T0,
    startPosition: 0,
    seenAt: T0,
  });
});
afterAll(() => cache.close());

describe('search', () => {
  it('marks the matched words in a snippet', async () => {
    const { hits } = await cache.read.search('vomiting');
    expect(hits.map(labelOf)).toEqual([labels.vomitMany.id, labels.vomiting.id]);
    expect(hits[1]).toMatchObject({ kind: 'note', noteType: 'Transcript', current: true });
    expect(texts(hits[1]!)).toBe(
      'Owner reports the dog has been [vomiting] twice since Tuesday morning.',
    );
    expect(hits[0]!.snippet.filter((part) => part.hit).length).toBeGreaterThan(1);
  });

  it('lists the newest records first, however often each says the words, then conversations', async () => {
    const local = await openCache({ file: join(tempDir(), 'newest.sqlite'), thread: 'main' });
    const oldest = label(1, { notes: [note('Fever, fever, fever: a fever all week.', T0)] });
    const middle = label(2, { notes: [note('A fever since Monday.', T0)] });
    const newer = label(3, { notes: [note('No fever now.', T0)] });
    const newest = label(4, { patient: 'Fever Jones' });
    // As the sync stores them: newest first, an older one the history walk finds later, then
    // one recorded since.
    await local.write.storeLabels([newer, middle], T0);
    await local.write.storeLabels([oldest], T0);
    await local.write.storeLabels([newest], T0);
    await local.write.storeConversationPage({
      items: [conversation('conv-fever', 'Speaker 1: a fever, a fever, a fever')],
      walk: T0,
      startPosition: 0,
      seenAt: T0,
    });
    const order = async (limit: number) =>
      (await local.read.search('fever', { limit })).hits.map(
        (hit) => `${hit.kind} ${labelOf(hit)}`,
      );
    expect(await order(20)).toEqual([
      `patient ${newest.id}`,
      `note ${newer.id}`,
      `note ${middle.id}`,
      `note ${oldest.id}`,
      'conversation conv-fever',
    ]);
    // The newest of them, and the conversation only while the records leave room.
    expect(await order(2)).toEqual([`patient ${newest.id}`, `note ${newer.id}`]);
    expect(await order(4)).not.toContain('conversation conv-fever');
    await local.close();
  });

  it('finds a word typed in full first, and a part of one as a prefix', async () => {
    const local = await openCache({ file: join(tempDir(), 'typed.sqlite'), thread: 'main' });
    const blood = label(1, { notes: [note('Blood taken today.', T0)] });
    const bloodwork = label(2, {
      notes: [note('Bloodwork bloodwork: the bloodwork is back.', T0)],
    });
    await local.write.storeLabels([bloodwork, blood], T0);
    const found = async (query: string, limit: number) =>
      (await local.read.search(query, { limit })).hits.map(labelOf);
    // Enough records say the whole word: they are the answer, not the newer longer word.
    expect(await found('blood', 1)).toEqual([blood.id]);
    // Too few: the word is still being typed, so longer words count too.
    expect(await found('blood', 2)).toEqual([bloodwork.id, blood.id]);
    expect(await found('bloo', 1)).toEqual([bloodwork.id]);
    // Typed in full (a space after it): that word alone.
    expect(await found('blood ', 2)).toEqual([blood.id]);
    // A whole word only in history does not hide a record the prefix finds.
    await local.write.storeLabels(
      [
        {
          ...blood,
          ownedPatientNotes: [note('Blood taken today.', T0), note('Clean.', T0 + MINUTE)],
        },
      ],
      T0,
    );
    expect((await local.read.search('blood', { limit: 1 })).hits).toMatchObject([
      { kind: 'note', current: true, label: { id: bloodwork.id } },
    ]);
    await local.close();
  });

  it('finds a word said only in a clinical note (SOAP, sent as JSON), with its snippet', async () => {
    const { hits } = await cache.read.search('pyometra');
    expect(hits.map(labelOf)).toEqual([labels.withSoap.id]);
    expect(hits[0]).toMatchObject({ kind: 'note', noteType: 'SOAP', current: true });
    expect(texts(hits[0]!)).toContain('Suspected [pyometra]; bloods today.');
  });

  it('finds stems and prefixes, ignores case and accents, and needs every word', async () => {
    expect((await cache.read.search('VOMIT')).hits).toHaveLength(2); // stem and prefix
    expect((await cache.read.search('limp')).hits.map(labelOf)).toEqual([labels.limp.id]);
    expect((await cache.read.search('eclair')).hits).toMatchObject([
      { kind: 'patient', label: { id: labels.regenerated.id, patientName: 'Éclair Dupont' } },
    ]);
    expect(texts((await cache.read.search('eclair')).hits[0]!)).toBe('[Éclair] Dupont');
    expect((await cache.read.search('vomiting tuesday')).hits.map(labelOf)).toEqual([
      labels.vomiting.id,
    ]);
    expect((await cache.read.search('"hind leg"')).hits.map(labelOf)).toEqual([labels.limp.id]);
    expect((await cache.read.search('"leg hind"')).hits).toEqual([]);
  });

  it('searches patient names and conversation transcripts too, and can be limited to some', async () => {
    const { hits } = await cache.read.search('cough');
    expect(hits).toMatchObject([
      { kind: 'conversation', conversationId: 'conv-1', status: 'UPLOADED' },
    ]);
    expect(texts(hits[0]!)).toContain('[cough]');
    expect((await cache.read.search('rocky')).hits.map((h) => h.kind)).toEqual(['patient']);
    expect((await cache.read.search('rocky', { kinds: ['note'] })).hits).toEqual([]);
    expect((await cache.read.search('vomiting', { limit: 1 })).hits).toHaveLength(1);
  });

  it('lets the current version win and keeps replaced versions searchable as history', async () => {
    const sneezing = (await cache.read.search('sneezing')).hits;
    // Both versions say it: the label appears once, with its current version.
    expect(sneezing).toMatchObject([
      { kind: 'note', current: true, label: { id: labels.regenerated.id } },
    ]);
    expect(texts(sneezing[0]!)).toContain('congested');
    // Only the old version says it: found, marked as history.
    const inaudible = (await cache.read.search('inaudible')).hits;
    expect(inaudible).toMatchObject([{ kind: 'note', current: false }]);
    expect((await cache.read.search('inaudible', { history: false })).hits).toEqual([]);
  });

  it('lists history after every current hit', async () => {
    const local = await openCache({ file: join(tempDir(), 'order.sqlite'), thread: 'main' });
    await local.write.storeLabels(
      [
        label(1, { notes: [note('fever fever fever', T0), note('calm now', T0 + MINUTE)] }),
        label(2, { notes: [note('a slight fever', T0)] }),
      ],
      T0,
    );
    const { hits } = await local.read.search('fever');
    expect(hits.map((h) => h.kind === 'note' && h.current)).toEqual([true, false]);
    await local.close();
  });

  it('stays right when labels are deleted, renamed or their notes replaced', async () => {
    const local = await openCache({ file: join(tempDir(), 'deletes.sqlite') });
    const a = label(1, { patient: 'Pepper', notes: [note('itchy skin on the belly', T0)] });
    const b = label(2, { patient: 'Pepper', notes: [note('itchy ears', T0)] });
    await local.write.storeLabels([a, b], T0);
    expect((await local.read.search('itchy')).hits).toHaveLength(2);
    await local.write.deleteLabels([a.id]);
    expect((await local.read.search('itchy')).hits.map(labelOf)).toEqual([b.id]);
    expect((await local.read.search('belly')).hits).toEqual([]);
    expect((await local.read.search('pepper')).hits.map(labelOf)).toEqual([b.id]);
    await local.write.storeLabelPage({
      rows: [{ ...b, ownedPatientNotes: null, patient: { id: 'p2', name: 'Salt' } }],
      seenAt: T0,
    });
    expect((await local.read.search('pepper')).hits).toEqual([]);
    expect((await local.read.search('salt')).hits.map(labelOf)).toEqual([b.id]);
    await local.write.storeLabels(
      [{ ...b, ownedPatientNotes: [note('clean ears', T0 + MINUTE)] }],
      T0,
    );
    expect((await local.read.search('itchy')).hits).toEqual([]);
    expect((await local.read.search('clean')).hits).toHaveLength(1);
    await local.write.storeConversationPage({
      items: [conversation('c1', 'a wheeze')],
      walk: T0,
      startPosition: 0,
      seenAt: T0,
    });
    await local.write.storeConversation(conversation('c1', 'no wheeze now, a sneeze'), T0);
    expect((await local.read.search('sneeze')).hits).toHaveLength(1);
    expect(await local.write.sweepConversations(T0 + 1)).toBe(1);
    expect((await local.read.search('sneeze')).hits).toEqual([]);
    await local.close();
    // FTS5's own check: every index matches its table exactly.
    const db = new Database(local.file);
    checkIndexes(db);
    db.close();
  });

  it('never lets the words become FTS5 syntax', async () => {
    for (const hostile of [
      'NOT',
      'dog OR cat',
      'NEAR(dog cat)',
      'content:dog',
      '"unbalanced',
      '*',
      '^start',
      'a - b + c',
      '(((',
      "O'Brien",
      '\u0002\u0003',
      '',
      '   ',
    ]) {
      await expect(cache.read.search(hostile)).resolves.toMatchObject({ hits: expect.any(Array) });
    }
    expect((await cache.read.search('dog OR cat')).hits).toEqual([]); // "or" is a word here
  });
});

describe('search by a speaker’s name', () => {
  beforeAll(async () => {
    // Named on this computer: the vet and the owner of the "vomiting" consult, and the vet of
    // the "limp" one.
    await cache.write.saveSpeakers({
      labelId: labels.vomiting.id,
      versionKey: 'v1',
      names: [
        { label: 'Speaker 1', name: 'Dr Anna Marsh', role: 'vet' },
        { label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' },
      ],
      moves: [],
      notice: null,
      at: T0,
      currentLines: [
        { line: 0, speaker: 'Dr Anna Marsh', role: 'vet', text: 'Any vomiting at home?' },
        { line: 1, speaker: 'Mrs Patel', role: 'owner', text: 'Twice since Tuesday.' },
        { line: 2, speaker: 'Dr Anna Marsh', role: 'vet', text: 'Then we start a bland diet.' },
      ],
    });
    await cache.write.saveSpeakers({
      labelId: labels.limp.id,
      versionKey: 'v9',
      names: [{ label: 'Vet', name: 'Dr Anna Marsh', role: 'vet' }],
      moves: [],
      notice: null,
      at: T0 + MINUTE,
      currentLines: [{ line: 0, speaker: 'Dr Anna Marsh', role: 'vet', text: 'Walk him for me.' }],
    });
  });

  it('finds their lines: one hit a record, its best line, how many of theirs match', async () => {
    const hits = (await cache.read.search('marsh')).hits.filter((hit) => hit.kind === 'speaker');
    expect(hits.map(labelOf).sort()).toEqual([labels.vomiting.id, labels.limp.id].sort());
    const consult = hits.find((hit) => labelOf(hit) === labels.vomiting.id)!;
    expect(consult).toMatchObject({ speaker: 'Dr Anna Marsh', role: 'vet', lines: 2 });
    expect(texts(consult)).toMatch(/^Dr Anna \[Marsh\]: /);
    // A name and a word: only her lines that say it; a prefix while typing.
    const said = (await cache.read.search('marsh diet')).hits;
    expect(said).toMatchObject([{ kind: 'speaker', line: 2, lines: 1 }]);
    expect(texts(said[0]!)).toBe('Dr Anna [Marsh]: Then we start a bland [diet].');
    expect((await cache.read.search('pat')).hits.filter((h) => h.kind === 'speaker')).toMatchObject(
      [{ speaker: 'Mrs Patel', line: 1 }],
    );
  });

  it('leaves lines to the transcript’s own hits when no word is a name', async () => {
    expect((await cache.read.search('bland')).hits.map((hit) => hit.kind)).not.toContain('speaker');
  });

  it('offers the names used before, latest first, and says who spoke in each record', async () => {
    expect(await cache.read.knownSpeakers('a')).toEqual([
      { name: 'Dr Anna Marsh', role: 'vet', lastUsedAt: new Date(T0 + MINUTE).toISOString() },
      { name: 'Mrs Patel', role: 'owner', lastUsedAt: new Date(T0).toISOString() },
    ]);
    expect(await cache.read.knownSpeakers('PATEL')).toHaveLength(1);
    expect(await cache.read.spokenBy([labels.limp.id, labels.regenerated.id])).toEqual([
      { labelId: labels.limp.id, speakers: [{ label: 'Vet', name: 'Dr Anna Marsh', role: 'vet' }] },
    ]);
  });
});

describe('the query and snippet helpers', () => {
  it('quote every word, and match the last one as a prefix while it is typed', () => {
    expect(ftsExpression('vomit')).toBe('"vomit"*');
    expect(ftsExpression('vomit ')).toBe('"vomit"');
    expect(ftsExpression('left "hind leg"')).toBe('"left" "hind leg"');
    expect(ftsExpression('say "hi" there')).toBe('"say" "hi" "there"*');
    expect(ftsExpression('a"b')).toBe('"a""b"*');
    expect(ftsExpression('-- !! ..')).toBe('');
  });

  it('split a marked snippet into text parts', () => {
    expect(snippetParts('a \u0002dog\u0003 and a \u0002cat\u0003…')).toEqual([
      { text: 'a ', hit: false },
      { text: 'dog', hit: true },
      { text: ' and a ', hit: false },
      { text: 'cat', hit: true },
      { text: '…', hit: false },
    ]);
    expect(snippetParts('')).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxNotesPath, type Label } from '../../../src/shared/api';
import { currentNote } from '../../../src/shared/transcript';
import { seedLabel } from '../../main/audio/fixtures';
import { startService, type RunningService } from '../harness';

/**
 * The sandbox's regeneration (issue 27, 28): a new version of a record's note, the old kept, the
 * change announced as label_updated — in the seed dialect only; the field dialect has no such
 * path, as the real service has none.
 */
let seed: RunningService;
let field: RunningService;

beforeAll(async () => {
  [seed, field] = await Promise.all([startService(), startService({ dialect: 'field' })]);
});
afterAll(async () => {
  await Promise.all([seed?.dispose(), field?.dispose()]);
});

const FIRST = 'Speaker 1: I am listening to her heart.\nSpeaker 2: It is beating fast.';

function seededLabel(
  svc: RunningService,
  notes: [string, string, number][] = [['Transcript', FIRST, 1]],
) {
  return seedLabel(svc.service, svc.credentials.primary.organizationId, { notes });
}

const regenerate = (svc: RunningService, labelId: string, json: unknown, key?: string) =>
  svc.call(sandboxNotesPath(labelId), {
    method: 'POST',
    key: key ?? svc.credentials.primary.apiKey,
    json,
  });

describe('POST /sandbox/labels/{id}/notes in the seed dialect', () => {
  it('appends the given version, keeps the old one, makes it current and logs label_updated', async () => {
    const labelId = seededLabel(seed);
    const before = seed.service.events.since(0).length;
    const response = await regenerate(seed, labelId, {
      type: 'Transcript',
      content: 'Speaker 2: I am listening.\nSpeaker 1: Fast.',
    });
    expect(response.status).toBe(200);
    const label = (await response.json()) as Label;
    const transcripts = label.ownedPatientNotes!.filter((n) => n.type === 'Transcript');
    expect(transcripts.map((n) => n.content)).toEqual([
      FIRST,
      'Speaker 2: I am listening.\nSpeaker 1: Fast.',
    ]);
    expect(currentNote(label.ownedPatientNotes, 'Transcript')!.content).toBe(
      'Speaker 2: I am listening.\nSpeaker 1: Fast.',
    );
    const logged = seed.service.events.since(0).slice(before);
    expect(logged.map((e) => [e.type, e.data.labelId])).toEqual([['label_updated', labelId]]);
  });

  it('without content, revises the current version of that type', async () => {
    const labelId = seededLabel(seed, [
      ['NotesTranscript', 'Vet: It is fine.', 1],
      ['Transcript', FIRST, 2],
      ['SOAP', 'S: Cough.\nP: We will recheck.', 3],
    ]);
    const label = (await (await regenerate(seed, labelId, { type: 'Transcript' })).json()) as Label;
    expect(currentNote(label.ownedPatientNotes, ['Transcript', 'NotesTranscript'])!.content).toBe(
      "Speaker 1: I'm listening to her heart.\nSpeaker 2: It's beating fast.",
    );
    const soap = (await (await regenerate(seed, labelId, { type: 'SOAP' })).json()) as Label;
    expect(currentNote(soap.ownedPatientNotes, 'SOAP')!.content).toBe(
      "S: Cough.\nP: We'll recheck.",
    );
    expect(soap.ownedPatientNotes!.filter((n) => n.type === 'SOAP')).toHaveLength(2);
  });

  it('dates the new version after every earlier one, even one dated ahead of the clock', async () => {
    const ahead = Date.now() + 3_600_000;
    const labelId = seedLabel(seed.service, seed.credentials.primary.organizationId, {
      fromMs: ahead,
      notes: [['Transcript', FIRST, 5]],
    });
    const label = (await (await regenerate(seed, labelId, { type: 'Transcript' })).json()) as Label;
    const [older, newer] = label.ownedPatientNotes!.map((n) => Date.parse(n.createdAt));
    expect(newer).toBeGreaterThan(older!);
  });

  it('refuses what it cannot do, saying why', async () => {
    const labelId = seededLabel(seed, []);
    const nothing = await regenerate(seed, labelId, { type: 'Transcript' });
    expect(nothing.status).toBe(409);
    expect(((await nothing.json()) as { detail: string }).detail).toMatch(/no Transcript note/);

    const unknown = await regenerate(seed, '0190a0b0-0000-7000-8000-000000000000', {
      type: 'Transcript',
      content: 'x',
    });
    expect(unknown.status).toBe(404);

    const other = await regenerate(
      seed,
      labelId,
      { type: 'Transcript', content: 'x' },
      seed.credentials.secondary.apiKey,
    );
    expect(other.status).toBe(403);

    const bad = await regenerate(seed, labelId, { type: '', content: 'x' });
    expect(bad.status).toBe(400);
    const unauthenticated = await seed.call(sandboxNotesPath(labelId), {
      method: 'POST',
      json: { type: 'Transcript', content: 'x' },
    });
    expect(unauthenticated.status).toBe(401);
  });
});

describe('the field dialect', () => {
  it('has no sandbox controls: 404, and the record is unchanged', async () => {
    const labelId = seededLabel(field);
    const response = await regenerate(field, labelId, { type: 'Transcript', content: 'x' });
    expect(response.status).toBe(404);
    expect(field.service.labels.get(labelId)!.ownedPatientNotes!.map((n) => n.content)).toEqual([
      FIRST,
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { noteKinds } from '../../../src/shared/record/notes';

const note = (type: string, content: string, createdAt?: string, time?: string) => ({
  type,
  content,
  ...(createdAt === undefined ? {} : { createdAt }),
  ...(time === undefined ? {} : { time }),
});

describe('noteKinds (the current-note rule per type)', () => {
  it('gives each type its newest version, with its history newest first', () => {
    const kinds = noteKinds([
      note('SOAP', 'soap v2', '2026-10-01T12:00:00Z'),
      note('Transcript', 'transcript v1', '2026-10-01T09:00:00Z'),
      note('SOAP', 'soap v1', '2026-10-01T10:00:00Z'),
      note('SOAP', 'soap v3 by time', undefined, '2026-10-01T13:00:00Z'),
    ]);
    expect(kinds.map((k) => k.current.content)).toEqual(['transcript v1', 'soap v3 by time']);
    expect(kinds[1]!.versions.map((v) => v.content)).toEqual([
      'soap v3 by time',
      'soap v2',
      'soap v1',
    ]);
  });

  it('reads Transcript and NotesTranscript as one transcript, as the seed says', () => {
    const kinds = noteKinds([
      note('NotesTranscript', 'newer', '2026-10-01T11:00:00Z'),
      note('Transcript', 'older', '2026-10-01T10:00:00Z'),
    ]);
    expect(kinds).toHaveLength(1);
    expect(kinds[0]!.types).toEqual(['Transcript', 'NotesTranscript']);
    expect(kinds[0]!.current.content).toBe('newer');
  });

  it('keeps unknown types, after the transcript and the SOAP note, by name', () => {
    const kinds = noteKinds([
      note('Zeta summary', 'z', '2026-10-01T10:00:00Z'),
      note('Discharge', 'd', '2026-10-01T10:00:00Z'),
      note('SOAP', 's', '2026-10-01T10:00:00Z'),
      note('Transcript', 't', '2026-10-01T10:00:00Z'),
    ]);
    expect(kinds.map((k) => k.types[0])).toEqual([
      'Transcript',
      'SOAP',
      'Discharge',
      'Zeta summary',
    ]);
  });

  it('answers nothing for a record without notes (a list row: null)', () => {
    expect(noteKinds(null)).toEqual([]);
    expect(noteKinds([])).toEqual([]);
  });
});

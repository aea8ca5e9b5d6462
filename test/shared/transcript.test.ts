import { describe, expect, it } from 'vitest';
import type { Note } from '../../src/shared/api';
import {
  currentNote,
  currentTranscript,
  isProcessingContent,
  transcriptVersions,
} from '../../src/shared/transcript';

const note = (type: string, content: string, createdAt?: string, time?: string) => ({
  type,
  content,
  ...(createdAt === undefined ? {} : { createdAt }),
  ...(time === undefined ? {} : { time }),
});

describe('currentNote', () => {
  it('takes the greatest createdAt of the type, whatever the array order', () => {
    const notes = [
      note('Transcript', 'second', '2026-10-01T10:00:00.000Z'),
      note('SOAP', 'newest but not a transcript', '2026-10-01T12:00:00.000Z'),
      note('Transcript', 'third', '2026-10-01T11:00:00.000Z'),
      note('Transcript', 'first', '2026-10-01T09:00:00.000Z'),
    ];
    expect(currentNote(notes, 'Transcript')?.content).toBe('third');
    expect(currentNote(notes, 'SOAP')?.content).toBe('newest but not a transcript');
  });

  it('compares instants, not text, across offsets', () => {
    const notes = [
      note('Transcript', 'earlier', '2026-10-01T11:30:00+02:00'),
      note('Transcript', 'later', '2026-10-01T10:00:00Z'),
    ];
    expect(currentNote(notes, 'Transcript')?.content).toBe('later');
  });

  it('falls back to time when createdAt is absent', () => {
    const notes = [
      note('Transcript', 'stamped', '2026-10-01T10:00:00Z'),
      note('Transcript', 'time only', undefined, '2026-10-01T10:30:00Z'),
      {
        type: 'Transcript',
        content: 'null createdAt',
        createdAt: null,
        time: '2026-10-01T09:00:00Z',
      },
    ];
    expect(currentNote(notes, 'Transcript')?.content).toBe('time only');
  });

  it('gives equal timestamps to the later note in array order', () => {
    const at = '2026-10-01T10:00:00.000Z';
    const notes = [note('Transcript', 'a', at), note('Transcript', 'b', at)];
    expect(currentNote(notes, 'Transcript')?.content).toBe('b');
    expect(currentNote([...notes].reverse(), 'Transcript')?.content).toBe('a');
  });

  it('ranks a note without any readable timestamp below every stamped one', () => {
    const notes = [
      note('Transcript', 'stamped', '2026-10-01T10:00:00Z'),
      note('Transcript', 'unstamped'),
      note('Transcript', 'garbled', 'yesterday'),
    ];
    expect(currentNote(notes, 'Transcript')?.content).toBe('stamped');
    expect(
      currentNote([note('Transcript', 'x'), note('Transcript', 'y')], 'Transcript')?.content,
    ).toBe('y');
  });

  it('answers undefined for empty, null and unmatched lists', () => {
    expect(currentNote([], 'Transcript')).toBeUndefined();
    expect(currentNote(null, 'Transcript')).toBeUndefined();
    expect(currentNote(undefined, ['Transcript'])).toBeUndefined();
    expect(currentNote([note('SOAP', 's', '2026-10-01T10:00:00Z')], 'Transcript')).toBeUndefined();
  });
});

describe('currentTranscript', () => {
  it('takes the newest across Transcript and NotesTranscript', () => {
    const notes: Note[] = [
      {
        type: 'Transcript',
        content: 'old',
        createdAt: '2026-10-01T10:00:00Z',
        time: '2026-10-01T10:00:00Z',
      },
      {
        type: 'NotesTranscript',
        content: 'new',
        createdAt: '2026-10-01T11:00:00Z',
        time: '2026-10-01T11:00:00Z',
      },
      {
        type: 'SOAP',
        content: 'soap',
        createdAt: '2026-10-01T12:00:00Z',
        time: '2026-10-01T12:00:00Z',
      },
    ];
    expect(currentTranscript(notes)?.content).toBe('new');
    expect(currentTranscript(notes.slice(0, 1))?.content).toBe('old');
  });

  it('returns the processing placeholder when that is the newest version', () => {
    const notes = [
      note('Transcript', 'first pass', '2026-10-01T10:00:00Z'),
      note('NotesTranscript', '{}', '2026-10-01T11:00:00Z'),
    ];
    const current = currentTranscript(notes);
    expect(current?.content).toBe('{}');
    expect(isProcessingContent(current?.content)).toBe(true);
  });

  it('answers undefined for a record without transcripts', () => {
    expect(currentTranscript([note('SOAP', 's', '2026-10-01T10:00:00Z')])).toBeUndefined();
    expect(currentTranscript(null)).toBeUndefined();
  });
});

describe('transcriptVersions', () => {
  it('lists every transcript version newest first, the current one first', () => {
    const notes = [
      note('Transcript', 'second', '2026-10-01T10:00:00Z'),
      note('SOAP', 'not a transcript', '2026-10-01T12:00:00Z'),
      note('NotesTranscript', 'third', undefined, '2026-10-01T11:00:00Z'),
      note('Transcript', 'unstamped'),
      note('Transcript', 'first', '2026-10-01T11:30:00+02:00'),
    ];
    const versions = transcriptVersions(notes);
    expect(versions.map((v) => v.content)).toEqual(['third', 'second', 'first', 'unstamped']);
    expect(versions[0]).toBe(currentTranscript(notes));
    expect(transcriptVersions(null)).toEqual([]);
  });

  it('breaks ties as currentNote does: the later note in array order first', () => {
    const at = '2026-10-01T10:00:00.000Z';
    const notes = [
      note('Transcript', 'a', at),
      note('Transcript', 'b', at),
      note('Transcript', 'c'),
    ];
    expect(transcriptVersions(notes).map((v) => v.content)).toEqual(['b', 'a', 'c']);
    const reversed = [...notes].reverse();
    expect(transcriptVersions(reversed)[0]).toBe(currentTranscript(reversed));
  });
});

describe('isProcessingContent', () => {
  it.each([
    ['', true],
    ['{}', true],
    [' {} ', true],
    [null, true],
    [undefined, true],
    ['Speaker 1: Hello.', false],
    ['{"text":"x"}', false],
  ] as const)('%j → %s', (content, expected) => {
    expect(isProcessingContent(content)).toBe(expected);
  });
});

import { describe, expect, it } from 'vitest';
import { spokenLines } from '../../../src/shared/record/spoken-lines';
import { parseSoap } from '../../../src/shared/record/soap';
import {
  cleanSpeakerName,
  fitOverlay,
  nameLines,
  speakerLegend,
  transcriptVersionKey,
  type SpeakerOverlay,
} from '../../../src/shared/speakers/overlay';
import { nameSpeakersInNote, namedTranscriptText } from '../../../src/shared/speakers/outputs';
import { alignLines } from '../../../src/shared/speakers/align';

const CONTENT = [
  'Speaker 1: How is Bella today?',
  '',
  'Speaker 2:   Much better, thank you.',
  'Speaker 1: Any vomiting?',
  'She ate this morning.',
  'Speaker 2:',
].join('\n');

const OVERLAY: SpeakerOverlay = {
  names: [{ label: 'Speaker 1', name: 'Dr Marsh', role: 'vet' }],
  moves: [{ line: 3, label: 'Speaker 2' }],
};

describe('the overlay', () => {
  it('keys a version by its type, times and content', () => {
    const note = { type: 'Transcript', content: 'a', createdAt: '2026-01-01T00:00:00Z', time: '' };
    expect(transcriptVersionKey(note)).toBe(transcriptVersionKey({ ...note }));
    expect(transcriptVersionKey(note)).not.toBe(transcriptVersionKey({ ...note, content: 'b' }));
    expect(transcriptVersionKey(note)).not.toBe(
      transcriptVersionKey({ ...note, type: 'NotesTranscript' }),
    );
    expect(transcriptVersionKey(note)).toMatch(/^[0-9a-z]{1,11}$/);
  });

  it('names every line of a label and moves one line, by its position among spoken lines', () => {
    const lines = spokenLines(CONTENT);
    expect(lines).toHaveLength(4);
    expect(
      nameLines(lines, OVERLAY).map((l) => [l.speaker, l.label, l.role, l.named, l.moved]),
    ).toEqual([
      ['Dr Marsh', 'Speaker 1', 'vet', true, false],
      ['Speaker 2', 'Speaker 2', null, false, false],
      ['Dr Marsh', 'Speaker 1', 'vet', true, false],
      ['Speaker 2', 'Speaker 2', null, false, true],
    ]);
    expect(speakerLegend(lines, OVERLAY)).toBe('Dr Marsh (vet)');
  });

  it('keeps only what fits the version: known labels, cleaned names, real moves', () => {
    const lines = spokenLines(CONTENT);
    expect(
      fitOverlay(
        {
          names: [
            { label: 'Speaker 9', name: 'Nobody', role: null },
            { label: 'Speaker 2', name: '  Mrs\u0000 Patel\n ', role: 'owner' },
            { label: 'Speaker 1', name: '   ', role: 'vet' },
          ],
          moves: [
            { line: 0, label: 'Speaker 1' },
            { line: 7, label: 'Speaker 2' },
            { line: 2, label: 'Speaker 3' },
            { line: 2, label: 'Speaker 2' },
          ],
        },
        lines,
      ),
    ).toEqual({
      names: [{ label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' }],
      moves: [{ line: 2, label: 'Speaker 2' }],
    });
    expect(cleanSpeakerName('x'.repeat(200))).toHaveLength(80);
  });
});

describe('outputs', () => {
  it('writes the names into the transcript text and leaves every other line as it was', () => {
    expect(namedTranscriptText(CONTENT, OVERLAY)).toBe(
      [
        'Dr Marsh: How is Bella today?',
        '',
        'Speaker 2:   Much better, thank you.',
        'Dr Marsh: Any vomiting?',
        'Speaker 2: She ate this morning.',
        'Speaker 2:',
      ].join('\n'),
    );
    expect(namedTranscriptText(CONTENT, { names: [], moves: [] })).toBe(CONTENT);
  });

  it('names generic labels a clinical note mentions, and leaves role words alone', () => {
    const note = parseSoap('S: Speaker 2 reports vomiting; the owner agrees. Speaker 12 absent.');
    const named = nameSpeakersInNote(note, {
      names: [
        { label: 'Speaker 2', name: 'Mrs Patel', role: 'owner' },
        { label: 'Owner', name: 'Nobody', role: null },
      ],
      moves: [],
    });
    expect(named).toEqual({
      kind: 'sections',
      sections: [
        {
          heading: 'Subjective',
          text: 'Mrs Patel reports vomiting; the owner agrees. Speaker 12 absent.',
        },
      ],
    });
  });
});

describe('alignLines', () => {
  const lines = (...texts: string[]) => texts.map((text) => ({ text }));

  it('matches lines by their words, pairs revised lines, and leaves rewritten ones unpaired', () => {
    expect(
      alignLines(
        lines('Hello there.', 'I am fine.', 'How is she?', 'Bye.'),
        lines('New line.', 'Hello, there!', "I'm fine.", 'Something else entirely.', 'Bye.'),
      ),
    ).toEqual([null, 0, 1, null, 3]);
  });
});

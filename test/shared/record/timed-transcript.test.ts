import { describe, expect, it } from 'vitest';
import type { TimelineMinute } from '../../../src/shared/api';
import { spokenLines } from '../../../src/shared/record/spoken-lines';
import {
  lineAt,
  timedLines,
  timedTranscriptText,
  versionTimedLines,
} from '../../../src/shared/record/timed-transcript';
import { rangeTranscript } from '../../../src/shared/timeline/transcript';

const MINUTE = 60_000;
const recordStart = Date.UTC(2026, 10, 23, 10, 51);
const minute = (i: number, diarized: string, plain = ''): TimelineMinute => ({
  minuteStartMs: recordStart + i * MINUTE,
  vadIsSilent: diarized === '' && plain === '',
  vadSpeechDurationMs: 30_000,
  transcriptText: plain,
  diarizedTranscriptText: diarized,
});

describe('the transcript in step with the audio', () => {
  const minutes = [
    minute(0, 'Speaker 1: Hello Bella.\nSpeaker 2: She has been sick.'),
    minute(1, ''),
    minute(2, 'Speaker 1: Let me look.', 'let me look'),
    minute(4, '', 'plain words only'),
  ];
  const lines = timedLines(
    rangeTranscript(minutes, { startMs: recordStart, endMs: recordStart + 5 * MINUTE }),
    recordStart,
  );

  it('gives each line the clock time of its minute and its offset into the audio, diarized preferred', () => {
    expect(lines).toEqual([
      { clockMs: recordStart, offsetMs: 0, speaker: 'Speaker 1', text: 'Hello Bella.' },
      { clockMs: recordStart, offsetMs: 0, speaker: 'Speaker 2', text: 'She has been sick.' },
      {
        clockMs: recordStart + 2 * MINUTE,
        offsetMs: 2 * MINUTE,
        speaker: 'Speaker 1',
        text: 'Let me look.',
      },
      {
        clockMs: recordStart + 4 * MINUTE,
        offsetMs: 4 * MINUTE,
        speaker: null,
        text: 'plain words only',
      },
    ]);
  });

  it('finds the line being played: the first line of the minute playing, none before the first', () => {
    expect(lineAt(lines, -1)).toBe(-1);
    expect(lineAt(lines, 0)).toBe(0);
    expect(lineAt(lines, 90_000)).toBe(0);
    expect(lineAt(lines, 2 * MINUTE)).toBe(2);
    expect(lineAt(lines, 3 * MINUTE + 59_999)).toBe(2);
    expect(lineAt(lines, 10 * MINUTE)).toBe(3);
    expect(lineAt([], 5)).toBe(-1);
  });

  it('never gives a negative offset to a line said before the audio starts', () => {
    expect(
      timedLines(
        [{ minuteStartMs: recordStart - MINUTE, speaker: null, text: 'x' }],
        recordStart,
      )[0]!.offsetMs,
    ).toBe(0);
  });

  it('writes the lines for a file with their 24-hour clock time and speaker', () => {
    const at = Date.UTC(2026, 10, 23, 13, 5);
    expect(
      timedTranscriptText(
        [
          { clockMs: at, offsetMs: 0, speaker: 'Vet', text: 'How is Bella?' },
          { clockMs: at + MINUTE, offsetMs: MINUTE, speaker: null, text: 'Better.' },
        ],
        'Europe/Berlin',
      ),
    ).toBe('14:05  Vet: How is Bella?\n14:06  Better.\n');
  });

  it('times a regenerated version’s own lines by their words, speakers as the version has them', () => {
    const range = { startMs: recordStart, endMs: recordStart + 5 * MINUTE };
    const version = spokenLines(
      [
        'Speaker 2: Hello, Bella!',
        'Speaker 2: A line the minutes never had.',
        'Speaker 1: She has been sick.',
        'Speaker 2: Let me look.',
        'Speaker 3: Plain words only.',
      ].join('\n'),
    );
    const timed = versionTimedLines(version, rangeTranscript(minutes, range), recordStart);
    expect(timed?.map((l) => [l.offsetMs / MINUTE, l.speaker, l.text])).toEqual([
      [0, 'Speaker 2', 'Hello, Bella!'],
      [0, 'Speaker 2', 'A line the minutes never had.'],
      [0, 'Speaker 1', 'She has been sick.'],
      [2, 'Speaker 2', 'Let me look.'],
      [4, 'Speaker 3', 'Plain words only.'],
    ]);
    expect(
      versionTimedLines(
        spokenLines('Vet: Nothing alike.'),
        rangeTranscript(minutes, range),
        recordStart,
      ),
    ).toBeNull();
  });
});

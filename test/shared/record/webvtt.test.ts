import { describe, expect, it } from 'vitest';
import { WebVTTParser } from 'webvtt-parser';
import { toWebVtt, vttTimestamp } from '../../../src/shared/record/webvtt';
import type { TimedLine } from '../../../src/shared/record/timed-transcript';

const line = (offsetMs: number, text: string, speaker: string | null = null): TimedLine => ({
  clockMs: offsetMs,
  offsetMs,
  speaker,
  text,
});

/** Cue start and end times of a WebVTT file, in ms. */
function cueTimes(vtt: string): [number, number][] {
  const ms = (stamp: string) => {
    const [h, m, s] = stamp.split(':').map(Number);
    return Math.round(((h! * 60 + m!) * 60 + s!) * 1000);
  };
  return [...vtt.matchAll(/^(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})$/gm)].map((m) => [
    ms(m[1]!),
    ms(m[2]!),
  ]);
}

describe('toWebVtt', () => {
  it('writes a header and one cue per line, in order, within the audio', () => {
    const vtt = toWebVtt(
      [
        line(0, 'Hello.', 'Speaker 1'),
        line(0, 'Hi.', 'Speaker 2'),
        line(120_000, 'Look.'),
        line(600_000, 'Bye.'),
      ],
      610_000,
    );
    expect(vtt.startsWith('WEBVTT\n\n')).toBe(true);
    const times = cueTimes(vtt);
    expect(times).toEqual([
      [0, 30_000],
      [30_000, 60_000],
      [120_000, 180_000],
      [600_000, 610_000],
    ]);
    expect(vtt).toContain('00:00:00.000 --> 00:00:30.000\n<v Speaker 1>Hello.</v>');
    expect(vtt).toContain('00:02:00.000 --> 00:03:00.000\nLook.');
  });

  it('escapes markup and the cue arrow in the text, and keeps voices to one line', () => {
    const vtt = toWebVtt([line(0, 'a <b> & c --> d\nnext', 'Dr <X> & Co\n')], 5_000);
    expect(vtt).toContain('<v Dr &lt;X&gt; &amp; Co>a &lt;b&gt; &amp; c --&gt; d next</v>');
    expect(vtt.split('\n').filter((l) => l.includes('-->'))).toHaveLength(1);
  });

  it('parses with the W3C WebVTT parser: no errors, each named speaker a voice span', () => {
    const vtt = toWebVtt(
      [
        line(0, 'Hello and bye.', 'Dr Marsh & <Co>'),
        line(0, 'Hi.'),
        line(60_000, 'Yes.', 'Mrs Patel'),
      ],
      120_000,
    );
    const parsed = new WebVTTParser().parse(vtt, 'metadata');
    expect(parsed.errors).toEqual([]);
    // The parser keeps an annotation's cue text escapes as written.
    const voices = parsed.cues.map((cue) =>
      cue.tree.children.flatMap((node) =>
        node.type === 'object' && node.name === 'v' ? [node.value] : [],
      ),
    );
    expect(voices).toEqual([['Dr Marsh &amp; &lt;Co&gt;'], [], ['Mrs Patel']]);
    expect(parsed.cues.map((cue) => cue.text)).toEqual([
      '<v Dr Marsh &amp; &lt;Co&gt;>Hello and bye.</v>',
      'Hi.',
      '<v Mrs Patel>Yes.</v>',
    ]);
  });

  it('leaves out lines past the end of the audio; an empty transcript is a valid file', () => {
    expect(cueTimes(toWebVtt([line(0, 'in'), line(90_000, 'past')], 60_000))).toEqual([
      [0, 60_000],
    ]);
    expect(toWebVtt([], 1000)).toBe('WEBVTT\n\n');
  });

  it('writes hours past 99 minutes as hours', () => {
    expect(vttTimestamp(5_400_000 + 1)).toBe('01:30:00.001');
  });
});

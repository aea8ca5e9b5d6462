import { describe, expect, it } from 'vitest';
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
    expect(vtt).toContain('00:00:00.000 --> 00:00:30.000\n<v Speaker 1>Hello.');
    expect(vtt).toContain('00:02:00.000 --> 00:03:00.000\nLook.');
  });

  it('escapes markup and the cue arrow in the text, and keeps voices to one line', () => {
    const vtt = toWebVtt([line(0, 'a <b> & c --> d\nnext', 'Dr <X>\n')], 5_000);
    expect(vtt).toContain('<v Dr X>a &lt;b&gt; &amp; c --&gt; d next');
    expect(vtt.split('\n').filter((l) => l.includes('-->'))).toHaveLength(1);
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

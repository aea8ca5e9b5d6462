import type { TimedLine } from './timed-transcript';

/**
 * A transcript as WebVTT (W3C), so a media player shows it as subtitles beside the exported
 * audio. Each line is a cue from its offset to the next line's (or one minute, at most), within
 * the audio; lines of one minute share its span in turns. Speakers are voice spans (<v Name>).
 */

const MAX_CUE_MS = 60_000;

/** "HH:MM:SS.mmm", as WebVTT timestamps are written. */
export function vttTimestamp(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor(whole / 60_000) % 60;
  const seconds = Math.floor(whole / 1000) % 60;
  return `${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(whole % 1000, 3)}`;
}

/** Cue text may not hold "<", "&" or "-->"; escaping "<" and ">" takes care of the arrow. */
const cueText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\s+/g, ' ');

/**
 * A voice span's annotation (the speaker's name, "<v Dr Marsh>"): one line, with "&", "<" and
 * ">" written as WebVTT cue text escapes (the annotation may hold none of them raw).
 */
const voiceName = (speaker: string) =>
  speaker
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');

export function toWebVtt(lines: readonly TimedLine[], durationMs: number): string {
  const cues: string[] = [];
  let index = 0;
  while (index < lines.length) {
    // The lines said in one minute share the span from their offset to the next minute's.
    let end = index + 1;
    while (end < lines.length && lines[end]!.offsetMs === lines[index]!.offsetMs) end++;
    const startMs = lines[index]!.offsetMs;
    if (startMs >= durationMs) break;
    const nextMs = end < lines.length ? lines[end]!.offsetMs : Number.POSITIVE_INFINITY;
    const spanEndMs = Math.min(nextMs, startMs + MAX_CUE_MS, durationMs);
    const share = (spanEndMs - startMs) / (end - index);
    for (let i = index; i < end; i++) {
      const line = lines[i]!;
      const from = startMs + share * (i - index);
      const text = cueText(line.text);
      const voice = line.speaker ? voiceName(line.speaker) : '';
      const voiced = voice !== '' ? `<v ${voice}>${text}</v>` : text;
      cues.push(`${vttTimestamp(from)} --> ${vttTimestamp(from + share)}\n${voiced}`);
    }
    index = end;
  }
  return `WEBVTT\n\n${cues.join('\n\n')}${cues.length > 0 ? '\n' : ''}`;
}

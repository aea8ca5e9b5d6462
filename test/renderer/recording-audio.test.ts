import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { IpcResult, PreparedAudio, Waveform } from '../../src/shared/ipc';
import { RecordingAudioStore } from '../../src/renderer/src/lib/recording-audio.svelte';
import { FakeEarmark } from './support';

const BYTES = 1000;
const prepared = (waveform: Waveform | null, labelId = 'label-1'): PreparedAudio => ({
  labelId,
  mediaUrl: `/media/${labelId}`,
  contentType: 'audio/wav',
  bytes: BYTES,
  buffered: [[0, 100]],
  complete: false,
  waveform,
});
const waveform = (level: number): Waveform => ({ peaks: [[level], [level]], duration: 5400 });
const offline = { kind: 'offline' as const, message: 'The clinic service cannot be reached.' };

let fake: FakeEarmark;
const progress = (labelId: string, bytesDone: number) =>
  fake.emit('audio.progress', {
    labelId,
    bytesDone,
    bytesTotal: BYTES,
    buffered: [[0, bytesDone]],
  });

describe('a player’s audio', () => {
  beforeEach(() => {
    fake = new FakeEarmark();
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('follows what is on this computer, and asks for the waveform again at most once a second', async () => {
    fake.handle('audio.prepare', () => prepared(waveform(0.1)));
    fake.handle('audio.waveform', () => waveform(0.5));
    const audio = new RecordingAudioStore(fake);
    const stop = audio.open('label-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.bufferedShare).toBeCloseTo(0.1);
    progress('label-1', 400);
    progress('label-1', 500);
    progress('other-label', 900); // another recording's progress is not this one's
    expect(audio.bufferedShare).toBeCloseTo(0.5);
    expect(audio.complete).toBe(false);
    await vi.advanceTimersByTimeAsync(0);
    expect(fake.callsOf('audio.waveform')).toHaveLength(1);
    expect(audio.waveform?.peaks[0]).toEqual([0.5]);
    progress('label-1', 800);
    await vi.advanceTimersByTimeAsync(500);
    expect(fake.callsOf('audio.waveform')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(600);
    expect(fake.callsOf('audio.waveform')).toHaveLength(2);
    progress('label-1', BYTES);
    expect(audio.complete).toBe(true);
    stop();
    progress('label-1', BYTES);
    await vi.advanceTimersByTimeAsync(2000);
    expect(fake.callsOf('audio.waveform')).toHaveLength(2);
  });

  it('says when the service could not be reached, and prepares again when asked', async () => {
    fake.fail('audio.prepare', offline);
    const audio = new RecordingAudioStore(fake);
    const stop = audio.open('label-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.unreachable).toBe(true);
    expect(audio.prepared).toBeNull();
    stop();
    fake.handle('audio.prepare', ({ labelId }) => prepared(null, labelId));
    audio.open('label-1');
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.unreachable).toBe(false);
    expect(audio.prepared?.mediaUrl).toBe('/media/label-1');
  });

  it('drops a late answer for a recording left, whatever it says', async () => {
    // Each recording's answer is held until the test gives it.
    const answers = new Map<string, (result: IpcResult<PreparedAudio>) => void>();
    fake.answer('audio.prepare', ({ labelId }) => new Promise((r) => answers.set(labelId, r)));
    const audio = new RecordingAudioStore(fake);
    audio.open('label-1')();
    audio.open('label-2')();
    const third = audio.open('label-3');
    await vi.advanceTimersByTimeAsync(0);
    // The one shown answers: it could not be reached.
    answers.get('label-3')!({ ok: false, error: offline });
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.unreachable).toBe(true);
    // A recording left answers late, with its audio: it is not this one's.
    answers.get('label-1')!({ ok: true, value: prepared(null, 'label-1') });
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.prepared).toBeNull();
    expect(audio.unreachable).toBe(true);
    third();
    // The other way round: the one shown has its audio, a late refusal of one left changes nothing.
    const fourth = audio.open('label-4');
    await vi.advanceTimersByTimeAsync(0);
    answers.get('label-4')!({ ok: true, value: prepared(null, 'label-4') });
    await vi.advanceTimersByTimeAsync(0);
    answers.get('label-2')!({ ok: false, error: offline });
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.error).toBeNull();
    expect(audio.prepared?.mediaUrl).toBe('/media/label-4');
    fourth();
  });
});

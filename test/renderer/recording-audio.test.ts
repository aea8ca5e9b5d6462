import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PreparedAudio, Waveform } from '../../src/shared/ipc';
import { withFake } from './fake-earmark';

const { fake, module } = await withFake(
  () => import('../../src/renderer/src/lib/recording-audio.svelte'),
);
const { RecordingAudio } = module;

const BYTES = 1000;
const prepared = (waveform: Waveform | null): PreparedAudio => ({
  labelId: 'label-1',
  mediaUrl: '/media/label-1',
  contentType: 'audio/wav',
  bytes: BYTES,
  buffered: [[0, 100]],
  complete: false,
  waveform,
});
const waveform = (level: number): Waveform => ({ peaks: [[level], [level]], duration: 5400 });
const progress = (labelId: string, bytesDone: number) =>
  fake.emit('audio.progress', {
    labelId,
    bytesDone,
    bytesTotal: BYTES,
    buffered: [[0, bytesDone]],
  });

describe('a player’s audio', () => {
  beforeEach(() => {
    fake.calls.length = 0;
    vi.useFakeTimers();
  });
  afterEach(() => vi.useRealTimers());

  it('follows what is on this computer, and asks for the waveform again at most once a second', async () => {
    fake.handle('audio.prepare', () => prepared(waveform(0.1)));
    fake.handle('audio.waveform', () => waveform(0.5));
    const audio = new RecordingAudio();
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

  it('says when the service could not be reached (to try again), and drops a late answer for a recording left', async () => {
    fake.fail('audio.prepare', {
      kind: 'offline',
      message: 'The clinic service cannot be reached.',
    });
    const audio = new RecordingAudio();
    audio.open('label-1')();
    const next = audio.open('label-2');
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.unreachable).toBe(true);
    fake.handle('audio.prepare', ({ labelId }) => ({
      ...prepared(null),
      mediaUrl: `/media/${labelId}`,
    }));
    next();
    audio.open('label-3');
    await vi.advanceTimersByTimeAsync(0);
    expect(audio.unreachable).toBe(false);
    expect(audio.prepared?.mediaUrl).toBe('/media/label-3');
  });
});

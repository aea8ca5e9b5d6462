import { describe, expect, it } from 'vitest';
import { PlaybackStore } from '../../src/renderer/src/lib/playback.svelte';

describe('what a record screen’s parts share about playback', () => {
  it('carries a request to play from a point until the player takes it', () => {
    const playback = new PlaybackStore();
    expect([playback.positionMs, playback.playing, playback.request]).toEqual([0, false, null]);
    playback.playFrom(61_000);
    expect(playback.request).toEqual({ positionMs: 61_000, play: true });
    playback.playFrom(5_000);
    expect(playback.request).toEqual({ positionMs: 5_000, play: true });
  });
});

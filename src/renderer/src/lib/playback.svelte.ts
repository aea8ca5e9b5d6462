/**
 * What a record screen's parts share about playback: the player writes where it is and whether
 * it plays; the transcript asks it to play from a line (`playFrom`), which the player takes.
 */
export class PlaybackStore {
  /** Where the player is, in ms from the audio's first sample. */
  positionMs = $state(0);
  playing = $state(false);
  /** A request to move there (and play), taken and cleared by the player. */
  request = $state.raw<{ positionMs: number; play: boolean } | null>(null);

  playFrom(positionMs: number): void {
    this.request = { positionMs, play: true };
  }
}

import { Type } from '@sinclair/typebox';
import { Uuid } from '../api';
import { channel } from './channel';

/** wavesurfer's precomputed peaks ([maxima, minima] in −1..1) and the duration in seconds. */
export interface Waveform {
  peaks: [number[], number[]];
  duration: number;
}

/** Byte ranges [start, end) of a recording's file that are on this computer. */
export type BufferedRanges = [number, number][];

/**
 * A label's audio, ready to play as soon as its first bytes are here: `mediaUrl` is relative to
 * the renderer's page, so the same address works in both shells (earmark://app/media/… and
 * http://127.0.0.1:…/media/…), served with Range by main from what is on disk, the rest fetched
 * as the player asks for it. `waveform` is wavesurfer's precomputed peaks (null for MP4 audio):
 * while the file streams in, its first part as far as it is here and flat after, over the whole
 * duration (audio.waveform gives it again as it fills).
 */
export interface PreparedAudio {
  labelId: string;
  mediaUrl: string;
  contentType: string;
  /** The whole file's length. */
  bytes: number;
  waveform: Waveform | null;
  buffered: BufferedRanges;
  /** The whole file is on this computer (it plays offline). */
  complete: boolean;
}

/** How a recording's file fills (the audio.progress event). */
export interface AudioProgress {
  labelId: string;
  bytesDone: number;
  bytesTotal: number | null;
  buffered: BufferedRanges;
}

const LabelRef = Type.Object({ labelId: Uuid }, { additionalProperties: false });

export const AUDIO_CHANNELS = {
  /**
   * A label's audio, from the cache or streaming into it: answers once the first bytes are here
   * (or at once when cached), then fills in the background; progress as audio.progress.
   */
  'audio.prepare': channel<PreparedAudio>()(LabelRef),
  /** The waveform as far as the file is here (null for audio without peaks, such as MP4). */
  'audio.waveform': channel<Waveform | null>()(LabelRef),
} as const;

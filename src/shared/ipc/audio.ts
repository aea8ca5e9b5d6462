import { Type } from '@sinclair/typebox';
import { Uuid } from '../api';
import { channel } from './channel';

/**
 * A label's audio, ready to play: `mediaUrl` is relative to the renderer's page, so the same
 * address works in both shells (earmark://app/media/… and http://127.0.0.1:…/media/…), served
 * with Range by main. `waveform` is wavesurfer's precomputed peaks (null for MP4 audio).
 */
export interface PreparedAudio {
  labelId: string;
  mediaUrl: string;
  contentType: string;
  bytes: number;
  waveform: { peaks: [number[], number[]]; duration: number } | null;
}

/** A download's progress (the audio.progress event). */
export interface AudioProgress {
  labelId: string;
  bytesDone: number;
  bytesTotal: number | null;
}

export const AUDIO_CHANNELS = {
  /** Downloads (or finds cached) a label's audio and its peaks; progress as audio.progress. */
  'audio.prepare': channel<PreparedAudio>()(
    Type.Object({ labelId: Uuid }, { additionalProperties: false }),
  ),
} as const;

import { MEDIA_PATH_PREFIX, type AudioProgress, type PreparedAudio } from '../../shared/ipc';
import type { ActiveService } from '../active-service';
import type { AudioCache } from './audio-cache';
import { readPeaksFile, waveformData } from './peaks';

/** Points on the waveform handed to the renderer: enough for a wide window, small over IPC. */
const WAVEFORM_POINTS = 4000;

export interface AudioPreparationDeps {
  audioCache(): Promise<AudioCache>;
  service: Pick<ActiveService, 'call'>;
  progress(progress: AudioProgress): void;
}

/**
 * A label's audio made ready to play: downloaded into the account's audio cache (or found
 * there), with wavesurfer's peaks and the address both shells serve it at with Range.
 */
export class AudioPreparation {
  constructor(private readonly deps: AudioPreparationDeps) {}

  async prepare(labelId: string): Promise<PreparedAudio> {
    const cache = await this.deps.audioCache();
    const audio = await this.deps.service.call((service) =>
      cache.ensure(service.api.labels, labelId, { onProgress: this.deps.progress }),
    );
    return {
      labelId,
      mediaUrl: `${MEDIA_PATH_PREFIX}${labelId}`,
      contentType: audio.contentType,
      bytes: audio.bytes,
      waveform: audio.peaksPath
        ? waveformData(await readPeaksFile(audio.peaksPath), WAVEFORM_POINTS)
        : null,
    };
  }
}

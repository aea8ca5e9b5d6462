import { MEDIA_PATH_PREFIX, type AUDIO_CHANNELS } from '../../shared/ipc';
import { readPeaksFile, waveformData } from '../audio/peaks';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

/** Points on the waveform handed to the renderer: enough for a wide window, small over IPC. */
const WAVEFORM_POINTS = 4000;

export type AudioContext = Pick<CoreContext, 'audioCache' | 'emit' | 'service'>;

export const audioHandlers = ({
  audioCache,
  emit,
  service: active,
}: AudioContext): RpcHandlers<typeof AUDIO_CHANNELS> => ({
  'audio.prepare': async ({ labelId }) => {
    const cache = await audioCache();
    const audio = await active.call((service) =>
      cache.ensure(service.api.labels, labelId, {
        onProgress: (progress) => emit('audio.progress', progress),
      }),
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
  },
});

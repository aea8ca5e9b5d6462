import { ApiError } from '../../../src/main/service-client/errors';
import type { AudioSource } from '../../../src/main/audio/audio-stream';

/** One audio request a source was asked: where it started, what answered (0: no answer). */
export interface AudioRequestSeen {
  offset: number;
  status: number;
}

/** A source that notes each audio request it passes on, with the answer's status. */
export function noting(source: AudioSource): { source: AudioSource; requests: AudioRequestSeen[] } {
  const requests: AudioRequestSeen[] = [];
  return {
    requests,
    source: {
      get: (...args) => source.get(...args),
      audio: async (labelId, request = {}) => {
        const offset = request.range?.start ?? 0;
        try {
          const audio = await source.audio(labelId, request);
          requests.push({ offset, status: audio.status });
          return audio;
        } catch (error) {
          requests.push({ offset, status: error instanceof ApiError ? (error.status ?? 0) : 0 });
          throw error;
        }
      },
    },
  };
}

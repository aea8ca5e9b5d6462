import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import type { AudioSource } from '../../../src/main/audio/audio-stream';

/** A source whose audio bodies trickle: `chunkBytes` every `everyMs` (a slow network). */
export function throttled(source: AudioSource, chunkBytes = 16 * 1024, everyMs = 5): AudioSource {
  return {
    get: (...args) => source.get(...args),
    audio: async (...args) => {
      const audio = await source.audio(...args);
      async function* trickle() {
        for await (const chunk of audio.body as AsyncIterable<Buffer>) {
          for (let at = 0; at < chunk.length; at += chunkBytes) {
            yield chunk.subarray(at, at + chunkBytes);
            await delay(everyMs);
          }
        }
      }
      const body = Readable.from(trickle());
      body.on('close', () => audio.body.destroy());
      return { ...audio, body };
    },
  };
}

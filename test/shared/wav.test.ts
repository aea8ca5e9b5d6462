import { describe, expect, it } from 'vitest';
import { parseWavHeader } from '../../src/main/audio/peaks';
import { silentWav } from '../../src/shared/wav';

describe('silence as a WAV file', () => {
  it('is a whole 16-bit PCM WAV file of the length asked, all zeros', () => {
    const wav = silentWav(100);
    const header = parseWavHeader(wav);
    // 100 ms at 8 kHz, mono, 2 bytes a sample.
    expect(header).toEqual({ sampleRate: 8_000, channels: 1, dataBytes: 1_600, dataOffset: 44 });
    expect(wav.length).toBe(44 + 1_600);
    expect(wav.subarray(44).every((byte) => byte === 0)).toBe(true);
  });
});

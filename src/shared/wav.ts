/**
 * 16-bit mono PCM WAV files without Node's Buffer: the reference service's served audio
 * (src/service/audio) and the renderer's silence (its media warm-up, issue 31).
 */

export const WAV_HEADER_BYTES = 44;

/** A canonical 44-byte header for 16-bit mono PCM. */
export function pcm16WavHeader(sampleRate: number, sampleCount: number): Uint8Array<ArrayBuffer> {
  return pcm16Wav(sampleRate, sampleCount, WAV_HEADER_BYTES);
}

/** A WAV file of `ms` of silence at 8 kHz: 16-bit mono PCM, all zeros. */
export function silentWav(ms: number): Uint8Array<ArrayBuffer> {
  const samples = Math.round((8_000 * ms) / 1000);
  return pcm16Wav(8_000, samples, WAV_HEADER_BYTES + samples * 2);
}

/** `length` bytes (the header, then zeros) under a header for `sampleCount` samples. */
function pcm16Wav(sampleRate: number, sampleCount: number, length: number) {
  const dataBytes = sampleCount * 2;
  const wav = new Uint8Array(length);
  const view = new DataView(wav.buffer);
  const ascii = (at: number, text: string) => {
    for (let i = 0; i < text.length; i++) wav[at + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // the fmt chunk's size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // bytes a second
  view.setUint16(32, 2, true); // bytes a frame
  view.setUint16(34, 16, true); // bits a sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return wav;
}

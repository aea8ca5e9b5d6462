/** Silence as a WAV file, made where it is played (the renderer's media warm-up, issue 31). */

const SAMPLE_RATE = 8_000;

/** A WAV file of `ms` of silence: 16-bit mono PCM, all zeros. */
export function silentWav(ms: number): Uint8Array<ArrayBuffer> {
  const dataBytes = Math.round((SAMPLE_RATE * ms) / 1000) * 2;
  const wav = new Uint8Array(44 + dataBytes);
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
  view.setUint32(24, SAMPLE_RATE, true);
  view.setUint32(28, SAMPLE_RATE * 2, true); // bytes a second
  view.setUint16(32, 2, true); // bytes a frame
  view.setUint16(34, 16, true); // bits a sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return wav;
}

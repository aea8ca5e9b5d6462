/** WAV helpers: the demo clips are 8-bit G.711 mu-law; served audio is 16-bit PCM. */
import { pcm16WavHeader as sharedHeader } from '../../shared/wav';

export { WAV_HEADER_BYTES } from '../../shared/wav';

/** A canonical 44-byte header for 16-bit mono PCM, as a Buffer (src/shared/wav.ts writes it). */
export const pcm16WavHeader = (sampleRate: number, sampleCount: number): Buffer =>
  Buffer.from(sharedHeader(sampleRate, sampleCount).buffer);

function muLawToPcm16(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -magnitude : magnitude;
}

const MU_LAW_TABLE = Int16Array.from({ length: 256 }, (_, byte) => muLawToPcm16(byte));

/** Decodes a mu-law (format 7) mono WAV file into 16-bit samples. */
export function decodeMuLawWav(file: Buffer, name: string): Int16Array {
  if (file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error(`${name} is not a WAV file`);
  }
  let offset = 12;
  let format = -1;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') format = file.readUInt16LE(body);
    if (id === 'data') {
      if (format !== 7) throw new Error(`${name} is not mu-law encoded (format ${format})`);
      const data = file.subarray(body, Math.min(body + size, file.length));
      return Int16Array.from(data, (byte) => MU_LAW_TABLE[byte] ?? 0);
    }
    offset = body + size + (size % 2);
  }
  throw new Error(`${name} has no data chunk`);
}

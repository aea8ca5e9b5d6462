/** WAV helpers: the demo clips are 8-bit G.711 mu-law; served audio is 16-bit PCM. */

export const WAV_HEADER_BYTES = 44;

/** A canonical 44-byte header for 16-bit mono PCM. */
export function pcm16WavHeader(sampleRate: number, sampleCount: number): Buffer {
  const dataBytes = sampleCount * 2;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

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

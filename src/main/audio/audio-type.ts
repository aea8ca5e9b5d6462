/** The first bytes that tell the audio types below apart. */
export const SNIFF_BYTES = 12;

const ascii = (head: Uint8Array, at: number, text: string) =>
  head.length >= at + text.length &&
  [...text].every((char, i) => head[at + i] === char.charCodeAt(0));

/**
 * The type the shells serve a recording as, from what its first bytes are: never the service's
 * Content-Type, which a media route would otherwise hand the page as it came (`audio/wav,
 * text/html` over an HTML body is a page to a browser, on the app's origin). The formats the
 * app keeps (names.ts); anything else is application/octet-stream, which a browser neither
 * plays nor renders.
 */
export function audioTypeOf(head: Uint8Array): string {
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')) return 'audio/wav';
  if (ascii(head, 4, 'ftyp')) return 'audio/mp4';
  if (ascii(head, 0, 'OggS')) return 'audio/ogg';
  if (ascii(head, 0, 'fLaC')) return 'audio/flac';
  if (ascii(head, 0, '\x1a\x45\xdf\xa3')) return 'audio/webm';
  if (ascii(head, 0, 'ID3')) return 'audio/mpeg';
  const [first = 0, second = 0] = head;
  if (head.length >= 2 && first === 0xff) {
    // ADTS (AAC): 12 sync bits, then layer 00; MPEG audio: 11 sync bits and a layer other than 00.
    if ((second & 0xf6) === 0xf0) return 'audio/aac';
    if ((second & 0xe0) === 0xe0 && (second & 0x06) !== 0) return 'audio/mpeg';
  }
  return 'application/octet-stream';
}

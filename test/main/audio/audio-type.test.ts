import { describe, expect, it } from 'vitest';
import { audioTypeOf } from '../../../src/main/audio/audio-type';

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) =>
      typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part),
    ),
  );

describe('audioTypeOf', () => {
  it.each([
    ['a WAV', bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '), 'audio/wav'],
    ['an M4A', bytes([0, 0, 0, 0x20], 'ftypM4A ', [0, 0, 0, 0]), 'audio/mp4'],
    ['an Ogg', bytes('OggS', [0, 2, 0, 0, 0, 0, 0, 0]), 'audio/ogg'],
    ['a FLAC', bytes('fLaC', [0, 0, 0, 0x22]), 'audio/flac'],
    ['a WebM', bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f]), 'audio/webm'],
    ['an MP3 with ID3', bytes('ID3', [4, 0, 0]), 'audio/mpeg'],
    ['an MP3 frame', bytes([0xff, 0xfb, 0x90, 0x64]), 'audio/mpeg'],
    ['an ADTS AAC frame', bytes([0xff, 0xf1, 0x50, 0x80]), 'audio/aac'],
    [
      'RIFF that is not WAVE (AVI)',
      bytes('RIFF', [0, 0, 0, 0], 'AVI LIST'),
      'application/octet-stream',
    ],
    ['HTML', bytes('<!doctype html><script>'), 'application/octet-stream'],
    ['too short to tell', bytes('RIF'), 'application/octet-stream'],
    ['nothing', bytes(), 'application/octet-stream'],
  ])('%s: %s', (_, head, type) => {
    expect(audioTypeOf(head)).toBe(type);
  });
});

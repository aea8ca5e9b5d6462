import { describe, expect, it } from 'vitest';
import {
  extensionFor,
  labelFileStem,
  MAX_NAME_BYTES,
  numberedName,
  safeFileName,
  truncateBytes,
} from '../../../src/main/audio/names';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const FALLBACK = 'Maple 2026-10-01 0930 ClinicConversation';
const LONG = 'Ω'.repeat(300);

/** What every safe name satisfies, whatever it came from. */
function expectSafe(name: string) {
  expect(name).not.toMatch(/[/\\]/);
  // eslint-disable-next-line no-control-regex
  expect(name).not.toMatch(/[\u0000-\u001f\u007f-\u009f<>:"|?*]/);
  expect(name).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f]/);
  expect(name).not.toMatch(/^[.\s]|[.\s]$/);
  expect(name.split('.')[0]!.trimEnd()).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)$/i);
  expect(bytes(name)).toBeLessThanOrEqual(MAX_NAME_BYTES);
  expect(name).toMatch(/\.wav$/);
}

describe('safeFileName: hostile names from Content-Disposition (RFC 6266 §4.3)', () => {
  it.each([
    ['a path up and out', '../../x', 'x.wav'],
    ['a deeper path with a name', '../../etc/passwd', 'passwd.wav'],
    ['a Windows absolute path', 'C:\\x', 'x.wav'],
    ['a Windows path with a name', 'C:\\Users\\vet\\Desktop\\Maple.wav', 'Maple.wav'],
    ['a drive-relative name', 'C:x.wav', 'C_x.wav'],
    ['a UNC path', '\\\\server\\share\\call.m4a', 'call.wav'],
    ['an absolute POSIX path', '/etc/cron.d/job', 'job.wav'],
    ['only dots', '..', `${FALLBACK}.wav`],
    ['dots and slashes', '../..', `${FALLBACK}.wav`],
    ['a device name', 'CON', '_CON.wav'],
    ['a device name with an extension', 'nul.wav', '_nul.wav'],
    ['a device name with two extensions', 'aux.tar.wav', '_aux.tar.wav'],
    ['a device name and a trailing space', 'COM1 .wav', '_COM1.wav'],
    ['LPT9', 'LPT9', '_LPT9.wav'],
    ['a superscript COM', 'COM¹.wav', '_COM¹.wav'],
    ['not a device name', 'CONSULT.wav', 'CONSULT.wav'],
    ['NUL bytes', 'Maple\u0000.wav\u0000.exe', 'Maple_.wav_.wav'],
    ['control characters', 'a\u0007b\nc\r\td.wav', 'a_b_c__d.wav'],
    ['C1 controls and DEL', 'a\u0085b\u007fc.wav', 'a_b_c.wav'],
    ['characters Windows refuses', 'a<b>c:d"e|f?g*h.wav', 'a_b_c_d_e_f_g_h.wav'],
    ['trailing dots and spaces', 'Maple. . .', 'Maple.wav'],
    ['a leading dot (hidden file)', '.bashrc', 'bashrc.wav'],
    ['an empty name', '', `${FALLBACK}.wav`],
    ['only spaces', '   ', `${FALLBACK}.wav`],
    ['only controls', '\u0001\u0002', `${FALLBACK}.wav`],
    ['another extension', 'Maple.exe', 'Maple.wav'],
    ['a right-to-left override', 'invoice\u202Evaw.exe', 'invoicevaw.wav'],
    ['zero-width characters', 'Ma\u200Bple.wav', 'Maple.wav'],
    ['unicode (kept, NFC)', 'Mäple Ümit 猫 🐶.wav', 'Mäple Ümit 猫 🐶.wav'],
    ['decomposed unicode (made NFC)', 'Ma\u0308ple.wav', 'M\u00e4ple.wav'],
  ])('%s: %j → %j', (_what, suggested, expected) => {
    const name = safeFileName(suggested, 'wav', FALLBACK);
    expect(name).toBe(expected);
    expectSafe(name);
  });

  it('bounds a very long name in bytes, keeps the extension, never splits a character', () => {
    for (const long of [LONG, 'a'.repeat(1000), '🐶'.repeat(200), `${'x'.repeat(300)}.wav`]) {
      const name = safeFileName(long, 'wav', FALLBACK);
      expectSafe(name);
      expect(bytes(name)).toBeGreaterThan(MAX_NAME_BYTES - 8);
      expect(name.endsWith('.wav')).toBe(true);
      expect(name).not.toContain('\ufffd');
      expect(Buffer.from(name, 'utf8').toString('utf8')).toBe(name);
    }
  });

  it('keeps emoji sequences whole when it cuts', () => {
    const family = '👨‍👩‍👧';
    expect(truncateBytes(family.repeat(3), bytes(family) * 2 + 3)).toBe(family.repeat(2));
  });

  it('falls back to the label when the service suggests nothing, the fallback made safe too', () => {
    const label = {
      patient: { id: 'p', name: 'Rex/Max: "CON"' },
      fromTime: new Date(2026, 9, 1, 9, 5).toISOString(),
      type: 'PhoneCallAudio' as const,
    };
    expect(labelFileStem(label, 'id')).toBe('Rex/Max: "CON" 2026-10-01 0905 Phone call');
    // The patient's name is data, not a path: the last segment is what is left of it.
    expect(safeFileName(null, 'm4a', labelFileStem(label, 'id'))).toBe(
      'Max_ _CON_ 2026-10-01 0905 Phone call.m4a',
    );
    expect(labelFileStem({ ...label, patient: null }, 'id')).toMatch(/^Unassigned /);
    expect(labelFileStem(undefined, 'abc')).toBe('Recording abc');
    expect(safeFileName(null, 'wav', '')).toBe('audio.wav');
  });

  it('numbers names for keep-both before the extension', () => {
    expect(numberedName('Maple.wav', 1)).toBe('Maple.wav');
    expect(numberedName('Maple.wav', 2)).toBe('Maple (2).wav');
    expect(numberedName('a.b.wav', 3)).toBe('a.b (3).wav');
    expect(numberedName('noext', 2)).toBe('noext (2)');
  });
});

describe('extensionFor: the extension comes from Content-Type', () => {
  it.each([
    ['audio/wav', 'wav'],
    ['audio/x-wav', 'wav'],
    ['Audio/WAV; codecs=1', 'wav'],
    ['audio/mp4', 'm4a'],
    ['audio/mpeg', 'mp3'],
    ['audio/x-unknown', 'bin'],
    ['application/octet-stream', 'bin'],
    ['text/html; charset=utf-8', undefined],
    ['application/json', undefined],
    ['', undefined],
  ])('%j → %j', (type, extension) => {
    expect(extensionFor(type)).toBe(extension);
  });
});

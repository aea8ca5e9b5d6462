import { describe, expect, it } from 'vitest';
import { pathOf, queryString } from '../../../src/main/service-client/http';
import { filenameOf } from '../../../src/main/service-client/labels';
import { timestampOf } from '../../../src/main/service-client/read';

describe('timestampOf', () => {
  const ISO = '2026-10-01T08:00:00.000Z';
  const MS = Date.parse(ISO);
  it.each([
    ['ISO 8601 in UTC', ISO, ISO],
    ['ISO 8601 without milliseconds', '2026-10-01T08:00:00Z', ISO],
    ['ISO 8601 with an offset', '2026-10-01T10:00:00+02:00', ISO],
    ['epoch milliseconds', MS, ISO],
    ['epoch milliseconds as digits', String(MS), ISO],
    ['null', null, null],
    ['garbage', 'next tuesday', null],
    ['an object', {}, null],
    // toISOString's own form is kept as sent; a look-alike out of range reads as Date.parse reads
    // it (rolled over into the next month or day, or refused).
    ['29 February of a leap year', '2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
    ['29 February of another year', '2023-02-29T08:00:00.000Z', '2023-03-01T08:00:00.000Z'],
    ['31 April', '2026-04-31T08:00:00.000Z', '2026-05-01T08:00:00.000Z'],
    ['hour 24', '2026-09-30T24:00:00.000Z', '2026-10-01T00:00:00.000Z'],
    ['month 13', '2026-13-01T08:00:00.000Z', null],
    ['second 60', '2026-10-01T07:59:60.000Z', null],
  ])('%s', (_, value, expected) => {
    expect(timestampOf(value)).toBe(expected);
  });
});

describe('queryString and pathOf', () => {
  it('repeats arrays, skips undefined, encodes values', () => {
    expect(
      queryString({
        types: ['HubMic', 'HubBatch'],
        limit: 5,
        skip: undefined,
        q: 'a b&c',
        on: true,
      }),
    ).toBe('?types=HubMic&types=HubBatch&limit=5&q=a%20b%26c&on=true');
    expect(queryString({})).toBe('');
    expect(queryString({ types: [] })).toBe('');
  });

  it('encodes each path parameter', () => {
    expect(pathOf`/hub/conversations/${'hub 1/x'}/${'c?1'}/complete`).toBe(
      '/hub/conversations/hub%201%2Fx/c%3F1/complete',
    );
  });

  it('refuses a parameter that is a dot segment (a URL resolves it to another path)', () => {
    expect(() => pathOf`/hub/conversations/${'hub-1'}/${'..'}/complete`).toThrow(/"\.\."/);
    expect(() => pathOf`/labels/${'.'}`).toThrow(/"\."/);
    expect(pathOf`/hub/conversations/${'hub.1'}/${'...'}`).toBe('/hub/conversations/hub.1/...');
  });
});

describe('filenameOf', () => {
  it.each([
    [
      'a quoted name',
      'attachment; filename="Maple 2026-10-01 0800 HubMic.wav"',
      'Maple 2026-10-01 0800 HubMic.wav',
    ],
    ['a token', 'attachment; filename=audio.m4a', 'audio.m4a'],
    [
      'the RFC 8187 name first',
      `attachment; filename="?ngstr?m.wav"; filename*=UTF-8''%C3%85ngstr%C3%B6m.wav`,
      'Ångström.wav',
    ],
    ['an escaped quote', 'attachment; filename="say \\"hi\\".wav"', 'say "hi".wav'],
    ['no name', 'attachment', null],
    ['no header', undefined, null],
  ])('%s', (_, header, expected) => {
    expect(filenameOf(header)).toBe(expected);
  });
});

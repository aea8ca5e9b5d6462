import { describe, expect, it } from 'vitest';
import {
  conversationBands,
  overlappingBand,
  overlaps,
  recordOfRange,
  type HubRecordLike,
  type KnownConversation,
} from '../../src/shared/timeline/bands';

const MINUTE = 60_000;
const day = Date.UTC(2026, 10, 23);
const at = (minute: number) => day + minute * MINUTE;
const view = { startMs: at(0), endMs: at(24 * 60) };
const device = { deviceId: 'hub-1', deviceSerial: 'SN-1' };

const conversation = (
  id: string,
  status: KnownConversation['status'],
  range?: [number, number],
  labelId: string | null = null,
): KnownConversation => ({
  conversationId: id,
  deviceId: 'hub-1',
  status,
  ...(range ? { startMs: range[0], endMs: range[1], labelId } : {}),
});
const record = (id: string, from: number, to: number, extra: Partial<HubRecordLike> = {}) => ({
  id,
  type: 'HubMic',
  fromTime: new Date(from).toISOString(),
  toTime: new Date(to).toISOString(),
  deviceSerial: 'SN-1',
  ...extra,
});

describe('overlaps', () => {
  it('treats ranges as half-open: touching ends do not overlap', () => {
    expect(overlaps({ startMs: 0, endMs: 10 }, { startMs: 10, endMs: 20 })).toBe(false);
    expect(overlaps({ startMs: 0, endMs: 11 }, { startMs: 10, endMs: 20 })).toBe(true);
    expect(overlaps({ startMs: 12, endMs: 13 }, { startMs: 10, endMs: 20 })).toBe(true);
  });
});

describe('recordOfRange (a conversation ↔ the record it became)', () => {
  const records = [
    record('other-device', at(600), at(640), { deviceSerial: 'SN-2' }),
    record('dictation', at(600), at(640), { type: 'DictationAudio' }),
    record('longer', at(600), at(641)),
    record('the-one', at(600), at(640)),
  ];
  it('takes the hub record of the same device covering exactly the range', () => {
    expect(recordOfRange({ startMs: at(600), endMs: at(640) }, 'SN-1', records)?.id).toBe(
      'the-one',
    );
  });
  it('reads epoch-ms times as well as ISO ones, and finds nothing when no record matches', () => {
    const epoch = [{ ...record('x', 0, 0), fromTime: at(5), toTime: at(9) }];
    expect(recordOfRange({ startMs: at(5), endMs: at(9) }, 'SN-1', epoch)?.id).toBe('x');
    expect(recordOfRange({ startMs: at(5), endMs: at(10) }, 'SN-1', epoch)).toBeUndefined();
  });
});

describe('conversationBands', () => {
  it("draws the service's ranges when it sends them, marking those created here", () => {
    const bands = conversationBands({
      view,
      ...device,
      conversations: [
        conversation('c2', 'PROCESSING', [at(700), at(730)]),
        conversation('c1', 'UPLOADED', [at(651), at(668)], 'rec-1'),
        conversation('elsewhere', 'ACTIVE', [at(24 * 60 + 5), at(24 * 60 + 9)]),
        { ...conversation('other-hub', 'ACTIVE', [at(1), at(2)]), deviceId: 'hub-2' },
      ],
      createdRanges: [
        { conversationId: 'c2', deviceId: 'hub-1', startMs: at(700), endMs: at(730) },
      ],
      records: [record('rec-1', at(651), at(668))],
    });
    expect(bands).toEqual([
      {
        startMs: at(651),
        endMs: at(668),
        conversationId: 'c1',
        status: 'UPLOADED',
        labelId: 'rec-1',
        createdHere: false,
        source: 'service',
      },
      {
        startMs: at(700),
        endMs: at(730),
        conversationId: 'c2',
        status: 'PROCESSING',
        labelId: null,
        createdHere: true,
        source: 'service',
      },
    ]);
  });

  it('without service times: created ranges, with their listed status, and hub records for the rest', () => {
    const bands = conversationBands({
      view,
      ...device,
      conversations: [conversation('mine', 'FILTERED'), conversation('hubs', 'UPLOADED')],
      createdRanges: [
        { conversationId: 'mine', deviceId: 'hub-1', startMs: at(100), endMs: at(110) },
        { conversationId: 'mine-uploaded', deviceId: 'hub-1', startMs: at(200), endMs: at(230) },
      ],
      records: [
        record('rec-mine', at(200), at(230)),
        record('rec-hub', at(300), at(345), { type: 'HubBatch' }),
        record('rec-other-device', at(400), at(420), { deviceSerial: 'SN-2' }),
      ],
    });
    expect(
      bands.map((b) => [b.conversationId, b.status, b.labelId, b.source, b.createdHere]),
    ).toEqual([
      ['mine', 'FILTERED', null, 'created', true],
      ['mine-uploaded', 'UPLOADED', 'rec-mine', 'created', true],
      [null, 'UPLOADED', 'rec-hub', 'record', false],
    ]);
  });

  it('keeps only what overlaps the view', () => {
    const bands = conversationBands({
      view: { startMs: at(600), endMs: at(660) },
      ...device,
      conversations: [],
      createdRanges: [],
      records: [
        record('before', at(500), at(600)),
        record('across', at(590), at(610)),
        record('after', at(660), at(700)),
      ],
    });
    expect(bands.map((b) => b.labelId)).toEqual(['across']);
  });
});

describe('overlappingBand', () => {
  it('names the conversation a range would collide with, or none', () => {
    const bands = conversationBands({
      view,
      ...device,
      conversations: [conversation('c1', 'UPLOADED', [at(651), at(668)])],
      createdRanges: [],
      records: [],
    });
    expect(overlappingBand({ startMs: at(640), endMs: at(655) }, bands)?.conversationId).toBe('c1');
    expect(overlappingBand({ startMs: at(668), endMs: at(690) }, bands)).toBeUndefined();
  });
});

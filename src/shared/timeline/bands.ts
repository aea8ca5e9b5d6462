import type { ConversationStatus } from '../api/values';
import type { TimeRange } from './range';

/**
 * Where a device's conversations lie in time, so the timeline can draw every one of them and not
 * invite a create the service will refuse. The seed's conversation carries no times; the
 * reference service (and any service with the same extension) sends `startMs`/`endMs`. Without
 * them, what the app can know is the ranges it created itself and, for every conversation that
 * became a record, that record's times: a hub record (HubMic, HubBatch) of the device covers
 * exactly its conversation's range.
 */

/** What the bands are built from; the client's and the cache's shapes both fit. */
export interface KnownConversation {
  conversationId: string;
  deviceId: string;
  status: ConversationStatus;
  startMs?: number;
  endMs?: number;
  labelId?: string | null;
}
export interface CreatedRangeLike {
  conversationId: string;
  deviceId: string;
  startMs: number;
  endMs: number;
}
export interface HubRecordLike {
  id: string;
  type: string;
  /** Epoch ms or ISO 8601, as records arrive. */
  fromTime: string | number;
  toTime: string | number;
  deviceSerial: string;
}

export interface ConversationBand extends TimeRange {
  /** Null for a conversation known only from the record it became. */
  conversationId: string | null;
  /** Null when only its range is known (created here, its status not yet read). */
  status: ConversationStatus | null;
  /** The record it became, when known. */
  labelId: string | null;
  /** This app created it. */
  createdHere: boolean;
  /** Where its range comes from. */
  source: 'service' | 'created' | 'record';
}

const HUB_RECORD_TYPES: readonly string[] = ['HubMic', 'HubBatch'];

/** Whether two half-open ranges share a moment. */
export const overlaps = (a: TimeRange, b: TimeRange): boolean =>
  a.startMs < b.endMs && b.startMs < a.endMs;

const instant = (time: string | number) => (typeof time === 'number' ? time : Date.parse(time));

/** The range of a record, or undefined when its times cannot be read. */
function recordRange(record: HubRecordLike): TimeRange | undefined {
  const startMs = instant(record.fromTime);
  const endMs = instant(record.toTime);
  return Number.isFinite(startMs) && Number.isFinite(endMs) && endMs > startMs
    ? { startMs, endMs }
    : undefined;
}

/**
 * The hub record a conversation became: a HubMic or HubBatch record of the same device (by its
 * serial) covering exactly the conversation's range.
 */
export function recordOfRange<R extends HubRecordLike>(
  range: TimeRange,
  deviceSerial: string,
  records: readonly R[],
): R | undefined {
  return records.find((record) => {
    if (!HUB_RECORD_TYPES.includes(record.type) || record.deviceSerial !== deviceSerial)
      return false;
    const times = recordRange(record);
    return times?.startMs === range.startMs && times.endMs === range.endMs;
  });
}

/**
 * Every conversation of one device that overlaps `view`, as bands sorted by start: from the
 * service's times where it sends them, else from the ranges this app created (with the status
 * the service gave, when listed), and, for conversations known by neither, from the device's hub
 * records (UPLOADED, by definition). A conversation appears once whatever says so.
 */
export function conversationBands(input: {
  view: TimeRange;
  deviceId: string;
  deviceSerial: string;
  conversations: readonly KnownConversation[];
  createdRanges: readonly CreatedRangeLike[];
  records: readonly HubRecordLike[];
}): ConversationBand[] {
  const { view, deviceId, deviceSerial } = input;
  const created = new Map(
    input.createdRanges.filter((r) => r.deviceId === deviceId).map((r) => [r.conversationId, r]),
  );
  const listed = new Map(
    input.conversations.filter((c) => c.deviceId === deviceId).map((c) => [c.conversationId, c]),
  );
  const bands: ConversationBand[] = [];
  for (const conversation of listed.values()) {
    const { startMs, endMs } = conversation;
    if (startMs === undefined || endMs === undefined) continue;
    bands.push({
      startMs,
      endMs,
      conversationId: conversation.conversationId,
      status: conversation.status,
      labelId: conversation.labelId ?? null,
      createdHere: created.has(conversation.conversationId),
      source: 'service',
    });
  }
  const known = new Set(bands.map((band) => band.conversationId));
  for (const range of created.values()) {
    if (known.has(range.conversationId)) continue;
    bands.push({
      startMs: range.startMs,
      endMs: range.endMs,
      conversationId: range.conversationId,
      status: listed.get(range.conversationId)?.status ?? null,
      labelId: null,
      createdHere: true,
      source: 'created',
    });
  }
  for (const record of input.records) {
    if (!HUB_RECORD_TYPES.includes(record.type) || record.deviceSerial !== deviceSerial) continue;
    const range = recordRange(record);
    if (!range) continue;
    const same = bands.find(
      (band) =>
        band.labelId === record.id ||
        (band.startMs === range.startMs && band.endMs === range.endMs),
    );
    if (same) {
      same.labelId ??= record.id;
      if (same.status === null) same.status = 'UPLOADED';
      continue;
    }
    bands.push({
      ...range,
      conversationId: null,
      status: 'UPLOADED',
      labelId: record.id,
      createdHere: false,
      source: 'record',
    });
  }
  return bands.filter((band) => overlaps(band, view)).sort((a, b) => a.startMs - b.startMs);
}

/** The first known conversation a range overlaps (the service would refuse to create it). */
export const overlappingBand = (
  range: TimeRange,
  bands: readonly ConversationBand[],
): ConversationBand | undefined => bands.find((band) => overlaps(band, range));

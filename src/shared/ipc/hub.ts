import { Type } from '@sinclair/typebox';
import {
  DeviceId,
  EpochMs,
  type Conversation,
  type CreateConversationResponse,
  type Device,
  type Preview,
  type TimelineMinute,
} from '../api';
import type { ConversationBand } from '../timeline/bands';
import { channel, ConversationRef, None } from './channel';
import type { Sourced } from './results';

/** The recorded minutes of [startMs, endMs) on a device, fetched as windows of at most 6 hours. */
export interface DayMinutes {
  deviceId: string;
  startMs: number;
  endMs: number;
  minutes: TimelineMinute[];
}

/** A conversation this app created, with the range it covers (the seed's conversation carries no times). */
export interface CreatedRange {
  conversationId: string;
  deviceId: string;
  startMs: number;
  endMs: number;
  createdAt: string;
}

const Range = Type.Object(
  { deviceId: DeviceId, startMs: EpochMs, endMs: EpochMs },
  { additionalProperties: false },
);

/** The hub timeline: devices, their minutes, and conversations made from a range. */
export const HUB_CHANNELS = {
  /** The organization's devices; offline, the last list read. */
  'devices.list': channel<Sourced<Device[]>>()(None),
  /**
   * A day (at most 26 hours) of a device's minutes; main fetches it as parallel 6-hour windows.
   * Offline, the cached minutes of the range (when any of it was fetched).
   */
  'hub.minutes': channel<Sourced<DayMinutes>>()(Range),
  'hub.preview': channel<Preview>()(Range),
  /** POST create; on success the range is remembered locally for drawing. */
  'hub.create': channel<CreateConversationResponse>()(Range),
  'hub.complete': channel<Conversation>()(ConversationRef),
  /** The ranges this app created on a device that intersect [startMs, endMs). */
  'hub.createdRanges': channel<CreatedRange[]>()(Range),
  /**
   * Every conversation of the device known to overlap [startMs, endMs) (a day), as bands: from
   * the service's times where it sends them, else from the ranges this app created and the
   * device's hub records. Offline, from what the cache holds.
   */
  'hub.bands': channel<Sourced<ConversationBand[]>>()(Range),
} as const;

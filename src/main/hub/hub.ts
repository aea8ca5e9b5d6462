import { TIMELINE_MAX_WINDOW_MS, type Device } from '../../shared/api';
import type { DayMinutes, Sourced } from '../../shared/ipc';
import { fetchWindows } from '../../shared/timeline';
import type { ActiveService } from '../connection/active-service';
import type { Cache } from '../cache';
import type { ConversationRanges } from '../conversations/ranges';
import { invalidInput } from '../base/errors';

/** A local day is at most 25 hours; leave room for a view that spans a little more. */
const MAX_DAY_MS = 26 * 60 * 60 * 1000;

export interface Range {
  deviceId: string;
  startMs: number;
  endMs: number;
}

function checkRange({ startMs, endMs }: Range, maxMs: number): void {
  if (endMs <= startMs) throw invalidInput('The end of the range must be after its start.');
  if (endMs - startMs > maxMs)
    throw invalidInput(`The range may span at most ${maxMs / 3_600_000} hours.`);
}

export interface HubDeps {
  service: Pick<ActiveService, 'call' | 'read'>;
  cache(): Promise<Cache>;
  organizationId(): string;
  ranges: ConversationRanges;
}

/** The hub timeline: devices, a day's minutes (fetched as 6-hour windows), conversations made from a range. */
export class Hub {
  constructor(private readonly deps: HubDeps) {}

  devices(): Promise<Sourced<Device[]>> {
    return this.deps.service.read({
      fetch: (service) => service.api.devices.list({ organizationId: this.deps.organizationId() }),
      keep: (write, devices, at) => write.storeDevices(devices, at),
      cached: async (read) => {
        const { devices, fetchedAt } = await read.devicesFetched();
        return devices.length > 0 ? { value: devices, fetchedAt } : null;
      },
    });
  }

  /** A day (at most 26 hours) of a device's minutes, fetched as parallel windows of at most 6 hours. */
  minutes(range: Range): Promise<Sourced<DayMinutes>> {
    checkRange(range, MAX_DAY_MS);
    const { deviceId, startMs, endMs } = range;
    return this.deps.service.read({
      fetch: async (service) => {
        const windows = fetchWindows({ startMs, endMs }, TIMELINE_MAX_WINDOW_MS);
        const parts = await Promise.all(
          windows.map((w) => service.api.conversations.timeline(deviceId, w)),
        );
        return { deviceId, startMs, endMs, minutes: parts.flatMap((part) => part.minutes) };
      },
      keep: (write, day, fetchedAt) => write.storeTimeline({ ...day, fetchedAt }),
      cached: async (read) => {
        const cached = await read.timeline(deviceId, startMs, endMs);
        return cached.coveredMs > 0
          ? {
              value: { deviceId, startMs, endMs, minutes: cached.minutes },
              fetchedAt: cached.fetchedAt,
            }
          : null;
      },
    });
  }

  preview(range: Range) {
    return this.deps.service.call((service) => service.api.conversations.preview(range));
  }

  /** POST create; the seed's conversation carries no times, so the account's cache remembers the range. */
  create(range: Range) {
    return this.deps.service.call(async (service) => {
      const result = await service.api.conversations.create(range);
      if (result.success && result.conversation) {
        await (
          await this.deps.cache()
        ).write.addCreatedRange({
          ...range,
          conversationId: result.conversation.conversationId,
          createdAt: new Date().toISOString(),
        });
      }
      return result;
    });
  }

  complete(deviceId: string, conversationId: string) {
    return this.deps.service.call(async (service) => {
      await service.api.conversations.complete(deviceId, conversationId);
      return service.api.conversations.get(deviceId, conversationId);
    });
  }

  /** Every known conversation of the device in a day (at most 26 hours), as bands. */
  bands(range: Range) {
    checkRange(range, MAX_DAY_MS);
    return this.deps.ranges.bands(range);
  }

  async createdRanges({ deviceId, startMs, endMs }: Range) {
    return (await this.deps.cache()).read.createdRangesWithin(deviceId, startMs, endMs);
  }
}

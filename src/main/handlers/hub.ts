import { TIMELINE_MAX_WINDOW_MS } from '../../shared/api';
import { fetchWindows } from '../../shared/timeline';
import type { CoreContext } from '../context';
import { invalidInput } from '../errors';
import type { RpcHandlers } from '../rpc';

/** A local day is at most 25 hours; leave room for a view that spans a little more. */
const MAX_DAY_MS = 26 * 60 * 60 * 1000;

type HubChannels =
  | 'devices.list'
  | 'hub.minutes'
  | 'hub.preview'
  | 'hub.create'
  | 'hub.complete'
  | 'hub.createdRanges'
  | 'conversations.list'
  | 'conversations.get'
  | 'conversations.record'
  | 'conversations.createdRange'
  | 'labels.get';

function checkRange(startMs: number, endMs: number, maxMs: number): void {
  if (endMs <= startMs) throw invalidInput('The end of the range must be after its start.');
  if (endMs - startMs > maxMs)
    throw invalidInput(`The range may span at most ${maxMs / 3_600_000} hours.`);
}

export function hubHandlers({
  accounts,
  withService,
  cache,
  remember,
}: CoreContext): Pick<RpcHandlers, HubChannels> {
  return {
    'devices.list': () =>
      withService(
        async (service) => {
          const devices = await service.api.devices.list({
            organizationId: accounts.active().account.organizationId,
          });
          void remember((write) => write.storeDevices(devices, Date.now()));
          return devices;
        },
        async (read) => {
          const devices = await read.devices();
          return devices.length > 0 ? devices : null;
        },
      ),
    'hub.minutes': ({ deviceId, startMs, endMs }) => {
      checkRange(startMs, endMs, MAX_DAY_MS);
      return withService(
        async (service) => {
          const windows = fetchWindows({ startMs, endMs }, TIMELINE_MAX_WINDOW_MS);
          const parts = await Promise.all(
            windows.map((w) => service.api.conversations.timeline(deviceId, w)),
          );
          const minutes = parts.flatMap((part) => part.minutes);
          void remember((write) =>
            write.storeTimeline({ deviceId, startMs, endMs, minutes, fetchedAt: Date.now() }),
          );
          return { deviceId, startMs, endMs, minutes };
        },
        async (read) => {
          const cached = await read.timeline(deviceId, startMs, endMs);
          return cached.coveredMs > 0
            ? { deviceId, startMs, endMs, minutes: cached.minutes }
            : null;
        },
      );
    },
    'hub.preview': (range) => withService((service) => service.api.conversations.preview(range)),
    'hub.create': (range) =>
      withService(async (service) => {
        const result = await service.api.conversations.create(range);
        if (result.success && result.conversation) {
          // The seed's conversation carries no times: the account's cache remembers the range.
          await (
            await cache()
          ).write.addCreatedRange({
            ...range,
            conversationId: result.conversation.conversationId,
            createdAt: new Date().toISOString(),
          });
        }
        return result;
      }),
    'hub.complete': ({ deviceId, conversationId }) =>
      withService(async (service) => {
        await service.api.conversations.complete(deviceId, conversationId);
        return service.api.conversations.get(deviceId, conversationId);
      }),
    'hub.createdRanges': async ({ deviceId, startMs, endMs }) =>
      (await cache()).read.createdRangesWithin(deviceId, startMs, endMs),
    'conversations.list': (query) =>
      withService((service) => service.api.conversations.list(query)),
    'conversations.get': ({ deviceId, conversationId }) =>
      withService((service) => service.api.conversations.get(deviceId, conversationId)),
    'conversations.record': ({ deviceId, conversationId }) =>
      withService(async (service) => {
        const range = await (await cache()).read.createdRange(conversationId);
        if (!range) return null;
        const { account } = accounts.active();
        const device = (
          await service.api.devices.list({ organizationId: account.organizationId })
        ).find((d) => d.value === deviceId);
        // The record starts when the range does: list hub records starting in that very millisecond.
        const { items } = await service.api.labels.list(account.organizationId, {
          types: ['HubMic', 'HubBatch'],
          fromTime: new Date(range.startMs).toISOString(),
          toTime: new Date(range.startMs + 1).toISOString(),
          limit: 20,
        });
        const match = items.find(
          (label) =>
            Date.parse(label.toTime) === range.endMs &&
            (!device || label.deviceSerial === device.serial),
        );
        return match ? service.api.labels.get(match.id) : null;
      }),
    'conversations.createdRange': async ({ deviceId, conversationId }) => {
      const range = await (await cache()).read.createdRange(conversationId);
      return range?.deviceId === deviceId ? range : null;
    },
    'labels.get': ({ labelId }) =>
      withService(
        async (service) => {
          const label = await service.api.labels.get(labelId);
          void remember((write) => write.storeLabels([label], Date.now()));
          return label;
        },
        (read) => read.label(labelId),
      ),
  };
}

import type { HUB_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type HubContext = Pick<CoreContext, 'hub'>;

export const hubHandlers = ({ hub }: HubContext): RpcHandlers<typeof HUB_CHANNELS> => ({
  'devices.list': () => hub.devices(),
  'hub.minutes': (range) => hub.minutes(range),
  'hub.preview': (range) => hub.preview(range),
  'hub.create': (range) => hub.create(range),
  'hub.complete': ({ deviceId, conversationId }) => hub.complete(deviceId, conversationId),
  'hub.createdRanges': (range) => hub.createdRanges(range),
  'hub.bands': (range) => hub.bands(range),
});

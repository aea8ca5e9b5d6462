import type { SYNC_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type SyncContext = Pick<CoreContext, 'cache' | 'sync' | 'syncStatus'>;

export const syncHandlers = ({
  cache,
  sync,
  syncStatus,
}: SyncContext): RpcHandlers<typeof SYNC_CHANNELS> => ({
  'sync.run': () => sync(),
  'sync.status': () => syncStatus(),
  search: async ({ query, limit }) => (await (await cache()).read.search(query, { limit })).hits,
});

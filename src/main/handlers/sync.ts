import type { SYNC_CHANNELS } from '../../shared/ipc';
import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export type SyncContext = Pick<
  CoreContext,
  'cache' | 'sync' | 'syncStatus' | 'cacheLocked' | 'startFreshCache'
>;

export const syncHandlers = ({
  cache,
  sync,
  syncStatus,
  cacheLocked,
  startFreshCache,
}: SyncContext): RpcHandlers<typeof SYNC_CHANNELS> => ({
  'sync.run': () => sync(),
  'sync.status': () => syncStatus(),
  'cache.locked': () => cacheLocked(),
  'cache.startFresh': async ({ accountId }) => {
    await startFreshCache(accountId);
    return null;
  },
  search: async ({ query, limit }) => (await (await cache()).read.search(query, { limit })).hits,
});

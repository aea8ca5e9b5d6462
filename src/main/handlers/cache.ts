import type { CoreContext } from '../context';
import type { RpcHandlers } from '../rpc';

export const cacheHandlers = ({
  cache,
  sync,
  syncStatus,
}: CoreContext): Pick<RpcHandlers, 'sync.run' | 'sync.status' | 'search'> => ({
  'sync.run': () => sync(),
  'sync.status': () => syncStatus(),
  search: async ({ query, limit }) => (await (await cache()).read.search(query, { limit })).hits,
});
